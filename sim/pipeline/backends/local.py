"""The local backend: a study's pending chunks played here, in order; a command is played
here into its own file (``sim.pipeline.runs``)."""

from __future__ import annotations

from functools import partial

from sim.pipeline.backends.base import Backend


class Local(Backend):
    name = "local"
    about = "this machine"
    in_this_process = True

    def resume_options(self, given: dict) -> tuple[str, ...]:
        return ()  # the default backend: --resume alone runs here

    def run(self, study, stop, progress, given: dict, threads: int | None) -> None:
        """Plays the study's pending chunks on this machine, in order. A chunk that a stop
        cuts short is not kept: it is played again when the study is resumed."""
        from sim.pipeline.chunks import run_chunk  # heavy (Numba): the command line starts without it

        for experiment, chunk in study.pending():
            if stop.is_set():
                return
            if not study.by_name[experiment.name].wants(chunk):
                continue  # its SPRT has decided meanwhile
            study.play({experiment.name})
            result = run_chunk(experiment, chunk, study.rows, stop, partial(progress, experiment=experiment.name))
            if result.completed < chunk.n:
                return
            study.record(result)


LOCAL = Local()
