"""``briscola report``: what a result file or dataset says, on the console, in plots and
in one HTML page holding them.

The console and the page show the run's own summary (the one its command printed,
kept in the file's metadata), then the scores of every strategy by side. Every figure
is drawn by matplotlib (the Agg backend: no display needed) from the pandas summaries
of ``sim.present.analysis``, and names the strategies, table, seed and rules it shows.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from sim.base.config import ConfigError
from sim.base.files import REPORT, foreign_files, refuse_foreign, replace_folder, temporary_path, through_link
from sim.base.summaries import SCORE_DIGITS, rounded
from sim.pipeline.kinds import kind_of
from sim.pipeline.kinds.words import rules_text, run_facts, side_word
from sim.present import analysis
from sim.present.report import show_summary

EVEN = 0.5  # the score of two equal strategies


def report_folder(path: Path) -> Path:
    """Where a report goes: beside the file or folder, named after it."""
    return path.with_name(f"{path.stem if path.is_file() else path.name}_report")


def load_report(path: Path) -> tuple[analysis.Results, dict]:
    """The run at ``path`` and what the report says of it (the JSON of ``briscola
    report``, less where it was written)."""
    if not path.exists():
        raise ConfigError(f"{path} does not exist; give a result file or a tournament folder")
    try:
        run = analysis.load_run(path)
    except analysis.RefusedRun as error:  # says what the path is, and what to pass instead
        raise ConfigError(str(error)) from None
    except (ValueError, OSError) as error:
        if (path / analysis.STUDY_FILE).exists():  # a study of several experiments, or damaged
            raise ConfigError(str(error)) from None
        raise ConfigError(f"{path} is not a briscola result file or dataset ({error})") from None
    return run, _findings(path, run)


def write_report(path: Path, overwrite: bool = False) -> dict:
    """The report's findings; its plots and ``index.html`` are written beside ``path``
    (the folder appears only when complete). An existing report folder is kept unless
    ``overwrite``: ``written`` tells which."""
    run, found = load_report(path)
    shown = report_folder(path)
    target = through_link(shown)  # a link is drawn through, and stays
    found.update(html=str(shown / "index.html"), written=False, plots=[])
    if target.exists() and not overwrite and (target / "index.html").is_file():  # a report drawn before: kept
        found["plots"] = sorted(str(shown / p.name) for p in target.glob("*.png"))
        return found
    if target.exists() and not overwrite:
        _refuse_what_is_not_a_report(shown, target)
    if target.exists():
        refuse_foreign(target, REPORT, "the report folder")  # before anything is drawn
    staging = temporary_path(target, REPORT)
    staging.mkdir()
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display needed
        figures = _draw_all(run, found, staging)
        (staging / "index.html").write_text(_page(path, found, figures))
        replace_folder(staging, target, REPORT, "the report folder")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    found.update(written=True, plots=[str(shown / name) for name in figures])
    return found


def _refuse_what_is_not_a_report(shown: Path, target: Path) -> None:
    """A folder in the report's place that holds no report and files briscola did not
    write is someone's: said in one line, and left as it is (an empty one is drawn in)."""
    foreign = foreign_files(target, REPORT)
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise ConfigError(f"{shown} exists and holds no report but {foreign[0]}{more}, which briscola did not write: "
                          "nothing was drawn; move it away, and the report is drawn there")  # fmt: skip


def _findings(path: Path | None, run: analysis.Results) -> dict:
    scores = analysis.side_strategy_scores(run).reset_index()
    played = len(run.deals) > 0  # a run stopped before its first deal has no rows
    found = {
        "path": str(path) if path else run.config.get("experiment", "the run"), "kind": run.kind, "players": run.players, "seed": run.seed, "rules": run.rules,
        "match": run.match, "strategies": run.strategies, "rows": len(run.deals),
        "status": run.config.get("status", "complete"),
        "summary": _summary(run), "scores": _tidy(scores.to_dict("records")),
        "first_lead": _tidy([analysis.first_lead(run).to_dict()])[0]
                      if played and analysis.balanced_seats(run) else None,
    }  # fmt: skip
    if run.run_kind.rated and played:
        found["ratings"] = _tidy(analysis.ratings(run).reset_index().to_dict("records"))
    found["luck"] = _luck(run) if played else None
    return found


