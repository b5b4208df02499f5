"""What to play and where the rows go: plans, experiments, run kinds, chunks, the two writers (a command's file, a study's dataset), backends, result files and traces."""
