"""What users run: simulation, comparison with the luck adjustment, the step-by-step game and its review,
analyses and reports, files (traces, records, outputs, checkpoints, tables), and execution across workers."""