def _luck(run: analysis.Results) -> dict | None:
    """A comparison's luck figures (sim/present/luck.py), without its frames; None for a
    run luck does not read (a simulation, a tournament, matches)."""
    from sim.present.luck import luck

    try:  # the par left out: solving deals takes about a second each (briscola luck gives it)
        figures = luck(run, par_deals=0)
    except ValueError:
        return None
    return {key: value for key, value in figures.items() if not isinstance(value, pd.DataFrame)}


LUCK_LINES = (
    ("better_loses", "games the better strategy loses"),
    ("cards_decide", "deals the cards decide (the same seats win every seating)"),
    ("deal_share", "variance of a game's outcome the deal explains"),
    ("strategy_share", "variance the strategies explain"),
    ("lead_gain", "what leading the first trick is worth to A"),
)


def _luck_lines(found: dict) -> list[str]:
    luck = found.get("luck")
    if not luck:
        return []
    lines = [f"luck against skill (briscola luck; the better strategy is {luck['better']}), 95% intervals:"]
    for key, label in LUCK_LINES:
        figure = luck[key]
        if figure is None:
            lines.append(f"  {label}: left out, {luck['left_out'][key]}")
            continue
        lines.append(f"  {label}: {figure['value']:.4f} ({figure['ci_low']:.4f} to {figure['ci_high']:.4f})")
    return lines


def _tidy(records: list[dict]) -> list[dict]:
    """Figures as the commands print them: counts as integers, the rest rounded."""
    return [{key: int(value) if key == "games" else rounded(value, SCORE_DIGITS) if isinstance(value, float) else value
             for key, value in record.items()} for record in records]  # fmt: skip


def _summary(run: analysis.Results) -> dict | None:
    """The summary the run's command printed: kept in a result file's metadata, or the
    tournament's ``_tournament.json`` (None for files written before it was kept)."""
    return run.run_kind.kept_summary(run.config)


def headline(found: dict) -> str:
    """One line naming what was reported."""
    return (f"{found['kind']} results {found['path']}: {', '.join(found['strategies'])}; {found['players']} players, "
            f"{found['rows']:,} rows, {run_facts(found)} ({found['status']})")  # fmt: skip


def show_report(found: dict) -> None:
    """The console's report: the run's own summary, scores by side, the first lead."""
    print(headline(found))
    summary, partial = found["summary"], found["status"] != "complete"
    if summary is not None:
        show_summary(found["kind"], summary, partial)
    side = side_word(found["players"])
    print(f"{score_label(found['players'])} by strategy and {side}, 95% intervals:")
    for row in found["scores"]:
        print(
            f"  {row['strategy']:<28} {side} {row['side']}  {row['score']:.4f} ({row['ci_low']:.4f} to {row['ci_high']:.4f})"
        )
    print(_first_lead_text(found))
    for line in _luck_lines(found):
        print(line)


def score_label(players: int) -> str:
    """What a report's score is at a table of ``players``."""
    if players == 3:
        return "score against each other seat apart (more points 1, equal 1/2)"
    if players == 5:
        return ("score against each other seat apart on game points (more 1, equal 1/2: a pairwise score, "
                "not the win rate)")  # fmt: skip
    return "score (win 1, draw 1/2)"


