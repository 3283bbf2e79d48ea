"""Foundation: errors, bounds of every setting, statistics, the compile cache, notices, result cards, provenance.

Nothing here imports another part of the package.
"""
