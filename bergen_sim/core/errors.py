"""Errors a user can cause, each carrying a one-line message, and the helpers that keep the message one short line.

The CLI prints ``str(error)`` and exits with status 2 for these; anything else
is a bug and keeps its traceback.
"""

import json
import warnings
from typing import Any


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


def escaped(text: str) -> str:
    """``text`` with any lone surrogate (a byte that was not UTF-8, in a path or an argument) written ``\\udcff``.

    Python's own standard error does this; a stream that is strict UTF-8 (a
    test's capture, a log file) would raise UnicodeEncodeError instead.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def one_line(text: str) -> str:
    r"""``text`` safe to print on a terminal, on one line: control characters (line breaks, the escape that
    starts a terminal's control sequences, a bell) written as ``\n``, ``\x1b``, and lone surrogates as ``\udcff``.

    Every name that comes from a file or an argument is printed through this
    (errors, notices, tables): a name must never clear the screen or retitle the window.

    >>> one_line("o\x1b[2J\x1b]0;pwned\x07\nx")
    'o\\x1b[2J\\x1b]0;pwned\\x07\\nx'
    """
    text = escaped(text)
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
    return text


def printable(message: str, width: int = 400) -> str:
    r"""A message as the command line prints it: one line of at most ``width`` characters.

    The last guard of the one-line rule, whatever a message quotes: line
    breaks and other control characters are escaped (``\n``), bytes that were
    not UTF-8 (lone surrogates) shown as ``\udcff``, and a message still too
    long is cut in the middle, keeping its end, which says what is allowed.

    >>> printable("folder no\nsuch does not exist")
    'folder no\\nsuch does not exist'
    >>> len(printable("x" * 1000))
    400
    """
    text = one_line(message)
    if len(text) > width:
        head = (width - 5) * 2 // 3
        text = text[:head] + " ... " + text[len(text) - (width - 5 - head) :]
    return text


def cut(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the cut marked with "..."."""
    return text if len(text) <= width else text[: width - 3] + "..."


def shown(value: object, width: int = 40) -> str:
    """``repr(value)`` for a one-line message, cut to ``width`` characters.

    Hostile input can be megabytes long, or a number too long for Python to
    write out (``repr`` of an int of more than 4,300 digits raises).

    >>> shown("x" * 100, 12)
    "'xxxxxxxx..."
    >>> shown(10 ** 5000)
    'a number of about 5,000 digits'
    """
    try:
        text = repr(value)
    except ValueError:  # int's digit limit, in the value or inside it
        if isinstance(value, int):
            return huge_number(value)
        return "<holding a number too long to write out>"
    return cut(text, width)


def as_json(value: Any) -> str:
    """A JSON value as a file writes it (``null``, ``"１２"``), cut for a one-line message."""
    try:
        return cut(json.dumps(value, ensure_ascii=False), 40)
    except (TypeError, ValueError, RecursionError):
        return shown(value)


def huge_number(value: int) -> str:
    """How a message names an integer too long to write out (``str`` refuses more than 4,300 digits).

    >>> huge_number(-10 ** 5000)
    'a number of about 5,000 digits'
    """
    from bergen_sim.core.i18n import num, tr  # the catalog's module checks languages with BergenError from here

    return tr("a number of about {digits} digits").format(digits=num(round(abs(value).bit_length() * 0.30103), ","))


#: what a policy is called with and must return, for messages about a policy that does not keep to it
POLICY_CONTRACT = "a policy must return the integer index of its chosen move, 0..n_moves-1 (e.g. return np.int64(k))"


def returns_no_index(name: str, returned: str, function: str = "") -> PolicyError:
    """The error for a policy whose return value (of type ``returned``) is not a move's index.

    ``returned`` is ``"none"`` for a function that returns nothing, which is
    also what Numba infers for one that always raises; ``function`` names
    the policy's function when it is not its move choice (``choose_lead``).
    """
    what = "nothing (no return value, or it always raises)" if returned.lower() in ("none", "nonetype") else returned
    part = f" (its {function})" if function else ""
    return PolicyError(f"policy {name!r}{part} returns {what}, but {POLICY_CONTRACT}")


def reason_of(exc: BaseException) -> str:
    """The one line of ``exc``'s message that says what is wrong.

    Numba's messages run to pages and open with "Failed in nopython mode
    pipeline"; the first other line names the cause.
    """
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return next((ln for ln in lines if not ln.startswith("Failed in")), lines[0] if lines else "")


def renamed_keyword(
    new: str, value: Any, old: str, old_value: Any, error: type[BergenError] = BergenError, stacklevel: int = 3
) -> Any:
    """The value of keyword ``new``, or of ``old``, its name until this release, with a DeprecationWarning.

    None means not given; ``new`` and ``old`` both given is refused (``error``), since one would be dropped.
    The warning points at the caller of the function that calls this (``stacklevel`` one more per
    function between them).
    """
    if old_value is None:
        return value
    warnings.warn(
        f"{old}= is deprecated and goes in the next release: use {new}=", DeprecationWarning, stacklevel=stacklevel
    )
    if value is not None:
        raise error(f"give {new}= ({old}= is its old name), not both")
    return old_value
