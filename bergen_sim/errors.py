"""Errors a user can cause, each carrying a one-line message.

The CLI prints ``str(error)`` and exits with status 2 for these; anything else
is a bug and keeps its traceback.
"""


class BergenError(Exception):
    """Base of every error caused by the user's input (a one-line message)."""


class RuleError(BergenError, ValueError):
    """An unknown, out-of-range or impossible rule setting."""


class PolicyError(BergenError):
    """An unknown policy, or a policy that misbehaved during play."""


class TraceError(BergenError, ValueError):
    """A trace that cannot be replayed (bad format, illegal move, short deals)."""


class MoveError(BergenError, ValueError):
    """A move that cannot be read, or that is not legal now (the message lists the legal ones)."""
