"""How a run's summary is shown: a readable table drawn from its JSON alone.

Each command's summary is one JSON-ready dict (``sim.base.summaries``), and its tables are
made from that dict alone by its run kind (``sim.pipeline.kinds``: ``tables``) and drawn here
(``show_summary``). A result file keeps the dict in its
metadata, so ``briscola report`` shows a file's summary exactly as the command printed
it.
"""

from __future__ import annotations

from sim.base.summaries import POINTS_DIGITS, SCORE_DIGITS, rounded
from sim.pipeline.kinds import kind_of
from sim.pipeline.kinds.base import Table
from sim.pipeline.kinds.words import interval, rate, rules_text
from sim.pipeline.study import resume_command
from strategies.api import DATA_TABLES

MIN_WIDTH = 100
STRAYS_SHOWN = 5  # files not a study's named by its status (--json lists every one)
PLURALS = {"deal": "deals", "match": "matches"}


def show_summary(kind: str, summary: dict, interrupted: bool = False, seconds: float | None = None) -> None:
    """A command's tables, from its JSON (``kind``: the run kind's name, ``sim.pipeline.kinds``)."""
    for table in kind_of(kind).tables(summary, interrupted, seconds):
        _print_table(_drawn(table) if table.columns else None, table.facts)


def _drawn(table: Table):
    """A kind's table (data) as rich draws it: no cell wrapped, the title on the left."""
    from rich.table import Table as RichTable

    drawn = RichTable(title=table.title, title_justify="left")
    for name, justify in table.columns:
        drawn.add_column(name, justify=justify, no_wrap=True)
    for row in table.rows:
        drawn.add_row(*row)
    return drawn


# ------------------------------------------------------------------ briscola diff


def paired_dict(first, second) -> dict:
    """The JSON of ``briscola diff``: two runs of the same seed compared deal by deal
    (``sim.present.analysis.paired``), and what differs between them."""
    from sim.present.analysis import load_run, paired  # here: pandas, which the other tables never need

    runs = [load_run(path) for path in (first, second)]
    table = paired(*runs)
    differs = {what: [getattr(run, what) for run in runs] for what in ("rules", "strategies")}
    row = {"first": str(first), "second": str(second), "kind": runs[0].kind, "players": runs[0].players,
           "seed": runs[0].seed, "unit": "match" if runs[0].match != "deal" else "deal",
           "units": int(table["units"].iloc[0]), "differs": {k: v for k, v in differs.items() if v[0] != v[1]},
           "who": runs[0].run_kind.who}  # fmt: skip
    for figure, key, digits in (("score", "score", SCORE_DIGITS), ("margin", "mean_margin", POINTS_DIGITS)):
        line = table.loc[figure]
        row[key] = {"first": rounded(line["first"], digits), "second": rounded(line["second"], digits),
                    "difference": rounded(line["difference"], digits),
                    "difference_ci95": rounded([line["ci_low"], line["ci_high"]], digits),
                    "correlation": rounded(line["correlation"], 4)}  # fmt: skip
    return row


def show_paired(row: dict) -> None:
    """The table of ``briscola diff``, from its JSON."""
    from rich.table import Table

    table = Table(title=f"Second run less first, {row['unit']} by {row['unit']}", title_justify="left")
    for column in ("figure", "first", "second", "difference", "95% interval"):
        table.add_column(column, justify="left" if column == "figure" else "right", no_wrap=True)
    for key, label, form in (
        ("score", f"score of {row['who']}", "{:.4f}"),
        ("mean_margin", "mean point margin", "{:+.2f}"),
    ):
        figures = row[key]
        table.add_row(label, form.format(figures["first"]), form.format(figures["second"]),
                      form.replace(":", ":+").replace("++", "+").format(figures["difference"]),
                      interval(figures["difference_ci95"], form.replace(":", ":+").replace("++", "+")))  # fmt: skip
    differs = "; ".join(f"{what}: {_brief(a)} | {_brief(b)}" for what, (a, b) in row["differs"].items())
    facts = (f"{row['kind']} runs, {row['players']} players, seed {row['seed']}, {row['units']:,} {PLURALS[row['unit']]} paired "
             f"(correlation {row['score']['correlation']}); they differ in {differs or 'nothing recorded'}")  # fmt: skip
    _print_table(table, facts)


