"""The base: every input checked, card names, statistics, summaries, recounts, the reference engine, atomic files, signals, the version. Pure Python, no kernels."""
