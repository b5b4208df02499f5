"""``briscola report``: plots of a result file or dataset, and one HTML page holding them.

Every figure is drawn by matplotlib (the Agg backend: no display needed) from the pandas
summaries of ``sim.analysis``.
"""

from __future__ import annotations

import html
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from sim import analysis
from sim.config import ConfigError


def report_folder(path: Path) -> Path:
    """Where a report goes: beside the file or folder, named after it."""
    return path.with_name(f"{path.stem if path.is_file() else path.name}_report")


def write_report(path: Path, overwrite: bool = False) -> dict:
    """Writes the plots and ``index.html`` for ``path``; returns what the report found.
    The folder appears only when complete."""
    if not path.exists():
        raise ConfigError(f"{path} does not exist; give a result file or a tournament folder")
    try:
        run = analysis.load(path)
    except (ValueError, OSError) as error:
        raise ConfigError(f"{path} is not a briscola result file or dataset ({error})") from None
    if "side_points_0" not in run.deals:
        raise ConfigError(f"{path} is a trace file; report its result file (simulate's --out) instead")
    target = report_folder(path)
    if target.exists() and not overwrite:
        raise ConfigError(f"report folder {target} already exists; pass --overwrite to replace it")
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    staging.mkdir()
    try:
        figures = _draw_all(run, staging)
        found = _findings(run)
        (staging / "index.html").write_text(_page(path, run, figures, found))
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return {"path": str(path), "kind": run.kind, "players": run.players, "rows": len(run.deals), **found,
            "plots": [str(target / name) for name in figures], "html": str(target / "index.html")}  # fmt: skip


def _findings(run: analysis.Results) -> dict:
    seats = analysis.seat_scores(run.deals, run.players).reset_index()
    found = {"first_lead": analysis.first_lead(run.deals, run.players).to_dict(), "seat_scores": seats.to_dict("records")}
    if run.kind != "simulate":
        found["comparisons"] = analysis.compare_summary(run.deals).to_dict("records")
    if run.kind == "tournament":
        rated = analysis.ratings(run.deals, run.config["strategies"]).reset_index()
        found["ratings"] = rated.to_dict("records")
    return found


def _draw_all(run: analysis.Results, folder: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    drawn = []
    for name, draw in (("margin.png", _margin), ("seat_scores.png", _seat_scores), ("first_lead.png", _first_lead)):
        figure, axes = plt.subplots(figsize=(7, 4), layout="constrained")
        draw(run, axes)
        figure.savefig(folder / name, dpi=110)
        plt.close(figure)
        drawn.append(name)
    if run.kind == "tournament":
        size = 1.2 + 0.9 * len(run.config["strategies"])
        figure, axes = plt.subplots(figsize=(size + 1.5, size), layout="constrained")
        _heatmap(run, axes, figure)
        figure.savefig(folder / "heatmap.png", dpi=110)
        plt.close(figure)
        drawn.append("heatmap.png")
    return drawn


def _margin(run, axes) -> None:
    margins = analysis.margins(run.deals, run.players)
    low, high = int(np.floor(margins.min())), int(np.ceil(margins.max()))
    axes.hist(margins, bins=np.arange(low - 0.5, high + 1.5, 2 if high - low > 60 else 1), color="#3b6ea5")
    axes.axvline(0, color="black", linewidth=0.8)
    who = "A's side less B's" if "a_side" in run.deals else ("seat 0 less the others' mean" if run.players == 3 else "side 0 less side 1")
    axes.set(title=f"Point margin per game ({who})", xlabel="points", ylabel="games")


def _seat_scores(run, axes) -> None:
    seats = analysis.seat_scores(run.deals, run.players).reset_index()
    labels = [f"{row.strategy}\nseat {row.seat}" for row in seats.itertuples()]
    positions = np.arange(len(seats))
    errors = [seats["score"] - seats["ci_low"], seats["ci_high"] - seats["score"]]
    axes.errorbar(positions, seats["score"], yerr=errors, fmt="o", color="#3b6ea5", capsize=4)
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xticks(positions, labels, fontsize=7, rotation=90 if len(labels) > 8 else 0)
    axes.set(title="Score of each strategy from each seat (95% intervals)", ylabel="score (win 1, draw 1/2)")


def _first_lead(run, axes) -> None:
    lead = analysis.first_lead(run.deals, run.players)
    axes.bar([0], [lead["score"]], yerr=[[lead["score"] - lead["ci_low"]], [lead["ci_high"] - lead["score"]]],
             color="#a5673b", capsize=6, width=0.5)  # fmt: skip
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xticks([0], ["side of seat 0 (leads the first trick)"])
    axes.set_xlim(-1, 1)
    axes.set(title=f"First-lead advantage: {lead['score']:.4f} ({lead['ci_low']:.4f} to {lead['ci_high']:.4f})",
             ylabel="score", ylim=(min(0.4, lead["ci_low"] - 0.02), max(0.6, lead["ci_high"] + 0.02)))  # fmt: skip


def _heatmap(run, axes, figure) -> None:
    names = run.config["strategies"]
    matrix = np.array([[np.nan if s is None else s for s in row] for row in run.config["matrix"]], dtype=float)
    image = axes.imshow(matrix, cmap="RdBu", vmin=0, vmax=1)
    axes.set_xticks(range(len(names)), names, rotation=45, ha="right")
    axes.set_yticks(range(len(names)), names)
    for i in range(len(names)):
        for j in range(len(names)):
            if not np.isnan(matrix[i, j]):
                axes.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=8)
    axes.set(title="Score of the row strategy against the column strategy")
    figure.colorbar(image, ax=axes, shrink=0.8)


def _page(path: Path, run, figures: list[str], found: dict) -> str:
    tables = [("Score by strategy and seat", pd.DataFrame(found["seat_scores"]))]
    if "comparisons" in found:
        tables.append(("A against B", pd.DataFrame(found["comparisons"])))
    if "ratings" in found:
        tables.append(("Ratings (Bradley-Terry, Elo scale)", pd.DataFrame(found["ratings"])))
    parts = [f"<h1>Briscola report: {html.escape(str(path))}</h1>",
             f"<p>{html.escape(run.kind)}, {run.players} players, {len(run.deals):,} rows.</p>"]  # fmt: skip
    for title, table in tables:
        parts += [f"<h2>{html.escape(title)}</h2>", table.to_html(index=False, float_format=lambda x: f"{x:.4f}")]
    parts += [f'<p><img src="{name}" alt="{name}"></p>' for name in figures]
    return "<!doctype html><html><head><meta charset='utf-8'><title>Briscola report</title></head><body>" + "\n".join(parts) + "</body></html>\n"
