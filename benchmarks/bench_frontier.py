"""Strength against speed of the search strategies: for each budget, the score against
``expert`` (``briscola compare``, duplicate deals) and the deals/s of the whole
``briscola simulate`` command on one thread (``--summary-only``: nothing written); with
the speed of a baseline revision's strategy measured alternately in the same sitting,
for a ratio. Prints a Markdown table; writes the figures to
``docs/images/frontier_{P}p.json`` and the frontier plot beside them.

    .venv/bin/python benchmarks/bench_frontier.py --players 2 --deals 1000 \
        --points pimc:samples=16 pimc:samples=32 ismcts:iterations=250 \
        --baseline 7a636b6 pimc --baseline-score 0.508
    .venv/bin/python benchmarks/bench_frontier.py --players 2 --replot   # the plot again, from the figures kept
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

from simulate_timing import REPO, briscola, timed_simulate

SEED = 20261201  # scores are measured on a seed no tuning used (seed 77 chose the search's defaults)


def score(spec: str, players: int, deals: int, seed: int) -> dict:
    """``spec`` against ``expert``: score and its 95% interval."""
    out = briscola(REPO, "compare", spec, "expert", "--players", str(players), "--deals", str(deals), "--seed",
                   str(seed), "--summary-only", "--json")  # fmt: skip
    return json.loads(out)


def fingerprints() -> dict:
    """Strategy name -> the fingerprint of the code and data it plays with here: a point
    keeps its strategy's, so a point measured before its networks changed shows it."""
    return {found["name"]: found["fingerprint"] for found in json.loads(briscola(REPO, "strategies", "--json"))}


def speed(tree: Path, spec: str, players: int, seconds: float) -> float:
    """Deals/s of the whole simulate command on one thread, ``spec`` against ``expert``:
    a short run gauges the rate, then a run of about ``seconds`` is timed."""
    deals = 4
    while True:
        rate = timed_simulate(spec, "expert", players, deals, SEED, tree).whole
        if deals / rate >= seconds / 4:
            return timed_simulate(spec, "expert", players, max(deals, int(rate * seconds)), SEED, tree).whole
        deals *= 4


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Strength against speed of the search strategies; writes docs/images/frontier_{P}p.json and .png.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--players", type=int, default=2, help="the table")
    parser.add_argument("--deals", type=int, default=1000, help="duplicate deals per score")
    parser.add_argument("--seed", type=int, default=SEED, help="the seed of the scores (not one that tuned them)")
    parser.add_argument("--speed-seconds", type=float, default=15.0, help="length of each timed speed run")
    parser.add_argument("--points", nargs="+", default=[], help="strategy specs, one per point")
    parser.add_argument("--baseline", nargs=2, metavar=("REVISION", "SPEC"), help="a revision and its strategy")
    parser.add_argument("--baseline-score", type=float, help="the baseline's score against expert, for the plot")
    parser.add_argument("--replot", action="store_true", help="redraw the plot from the last run's figures")
    parser.add_argument(
        "--add",
        action="store_true",
        help="add the points to the figures kept (a point of the "
        "same spec is measured again), keeping their seed, deals and baseline",
    )
    args = parser.parse_args()
    figures = REPO / "docs" / "images" / f"frontier_{args.players}p.json"
    if args.replot:
        if not figures.exists():
            parser.error(f"no figures to plot again: {figures.relative_to(REPO)} does not exist")
        plot(json.loads(figures.read_text()), args.players)
        return
    if not args.points:
        parser.error("give the points to measure (--points SPEC ...), or --replot")
    kept = json.loads(figures.read_text()) if args.add and figures.exists() else None
    if kept is not None:
        args.seed, args.baseline, args.baseline_score = kept["seed"], kept.get("baseline"), kept.get("baseline_score")
    with tempfile.TemporaryDirectory() as folder:
        base_tree = None
        if args.baseline:
            base_tree = Path(folder) / "baseline"
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(base_tree),
                            args.baseline[0]], check=True, capture_output=True)  # fmt: skip
            timed_simulate(args.baseline[1], "expert", args.players, 2, SEED, base_tree)  # compiled, cached
        try:
            rows, prints = [], fingerprints()
            for spec in args.points:
                result = score(spec, args.players, args.deals, args.seed)
                mine = speed(REPO, spec, args.players, args.speed_seconds)
                base = speed(base_tree, args.baseline[1], args.players, args.speed_seconds) if base_tree else None
                rows.append({"spec": spec, "fingerprint": prints[spec.split(":")[0]], "score": result["score"],
                             "score_ci95": result["score_ci95"], "deals": args.deals, "deals_per_s": mine,
                             "baseline_deals_per_s": base})  # fmt: skip
                low, high = result["score_ci95"]
                ratio = f"{mine / base:.2f}x" if base else "-"
                print(f"| {spec} | {result['score']:.3f} ({low:.3f}-{high:.3f}) | {mine:.2f} | {ratio} |", flush=True)
        finally:
            if base_tree:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base_tree)],
                               capture_output=True)  # fmt: skip
    run = {"players": args.players, "deals": args.deals, "seed": args.seed, "points": rows,
           "baseline": args.baseline, "baseline_score": args.baseline_score}  # fmt: skip
    if kept is not None:
        new = {row["spec"] for row in rows}
        run = {**kept, "points": [row for row in kept["points"] if row["spec"] not in new] + rows}
    figures.write_text(json.dumps(run, indent=1))
    plot(run, args.players)


