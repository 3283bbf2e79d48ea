"""Files bergen-sim reads and writes: traces, game records, output files, checkpoints, per-match tables."""
