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


#: what a policy is called with and must return, for messages about a policy that does not keep to it
POLICY_CONTRACT = "a policy must return the integer index of its chosen move, 0..n_moves-1 (e.g. return np.int64(k))"


def returns_no_index(name: str, returned: str) -> PolicyError:
    """The error for a policy whose return value (of type ``returned``) is not a move's index.

    ``returned`` is ``"none"`` for a function that returns nothing, which is
    also what Numba infers for one that always raises.
    """
    what = "nothing (no return value, or it always raises)" if returned.lower() in ("none", "nonetype") else returned
    return PolicyError(f"policy {name!r} returns {what}, but {POLICY_CONTRACT}")


def reason_of(exc: BaseException) -> str:
    """The one line of ``exc``'s message that says what is wrong.

    Numba's messages run to pages and open with "Failed in nopython mode
    pipeline"; the first other line names the cause.
    """
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return next((ln for ln in lines if not ln.startswith("Failed in")), lines[0] if lines else "")