LEARNED_PARTS = {"value_tricks": "value network", "policy_prior": "policy prior", "playout_policy": "policy playouts"}
LINE_PER_VALUE = ("policy_prior",)  # a line per weight: along a line only the budget changes


def family(spec: str) -> str:
    """A point's line on the plot: the strategy, its forms with learned networks apart.

    >>> family("pimc:samples=4:policy_prior=0.6"), family("pimc:value_tricks=2:samples=8")
    ('pimc + policy prior 0.6', 'pimc + value network')
    """
    name, *items = spec.split(":")
    used = [LEARNED_PARTS[key] + (f" {value}" if key in LINE_PER_VALUE else "")
            for key, _, value in (item.partition("=") for item in items)
            if key in LEARNED_PARTS and value not in ("0", "0.0", "false")]  # fmt: skip
    return " + ".join([name, *used])


def _label_offset(row: dict, rows: list[dict]) -> tuple[int, int]:
    """Above right of its point, or below right where the label of a point a little to
    its left and a little higher would run into it."""
    crowded = any(
        other is not row and 0 < other["score"] - row["score"] < 0.012 and 0.5 < other["deals_per_s"] / row["deals_per_s"] < 1
        for other in rows
    )  # fmt: skip
    return (4, -10) if crowded else (4, 4)


def plot(run: dict, players: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    figure, axes = plt.subplots(figsize=(7, 5))
    rows = run["points"]
    for name in sorted({family(row["spec"]) for row in rows}):
        points = sorted((row for row in rows if family(row["spec"]) == name), key=lambda r: r["deals_per_s"])
        x = [row["deals_per_s"] for row in points]
        y = [row["score"] for row in points]
        errors = [[r["score"] - r["score_ci95"][0] for r in points], [r["score_ci95"][1] - r["score"] for r in points]]
        axes.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=name)
        for row in points:
            label = row["spec"].split(":", 1)[1] if ":" in row["spec"] else "defaults"
            axes.annotate(label, (row["deals_per_s"], row["score"]), fontsize=7, xytext=_label_offset(row, rows),
                          textcoords="offset points")  # fmt: skip
    speeds = [row["baseline_deals_per_s"] for row in rows if row["baseline_deals_per_s"]]
    if run.get("baseline_score") is not None and speeds:
        revision, spec = run["baseline"]
        axes.plot([sum(speeds) / len(speeds)], [run["baseline_score"]], marker="*", markersize=12, color="black",
                  linestyle="none", label=f"{spec}, the version before (revision {revision})")  # fmt: skip
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xscale("log")
    axes.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    axes.xaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(_two_and_five))  # more would overlap
    axes.tick_params(axis="x", which="minor", labelsize=7)
    axes.set_xlabel("deals/s on one thread (whole simulate command, against expert)")
    axes.set_ylabel("score against expert (95% interval)")
    counts = sorted({row.get("deals", run["deals"]) for row in rows})
    deals = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}-{counts[-1]:,}"
    axes.set_title(f"Strength against speed, {players} players, {deals} duplicate deals, seed {run['seed']}")
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, fontsize=8)  # below: never over a point
    figure.tight_layout()
    out = REPO / "docs" / "images" / f"frontier_{players}p.png"
    figure.savefig(out, dpi=110)
    print(f"wrote {out.relative_to(REPO)}")


def _two_and_five(value: float, _position) -> str:
    return f"{value:g}" if f"{value:.0e}"[0] in "25" else ""


if __name__ == "__main__":
    main()
