"""Backends: where a study's pending chunks are played. Each module here has ``run(study,
stop, progress, **options)``, which plays them (``sim.chunks.run_chunk``) and hands each
result to ``study.record``; the study verifies and keeps it, whatever played it.

- ``local``: this process, chunk after chunk.
- ``dask``: a Dask cluster (imported only when asked for: Dask is an optional extra).
"""

BACKENDS = ("local", "dask")
