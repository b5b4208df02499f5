"""What several test modules share: running the command as a user would, fixed batch
sizes, a comparison's tally, the replay against the reference engine, test plug-ins."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from sim.app.check import view_record
from sim.app.cli import main
from sim.base import reference
from sim.base.config import RunConfig
from sim.base.stats import CompareTally, deal_games, game_scores, seatings
from sim.base.trace import trace_rows
from sim.pipeline.kinds.compare import seating_config
from sim.runtime.play import play_batch, views_along_plays

REPO = Path(__file__).resolve().parents[1]
SLOW_FILE = str(REPO / "tests" / "slow_strategy.py")  # a plug-in whose every decision takes a while


def dying_worker(chunk: str, once: Path | None = None) -> dict[str, str]:
    """Dask's configuration, as environment variables every worker reads (the CLI's
    LocalCluster's too), that loads tests/dying_worker.py: the worker that starts the
    chunk ``"EXPERIMENT|FIRST"`` exits, the first time only with ``once`` (a marker file
    it makes), else every time."""
    argv = ["--chunk", chunk, *(["--once", str(once)] if once else [])]
    return {
        "DASK_DISTRIBUTED__WORKER__PRELOAD": repr([str(REPO / "tests" / "dying_worker.py")]),
        "DASK_DISTRIBUTED__WORKER__PRELOAD_ARGV": repr([argv]),
    }


def run_cli(*args, cwd=REPO, env=None):
    """Runs the command in a fresh interpreter, as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "sim.app.cli", *args],
        cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})},
        timeout=300,
    )  # fmt: skip


class Ran(NamedTuple):
    """What a command did: its exit code and what it printed, named as ``run_cli``'s
    CompletedProcess names them, or unpacked as ``code, out, err``."""

    returncode: int
    stdout: str
    stderr: str


def run_here(*args, cwd=None, env=None) -> Ran:
    """``briscola ARGS`` in this process: ``run_cli``'s result without a fresh interpreter
    (each start costs a second or two of loading), for a test that needs none. It runs in
    ``cwd``, else where this process is; ``env`` is set for the call (``PYTHONPATH`` means
    nothing here: the repository is on ``sys.path``)."""
    out, err = io.StringIO(), io.StringIO()
    saved = dict(os.environ)
    os.environ.update({k: v for k, v in (env or {}).items() if k != "PYTHONPATH"})
    try:
        with contextlib.chdir(cwd or "."), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(arg) for arg in args])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return Ran(code, out.getvalue(), err.getvalue())


def compare_tally(a, b, players, deals, seed, first_deal=0) -> CompareTally:
    base = RunConfig(players=players, strategies=(a,) * players, deals=deals, seed=seed, threads=1)
    tally = CompareTally(len(seatings(players)))
    columns = []
    for seating in seatings(players):
        results = play_batch(seating_config(base, a, b, seating), first_deal, deals).results
        columns.append(game_scores(*deal_games(results, 3 if players == 3 else 2), seating))
    tally.add(*(np.stack([c[k] for c in columns], axis=1) for k in range(3)))
    return tally


def dataset(study: Path) -> pd.DataFrame:
    """Every row of a study, in a canonical order (chunks may finish in any order)."""
    frame = pd.read_parquet(study)
    for column in ("experiment", "pair"):
        if column in frame:
            frame[column] = frame[column].astype(str)
    order = [c for c in ("experiment", "pair", "deal", "game") if c in frame]
    return frame.sort_values(order).reset_index(drop=True)


def fixed_batches(monkeypatch, size):
    """Every batch ``size`` deals, whatever the speed: a stand-in for another machine."""
    import sim.pipeline.chunks

    monkeypatch.setattr(sim.pipeline.chunks, "FIRST_BATCH", size)
    monkeypatch.setattr(sim.pipeline.chunks, "next_batch_size", lambda last_size, last_seconds: size)


def data_bytes(path) -> bytes:
    """A Parquet file's bytes before its footer (the footer holds the metadata)."""
    raw = path.read_bytes()
    footer = int.from_bytes(raw[-8:-4], "little")
    return raw[: len(raw) - 8 - footer]


def greedy_seats(strategies) -> tuple[int, ...]:
    return tuple(seat for seat, name in enumerate(strategies) if name == "greedy")


def replay_and_compare(config: RunConfig, first_deal: int, n_deals: int) -> int:
    """Plays a traced batch with the kernels and replays every deal with the reference;
    returns how many deals were checked."""
    batch = play_batch(config, first_deal, n_deals, trace=True)
    rows = trace_rows(batch)
    assert len(rows) == n_deals
    players = config.players
    sides = reference.n_sides(players)
    for i, (row, result) in enumerate(zip(rows, batch.results)):
        assert row["deal"] == first_deal + i == int(result["deal"])
        assert row["players"] == players
        expected = reference.replay_trace(
            row,
            trump_redeal=config.rules.trump_redeal,
            removed_two=config.rules.removed_two,
            greedy_seats=greedy_seats(config.strategies),
        )
        where = f"deal {row['deal']}"
        assert int(result["briscola"]) == row["briscola"], where
        assert result["seat_points"][:players].tolist() == list(expected.seat_points), where
        assert result["seat_points"][players:].tolist() == [-1] * (6 - players), where
        assert result["side_points"][:sides].tolist() == list(expected.side_points), where
        assert result["side_points"][sides:].tolist() == [-1] * (3 - sides), where
        assert int(result["winner_side"]) == expected.winner_side, where
    return len(rows)


OUTSIDER = textwrap.dedent(
    """
    from numba import njit
    from strategies.api import Param, Strategy

    @njit
    def edge_nb(view, params, rng):
        return view.hand[0] if params[0] else view.hand[view.n_hand - 1]

    EDGE = Strategy("edge", 3, "Plays its last card (or its first).", edge_nb,
                    params=(Param("first", bool, False),))
    """
)


def deal_views(cfg: RunConfig) -> list[list[np.ndarray]]:
    """Per deal of ``cfg``, the view of every card played, in playing order, as the
    reference engine rebuilds them (at Briscola Chiamata, after the auction): a view
    record each."""
    batch = play_batch(cfg, 0, cfg.deals, trace=True)
    if cfg.players == 5:
        return [[view_record(v, 5, {"removed": [-1]}) for phase, v, _ in reference.chiamata_decisions(row)
                 if phase == "play"] for row in trace_rows(batch)]  # fmt: skip
    deals = []
    for i in range(cfg.deals):
        plays = batch.records[i]["plays"]
        plays = plays[plays >= 0]
        deals.append(
            [view_record(v, cfg.players, batch.deals[i]) for v in views_along_plays(cfg, batch.deals[i], plays)]
        )
    return deals