def _first_lead_text(found: dict) -> str:
    lead = found["first_lead"]
    if not found["rows"]:
        return "first-lead advantage: not measured (no deal was played)"
    if lead is None:
        return ("first-lead advantage: not measured (the strategies are not balanced over the seats; "
                "briscola compare plays every seating)")  # fmt: skip
    who = ("seat 0, who bids first and, unless first_lead=caller, leads first" if found["players"] == 5
           else f"the {side_word(found['players'])} of seat 0, who leads first")  # fmt: skip
    return (f"first-lead advantage (score of {who}; above 1/2 an advantage, below a disadvantage): "
            f"{lead['score']:.4f} ({lead['ci_low']:.4f} to {lead['ci_high']:.4f})")  # fmt: skip


# ------------------------------------------------------------------ plots


def plot_names(run: analysis.Results, found: dict | None = None) -> list[str]:
    """The plots a report of ``run`` draws, in its order (``plot`` draws each): its
    kind's (``lead_plots``, then ``report_plots``), then the first lead's where it is
    measured and, at Briscola Chiamata, the caller's by hand strength."""
    found = found or _findings(None, run)
    if not found["rows"]:
        return []
    names = [*run.run_kind.lead_plots, *run.run_kind.report_plots]
    if found["first_lead"] is not None:
        names.append("first_lead")
    if run.players == 5:
        names.append("caller_strength")
    return names


def plot(run: analysis.Results, name: str, found: dict | None = None):
    """One plot of ``run``'s report (``plot_names``), drawn as the report draws it: a
    matplotlib Figure (a notebook shows it)."""
    import matplotlib.pyplot as plt

    found = found or _findings(None, run)
    if name not in PLOTS:
        raise ValueError(f"no plot {name!r}; a report of this run draws {', '.join(plot_names(run, found)) or 'none'}")
    figure, axes = plt.subplots(figsize=_size(name, run), layout="constrained")
    PLOTS[name](run, found, axes, figure)
    figure.suptitle(_facts(found), fontsize=8)
    return figure


def _size(name: str, run: analysis.Results) -> tuple[float, float]:
    """A plot's size in inches: a heatmap grows with the strategies, a ratings plot's height too."""
    count = len(run.strategies)
    if name == "heatmap":
        return 2.7 + 0.9 * count, 1.7 + 0.9 * count
    return (7, max(3.0, 1.6 + 0.45 * count)) if name == "ratings" else (7, 4.5)


def _draw_all(run: analysis.Results, found: dict, folder: Path) -> list[str]:
    import matplotlib.pyplot as plt

    drawn = []
    for name in plot_names(run, found):
        figure = plot(run, name, found)
        figure.savefig(folder / f"{name}.png", dpi=110)
        plt.close(figure)
        drawn.append(f"{name}.png")
    return drawn


def _legend_outside(axes, **options) -> None:
    """The legend beside the axes, never over what they show."""
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, fontsize=8, **options)


def _facts(found: dict) -> str:
    """What every figure is about: strategies, table, seed, rules."""
    who = kind_of(found["kind"]).strategies_shown(found["strategies"])
    return f"{who}\n{found['players']} players, {run_facts(found)}"


def _margin(run, found, axes, figure) -> None:
    centres, counts, width = margin_bars(analysis.margins(run).to_numpy())
    axes.bar(centres, counts, width=width, color="#3b6ea5")
    axes.axvline(0, color="black", linewidth=0.8)
    who = run.run_kind.margin_of(found["strategies"], run.players)
    unit = "game points" if run.players == 5 else "points"
    axes.set(title=f"{unit.capitalize()} margin per game: {who}", xlabel=unit, ylabel="games")