def show_luck(row: dict) -> None:
    """The tables of ``briscola luck``, from its JSON."""
    from rich.table import Table

    a, b, better = row["a"], row["b"], row["better"]
    table = Table(title=f"Luck against skill: {a} (A) against {b} (B)", title_justify="left")
    for column in ("figure", "value", "95% interval"):
        table.add_column(column, justify="left" if column == "figure" else "right", no_wrap=True)
    for key, label in (
        ("a_score", "A's score"),
        ("better_loses", f"games the better ({better}) loses"),
        ("cards_decide", "deals the cards decide (the same seats win every seating)"),
        ("deal_share", "variance of a game's outcome the deal explains"),
        ("strategy_share", "variance the strategies explain"),
        ("a_leads", "A's score, its side leading the first trick"),
        ("a_follows", "A's score, B's side leading"),
        ("lead_gain", "what leading first is worth to A"),
        ("par_agrees", "games won by the seat the par favours"),
        ("a_over_par", "A's points over its seat's par"),
        ("par_share", "variance of seat 0's points the par explains"),
    ):
        figure = row[key]
        form = "{:+.2f}" if key == "a_over_par" else "{:.4f}"  # points, the rest shares and scores
        if figure is not None:  # None: left out at this table (row["left_out"] says why)
            table.add_row(label, form.format(figure["value"]), interval((figure["ci_low"], figure["ci_high"]), form))
    left_out = "".join(f"; {', '.join(keys)} left out: {why}" for why, keys in _by_reason(row["left_out"]).items())
    par = f"; the par (every hand face up) over the first {row['par_deals']:,}" if row.get("par_deals") else ""
    _print_table(table, f"{row['players']} players, {row['deals']:,} duplicate deals{par}{left_out}")
    features = Table(title="A's score by what its side was dealt", title_justify="left")
    for column in ("dealt", "held", "games", "A's score", "95% interval"):
        features.add_column(column, justify="left" if column == "dealt" else "right", no_wrap=True)
    for item in row["by_feature"]:
        features.add_row(item["feature"], "yes" if item["held"] else "no", f"{item['games']:,}",
                         f"{item['a_score']:.4f}", interval((item["ci_low"], item["ci_high"]), "{:.4f}"))  # fmt: skip
    _print_table(features, "")
    model = Table(title="Logistic regression of A winning a game (draws left out) on its side's deal against the others'",
                  title_justify="left")  # fmt: skip
    for column in ("term", "coefficient", "95% interval", "odds ratio"):
        model.add_column(column, justify="left" if column == "term" else "right", no_wrap=True)
    for item in row["regression"]:
        model.add_row(item["term"], f"{item['coef']:+.4f}", interval((item["ci_low"], item["ci_high"]), "{:+.4f}"),
                      f"{item['odds_ratio']:.3f}")  # fmt: skip
    _print_table(model, "standard errors clustered by deal; docs/luck.md says what each term is")


def _by_reason(left_out: dict[str, str]) -> dict[str, list[str]]:
    """The figures left out, grouped by why."""
    grouped: dict[str, list[str]] = {}
    for key, why in left_out.items():
        grouped.setdefault(why, []).append(key)
    return grouped


def show_people(ratings, path) -> None:
    """The table of ``briscola report`` on the deals people played (``briscola play``):
    each person against each line-up, with intervals over deals (none from one deal)."""
    import math

    from rich.table import Table

    def span(low, high, form: str) -> str:
        return "" if low is None or high is None or math.isnan(low) or math.isnan(high) else interval((low, high), form)

    table = Table(title=f"People against strategies: {path}", title_justify="left")
    for column in ("person", "players", "against", "games", "deals", "score", "95% interval", "Elo", "95% interval"):
        table.add_column(column, justify="left" if column in ("person", "against") else "right", no_wrap=True)
    for r in ratings.itertuples():
        elo = "" if r.elo is None or math.isnan(r.elo) else f"{r.elo:+.0f}"
        table.add_row(r.person, str(r.players), r.lineup, f"{r.games:,}", f"{r.deals:,}", f"{r.score:.3f}",
                      span(r.ci_low, r.ci_high, "{:.3f}"), elo, span(r.elo_low, r.elo_high, "{:+.0f}"))  # fmt: skip
    _print_table(table, "score: won 1, drawn 1/2, lost 0; a deal played from several seats counts once")


