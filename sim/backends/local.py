"""The local backend: a study's pending chunks played here, in order."""

from __future__ import annotations

from functools import partial

from sim.chunks import run_chunk


def run(study, stop, progress=None) -> None:
    """Plays the study's pending chunks on this machine, in order. A chunk that a stop
    cuts short is not kept: it is played again when the study is resumed. ``progress(n,
    experiment)``: n more units of the experiment done."""
    for experiment, chunk in study.pending():
        if stop.is_set():
            return
        if not study.by_name[experiment.name].wants(chunk):
            continue  # its SPRT has decided meanwhile
        study.play({experiment.name})
        on_progress = None if progress is None else partial(progress, experiment=experiment.name)
        result = run_chunk(experiment, chunk, study.rows, stop, on_progress)
        if result.completed < chunk.n:
            return
        study.record(result)