def margin_bars(margins: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The margin histogram's bars: (centres, counts, width). Few distinct margins (game
    points, multiples of 1.25 at 5 players) get a bar each, at its value; many (card
    points) are binned by 1 or 2 points."""
    values, counts = np.unique(margins, return_counts=True)
    if len(values) <= 80:
        return values, counts, 0.8 * (np.diff(values).min() if len(values) > 1 else 1.0)
    step = 2 if values[-1] - values[0] > 60 else 1
    edges = np.arange(np.floor(values[0]) - 0.5, np.ceil(values[-1]) + step + 0.5, step)
    binned, _ = np.histogram(margins, bins=edges)
    return (edges[:-1] + edges[1:]) / 2, binned, step


def _scores(run, found, axes, figure) -> None:
    """Dots with 95% intervals on the whole 0..1 scale, the even score marked."""
    scores = pd.DataFrame(found["scores"])
    side = side_word(found["players"])
    labels = [f"{row.strategy}\n{side} {row.side}" for row in scores.itertuples()]
    positions = np.arange(len(scores))
    errors = [scores["score"] - scores["ci_low"], scores["ci_high"] - scores["score"]]
    axes.errorbar(positions, scores["score"], yerr=errors, fmt="o", color="#3b6ea5", capsize=4)
    axes.axhline(EVEN, color="grey", linewidth=1, linestyle="--", label="1/2: even")
    axes.set_xticks(positions, labels, fontsize=7, rotation=90 if len(labels) > 8 else 0)
    axes.set_xlim(-0.7, len(scores) - 0.3)
    ylabel = "pairwise score on game points" if found["players"] == 5 else score_label(found["players"]).split(" (")[0]
    axes.set(title=f"Score of each strategy by {side} (95% intervals)", ylabel=ylabel, ylim=(0, 1))
    _legend_outside(axes)


def _first_lead(run, found, axes, figure) -> None:
    lead = found["first_lead"]
    axes.errorbar([0], [lead["score"]], yerr=[[lead["score"] - lead["ci_low"]], [lead["ci_high"] - lead["score"]]],
                  fmt="o", color="#a5673b", capsize=6)  # fmt: skip
    axes.axhline(EVEN, color="grey", linewidth=1, linestyle="--", label="1/2: even")
    spread = max(0.02, abs(lead["ci_high"] - EVEN), abs(lead["ci_low"] - EVEN)) * 1.3
    side = side_word(found["players"])
    axes.set_xticks([0], [f"{side} of seat 0 (leads the first trick)"])
    axes.set_xlim(-1, 1)
    axes.set(title=f"Score of the first lead: {lead['score']:.4f} ({lead['ci_low']:.4f} to {lead['ci_high']:.4f})",
             ylabel=f"score of the {side} leading first (zoomed)", ylim=(EVEN - spread, EVEN + spread))  # fmt: skip
    _legend_outside(axes)


def _caller_strength(run, found, axes, figure) -> None:
    """Briscola Chiamata: the caller's mean game points against its hand's strength, a line
    for each strategy that called."""
    bands = analysis.caller_by_strength(run)
    bands = bands[bands["games"] >= 20]  # fewer games make intervals wider than the plot
    for strategy, mine in bands.groupby(level="strategy"):
        strength = mine.index.get_level_values("strength") + 5
        errors = [mine["game_points"] - mine["ci_low"], mine["ci_high"] - mine["game_points"]]
        axes.errorbar(strength, mine["game_points"], yerr=errors, fmt="o-", capsize=3, label=strategy)
    axes.axhline(0, color="grey", linewidth=1, linestyle="--")
    _legend_outside(axes, title="caller's strategy", title_fontsize=8)
    axes.set(title="Caller's mean game points by hand strength (95% intervals)",
             xlabel="hand strength at the call: card points + 6 and the strength of each trump",
             ylabel="caller's game points per deal")  # fmt: skip


def _heatmap(run, found, axes, figure) -> None:
    names = run.strategies
    scores = run.run_kind.score_matrix(run.config)
    matrix = np.array([[np.nan if s is None else s for s in row] for row in scores], dtype=float)
    image = axes.imshow(matrix, cmap="RdBu", vmin=0, vmax=1)
    axes.set_xticks(range(len(names)), names, rotation=45, ha="right")
    axes.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(matrix[i, j]):
                axes.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
    axes.set(title="Score of the row strategy against the column strategy")
    figure.colorbar(image, ax=axes, shrink=0.8)


def _ratings(run, found, axes, figure) -> None:
    """Each strategy's rating with its 95% interval, strongest at the top; the anchor,
    rated 0 by definition, marked apart."""
    rated = pd.DataFrame(found["ratings"]).dropna(subset=["rating"])[::-1]  # strongest at the top
    rated["ci_low"] = rated["ci_low"].fillna(rated["rating"])
    rated["ci_high"] = rated["ci_high"].fillna(rated["rating"])
    positions = np.arange(len(rated))
    errors = [rated["rating"] - rated["ci_low"], rated["ci_high"] - rated["rating"]]
    rest = ~rated["anchor"].to_numpy()
    axes.errorbar(rated["rating"][rest], positions[rest], xerr=[e[rest] for e in errors], fmt="o", color="#3b6ea5",
                  capsize=4, label="rating, 95% interval")  # fmt: skip
    axes.plot(rated["rating"][~rest], positions[~rest], "D", color="#a5673b", label="anchor: rated 0 by definition")
    axes.axvline(0, color="grey", linewidth=0.8)
    axes.set_yticks(positions, rated["strategy"])
    axes.set(title="Ratings (Bradley-Terry, Elo scale)", xlabel="rating (Elo)")
    _legend_outside(axes)


PLOTS = {"heatmap": _heatmap, "ratings": _ratings, "margin": _margin, "scores": _scores, "first_lead": _first_lead,
         "caller_strength": _caller_strength}  # fmt: skip


# ------------------------------------------------------------------ the page


def _page(path: Path, found: dict, figures: list[str]) -> str:
    """The page: its headline, the kind's leading plots, the tables, the other plots."""
    leading = [f"{name}.png" for name in kind_of(found["kind"]).lead_plots]
    parts = [f"<h1>Briscola report: {html.escape(str(path))}</h1>", f"<p>{html.escape(headline(found))}</p>"]
    parts += [f'<p><img src="{name}" alt="{name}"></p>' for name in figures if name in leading]
    for title, table, lines in _summary_tables(found):
        table = table.apply(lambda column: column.map(_cell))
        parts += [f"<h2>{html.escape(title)}</h2>", table.to_html(index=False)]
        parts += [f"<p>{html.escape(line)}</p>" for line in lines]
    parts.append(f"<p>{html.escape(_first_lead_text(found))}</p>")
    parts += [f"<p>{html.escape(line)}</p>" for line in _luck_lines(found)]
    parts += [f'<p><img src="{name}" alt="{name}"></p>' for name in figures if name not in leading]
    head = "<!doctype html><html><head><meta charset='utf-8'><title>Briscola report</title></head><body>"
    return head + "\n".join(parts) + "</body></html>\n"


def _cell(value) -> str:
    """A table cell for people: an interval as ``lo to hi``, 4 decimals, rules as text."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, float) for v in value):
        return f"{value[0]:.4f} to {value[1]:.4f}"
    if isinstance(value, dict):
        return rules_text(value)
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, float):
        return "" if np.isnan(value) else f"{value:.4f}"
    return "" if value is None else str(value)


def _summary_tables(found: dict) -> list[tuple[str, pd.DataFrame, list[str]]]:
    """The run's own summary and the scores by side, as tables for the page, each with
    the lines of text that go under it."""
    page = kind_of(found["kind"]).page_tables(found["summary"] or {})  # a tournament's: its matrix, its ratings
    tables = [(title, pd.DataFrame(rows), lines) for title, rows, lines in page]
    side = side_word(found["players"])
    scores = f"{score_label(found['players'])[0].upper()}{score_label(found['players'])[1:]}, by strategy and {side}"
    tables.append((scores, pd.DataFrame(found["scores"]).rename(columns={"side": side}), []))
    return tables