def show_move_costs(costs, shortfall, n_moves: int) -> None:
    """The tables of ``briscola analyse``: the moves' costs per strategy, phase and lead,
    and each strategy's shortfall from par over the tricks searched exactly."""
    from rich.table import Table

    table = Table(title="What the moves cost, by the search (expected score given up)", title_justify="left")
    for column in ("strategy", "phase", "leads", "moves", "mean cost", "total", "points", "inaccuracy", "mistake",
                   "blunder"):  # fmt: skip
        table.add_column(column, justify="left" if column in ("strategy", "phase") else "right", no_wrap=True)
    for row in costs.itertuples():
        table.add_row(str(row.strategy), row.phase, "leads" if row.leads else "follows", f"{row.moves:,}",
                      f"{row.mean_score_cost:.4f}", f"{row.total_score_cost:.1f}", f"{row.mean_points_cost:.2f}",
                      f"{row.inaccuracy:,}", f"{row.mistake:,}", f"{row.blunder:,}")  # fmt: skip
    _print_table(table, f"{n_moves:,} moves; verdicts and the search: docs/luck.md#every-move-explained")
    if shortfall.empty:  # Briscola Chiamata: no par
        return
    par = Table(title="Points per game given up against the par, every hand face up (the last tricks)",
                title_justify="left")  # fmt: skip
    for column in ("strategy", "points", "95% interval", "deals"):
        par.add_column(column, justify="left" if column == "strategy" else "right", no_wrap=True)
    for row in shortfall.itertuples():
        par.add_row(str(row.strategy), f"{row.par_shortfall:.2f}", interval((row.ci_low, row.ci_high), "{:.2f}"),
                    f"{row.deals:,}")  # fmt: skip
    _print_table(par, "exact search over the last tricks only: docs/luck.md#the-deals-par")


def _brief(value) -> str:
    if isinstance(value, dict):
        return rules_text(value)
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


# ------------------------------------------------------------------ briscola strategies


def print_strategies(described: list[dict]) -> None:
    """The ``briscola strategies`` table, on stdout."""
    from rich.console import Console
    from rich.table import Table

    table = Table(show_lines=True)
    for column in ("name", "version", "parameters", "description", "against expert"):
        table.add_column(column, no_wrap=column in ("name", "version"), overflow="fold")  # long specs whole
    for item in described:
        if item.get("alias"):  # best: a setting per table, no parameters of its own
            settings = "".join(f"\n{table}: {setting}" for table, setting in item["settings"].items())
            table.add_row(item["name"], str(item["version"]), "-", item["description"] + settings, _strength(item))
            continue
        params = "\n".join(f"{p['name']} ({p['type']}, default {p['default']}{_range(p)})" for p in item["params"])
        source = "" if item["source"] == "built-in" else f"\n[dim]from {item['source']}[/dim]"
        if tuple(item["tables"]) != DATA_TABLES:  # declared: it plays some tables only
            source += f"\n[dim]plays at {', '.join(map(str, item['tables']))} players only[/dim]"
        trained = "".join(f"\n[dim]{table}: {_provenance_line(facts)}[/dim]"
                          for table, facts in item.get("provenance", {}).items())  # fmt: skip
        table.add_row(item["name"], str(item["version"]), params or "-", item["description"] + source + trained,
                      _strength(item))  # fmt: skip
    Console(soft_wrap=False).print(table)


def _strength(item: dict) -> str:
    """Its measured score against expert, two lines per measurement: the score and its
    95% interval; the table, the seed and the deals."""
    lines = []
    for m in item.get("strength", []):
        low, high = m["score_ci95"]
        lines.append(f"{m['score']:.3f} ({low:.3f}-{high:.3f})\n[dim]{m['players']}p, seed {m['seed']}, "
                     f"{m['deals']:,} deals{_since(item, m)}[/dim]")  # fmt: skip
    return "\n".join(lines) or "-"


def _since(item: dict, measured: dict) -> str:
    """What changed since the measurement: the strategy's version, or best's setting."""
    if item.get("alias"):
        changed = item["settings"].get(f"{measured['players']}p") != measured["strategy"]
        return ", not today's setting" if changed else ""
    return f", at version {measured['version']}" if measured["version"] != item["version"] else ""


