"""Analyses and reports: running ``analyses/``, their figures, the per-hand quantities they need, the plain answers."""