def _provenance_line(facts: dict) -> str:
    """A table's networks' provenance in one line: what made each one's data, how much,
    and from what (the whole record: ``briscola strategies --json``)."""
    data, training = facts.get("data", {}), facts.get("training", {})
    shape = "-".join(map(str, training.get("policy", [])))
    parts = [f"policy {shape} {_imitation(data)}, made by {_maker(data)}"]
    tuned = facts.get("tuning", [])
    if tuned:
        pool = ", ".join(tuned[-1].get("pool", []))
        parts.append(f"then tuned by {sum(t.get('deals', 0) for t in tuned):,} deals against {pool}")
    if "value_training" in facts:
        parts.append(f"value from {facts['value_training'].get('deals', 0):,} deals of self-play")
    if "auction_training" in facts:
        auction = facts["auction_training"]["data"]
        seeds = auction.get("seeds", [])
        parts.append(f"auction from {auction.get('contracts', 0):,} contracts of {', '.join(auction.get('strategies', []))} "
                     f"(seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}, data {auction.get('sha256')}), "
                     f"made by {_maker(auction)}")  # fmt: skip
    for name, teacher in data.get("networks", {}).items():  # a later round: the data's search read networks
        earlier = teacher.get("provenance", {}).get("data")
        parts.append(f"the data's {name} read networks {teacher['fingerprint']}"
                     + (f", whose policy {_imitation(earlier)}" if earlier else ""))  # fmt: skip
    return "; ".join(parts) + f"; commit {facts.get('commit')}"


def _maker(data: dict) -> str:
    """What made the data: the study's plan and experiment, or the command run."""
    if "plan" in data:
        return f"plan {data['plan']}" + (f", experiment {data['experiment']}" if "experiment" in data else "")
    return f"`{data['command']}`" if "command" in data else "an unrecorded run"


def _imitation(data: dict) -> str:
    return (f"imitates {', '.join(data.get('strategies', []))} ({data.get('decisions', 0):,} decisions, "
            f"seed {data.get('seed')}, data {data.get('deals_sha256') or data.get('sha256')})")  # fmt: skip


def _range(param: dict) -> str:
    if param["type"] == "bool":
        return ""
    low = "" if param["low"] is None else f"{param['low']:g}"
    high = "" if param["high"] is None else f"{param['high']:g}"
    return f", {low}..{high}"


def _print_table(table, facts: str) -> None:
    """A table, then the facts of its run on one line (never wrapped: scripts grep it).
    The console is as wide as the table needs, whatever the terminal: rich would
    otherwise shrink columns and cut figures short."""
    from rich.console import Console
    from rich.measure import Measurement

    console = Console()
    needed = Measurement.get(console, console.options.update(max_width=10_000), table).maximum if table else 0
    console = Console(width=max(MIN_WIDTH, console.width, needed))
    if table is not None:
        console.print(table)
    if facts:
        console.print(facts, soft_wrap=True, highlight=False)


# ------------------------------------------------------------------ briscola batch and status


def show_study(outcome: dict, resume_in_title: bool = True) -> None:
    """A study: per experiment how far it is (a table that fits the terminal), then what
    each has found so far, a line each; the title says how to resume a partial study
    not running (unless the caller says it)."""
    from rich.console import Console
    from rich.table import Table

    state, resume = outcome["status"], outcome.get("resume") or resume_command(outcome["out"])
    changed = outcome.get("changed", [])
    if state != "complete" and outcome.get("running"):
        state += ", running now"
    elif state != "complete" and changed:
        state += ", not running: what it plays changed since it began (below); restore it to resume"
    elif state != "complete" and resume_in_title:
        state += f", not running: resume it with {resume}"
    elif changed:
        state += " with what it began with; what it plays changed since (below)"
    if outcome.get("strays"):
        state += f"; its folder holds {len(outcome['strays'])} file(s) not the study's (below)"
    table = Table(title=f"Study {outcome['out']}: {state}", title_justify="left")
    numbers = ("chunks", "deals", "work", "left")
    table.add_column("experiment", overflow="fold", min_width=20)
    for column in ("status", *numbers):
        table.add_column(column, justify="right" if column in numbers else "left", no_wrap=True)
    experiments = outcome["experiments"]
    for experiment in experiments:
        table.add_row(
            experiment["name"], experiment["status"], f"{experiment['chunks_done']}/{experiment['chunks']}",
            f"{experiment['units_done']:,}/{experiment['units']:,}", duration(experiment["seconds"]), _work_left(experiment),
        )  # fmt: skip
    console = Console()
    console.print(table)
    done, total = sum(e["chunks_done"] for e in experiments), sum(e["chunks"] for e in experiments)
    console.print(f"in all: {done}/{total} chunks, work done {duration(sum(e['seconds'] for e in experiments))}, "
                  f"{_all_work_left(experiments)} (work: the chunks' time on one worker, at the speed of those done "
                  "or as measured when the study was sized; with N workers, about 1/N of it; deals count matches "
                  "with a match format, and a tournament's those of every pair)", highlight=False)  # fmt: skip
    for experiment in experiments:
        headline = _headline(experiment["kind"], experiment["summary"])
        console.print(f"{experiment['name']} ({experiment['kind']}): {headline}", highlight=False)
    for experiment in experiments:
        for damage in experiment.get("damaged", []):
            console.print(f"not done: {experiment['name']} {damage['chunk']}: {damage['problem']} "
                          f"({resume} plays it again)", highlight=False, soft_wrap=True)  # fmt: skip
    for change in changed:
        console.print(f"changed since it began: {change}", highlight=False, soft_wrap=True)
    strays = outcome.get("strays", [])
    for stray in strays[:STRAYS_SHOWN]:  # a line each, whole (scripts grep them)
        read = "pandas.read_parquet(FOLDER) reads it, sim.load does not; " if stray["read_by_pandas"] else ""
        console.print(f"not the study's: {stray['path']} {stray['problem']} ({read}--resume {stray['resume']})",
                      highlight=False, soft_wrap=True)  # fmt: skip
    if len(strays) > STRAYS_SHOWN:
        console.print(f"and {len(strays) - STRAYS_SHOWN} more files not the study's (status --json lists them)")


def _work_left(experiment: dict) -> str:
    """The time the chunks left would take at a unit's speed (that of the chunks done, or
    as measured when the study was sized); ``?`` when neither is known."""
    if experiment["status"] == "complete":
        return "-"
    left = _seconds_left(experiment)
    return "?" if left is None else duration(left)


def _seconds_left(experiment: dict) -> float | None:
    per_unit = experiment.get("seconds_per_unit")
    return None if per_unit is None else per_unit * (experiment["units"] - experiment["units_done"])


def _all_work_left(experiments: list[dict]) -> str:
    """The work left in all, in words: what is known, and how many experiments are not."""
    left = [_seconds_left(e) for e in experiments if e["status"] != "complete"]
    known, unknown = sum(s for s in left if s is not None), sum(s is None for s in left)
    if not unknown:
        return f"work left {duration(known)}"
    guessed = f"at least {duration(known)}, " if known else ""
    return f"work left {guessed}not known for {unknown} experiment(s) (no chunk done, not sized)"


def duration(seconds: float) -> str:
    """A length of time for people: ``45s``, ``3m20s``, ``1h05m``."""
    hours, rest = divmod(int(round(seconds)), 3600)
    return f"{hours}h{rest // 60:02d}m" if hours else f"{rest // 60}m{rest % 60:02d}s" if rest >= 60 else f"{rest}s"


def _headline(kind: str, summary: dict | None) -> str:
    """An experiment's main figure, in a few words."""
    return "-" if summary is None else kind_of(kind).headline(summary)


# ------------------------------------------------------------------ briscola check


def check_dicts(reports) -> list[dict]:
    return [report.to_dict() for report in reports]


def print_check(strategy: str, reports) -> None:
    """One row per table and rule option; then the verdict."""
    from rich.table import Table

    table = Table(title=f"briscola check {strategy}")
    for column in ("players", "rules", "deals", "checks", "slowest", "deals/s", "score vs random"):
        table.add_column(column, justify="left" if column == "rules" else "right")
    for report in reports:
        if report.not_played:
            table.add_row(str(report.players), "-", "-", f"not played at {report.players} players", "-", "-", "-")
            continue
        lo, hi = report.score_ci95
        table.add_row(
            str(report.players), report.rules_text, f"{report.deals:,}", "FAILED" if report.failure else "pass",
            f"{report.slowest_decision * 1000:.1f} ms", rate(report.deals_per_second),
            f"{report.score:.3f} ({lo:.3f}-{hi:.3f})" if report.deals else "-",
        )  # fmt: skip
    writes = sorted(set().union(*(r.writes_to_view for r in reports)))
    asked = sum(r.decisions_asked_again for r in reports)
    passed = not any(r.failure for r in reports)
    played = [r for r in reports if not r.not_played]
    if passed:
        threads = (
            "the same on 1 and 2 threads"
            if all(r.threads_checked for r in played)
            else "not checked on 2 threads (this machine runs one)"
        )
        facts = (
            f"{strategy}: passes every check: legal and audited by the reference engine, {threads}, "
            f"{asked:,} decisions asked again of a fresh view"
        )
        if len(played) < len(reports):
            unplayed = ", ".join(str(r.players) for r in reports if r.not_played)
            facts += f"; not played at {unplayed} players (its declared tables)"
    else:
        facts = f"{strategy}: FAILED (see stderr)"
    if writes:
        facts += (
            f"; note: it writes into its view or parameters ({', '.join(writes)}): harmless, they are its own copies"
        )
    _print_table(table, facts)
