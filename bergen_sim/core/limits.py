"""Upper limits of every setting and size, chosen so that int64 arithmetic stays exact and memory bounded.

Why limits at all: the compiled engine counts in int64.  A target of 2**63
never ends a match, an ``out_points`` of 2**63 - 1 wraps a score to a negative
number, and a run of 10**26 matches would build an endless chunk list.  Each
limit below is far above any sensible use and low enough that the worst case
still fits:

- a match has at most ``sides * (target - 1) + 1`` hands (every lead scores at
  least one point), so at most ``4 * (MAX_TARGET - 1) + 1 = 3,997`` hands;
- the largest run total is the sum of squared hands per match:
  ``MAX_MATCHES * 3,997**2 ~ 1.6e18 < 2**63 ~ 9.2e18``; points per match are
  below ``sides * MAX_TARGET + MAX_POINTS`` and sum far lower;
- a chunk holds at most ``MAX_CHUNK_SIZE`` match rows (about 110 MB), a run at
  most ``MAX_CHUNKS`` chunks (so ``MAX_MATCHES = MAX_CHUNKS * MAX_CHUNK_SIZE``);
- ``compare`` keeps five float arrays per deal set (40 bytes), so at most
  ``MAX_DEAL_SETS`` of them (400 MB); ``analyze`` two per world and move.

Seeds are whole numbers ``0 .. 2**64 - 1`` (the kernel's uint64 key); others
are refused rather than silently reduced, so two different seeds never give
the same run.

Every check raises :class:`LimitError` (a :class:`~bergen_sim.core.errors.BergenError`:
one line, exit status 2 on the command line).
"""

from __future__ import annotations

import operator
import re
from typing import SupportsIndex, cast

from bergen_sim.core.errors import BergenError, huge_number, shown
from bergen_sim.core.i18n import num, tr

#: most points needed to win a match (``--set target``)
MAX_TARGET = 1_000
#: most points for going out or for a blocked hand (``--set out_points / blocked_points``)
MAX_POINTS = 1_000
#: most matches of one run (``simulate``, ``report --matches``; per pair rotation in ``compare``)
MAX_MATCHES = 10**11
#: most matches in one chunk (``--chunk-size``)
MAX_CHUNK_SIZE = 10**6
#: most chunks in one run (the default chunk size grows beyond 20,000 to stay below it)
MAX_CHUNKS = 10**5
#: most deal sets per pair of ``compare --matches``
MAX_DEAL_SETS = 10**7
#: most matches of ``trace --matches`` (the file grows by about 10 kB per match)
MAX_TRACE_MATCHES = 10**7
#: most worlds (and worlds per batch) of ``analyze``
MAX_WORLDS = 10**6
#: fewest worlds of ``analyze`` and of each decision of ``review``: one world gives a move a value but no spread,
#: so no interval
MIN_WORLDS = 2
#: most workers (threads here, or processes of a LocalCluster)
MAX_WORKERS = 1_024
#: seeds are 0 .. MAX_SEED (the kernel keys its random streams on a uint64)
MAX_SEED = 2**64 - 1
#: most cells of an experiment file (rule sets x sizes x policy sets x seeds): its cell list is held in memory and
#: each cell plays at least one run, so a bigger grid is a typo or belongs in several files
MAX_CELLS = 100_000
#: most match index within a seed (``play --match``, a trace's ``match``)
MAX_MATCH_INDEX = 2**62


class LimitError(BergenError, ValueError):
    """A number above (or below) its documented limit."""


def integer(value: object) -> int:
    """``value`` as an ``int`` when it is an int or a NumPy integer; TypeError for a float, a bool or text.

    Never cut or read: 2.5 is not 2, ``True`` is not 1, ``"7"`` is not 7.

    >>> import numpy as np
    >>> integer(7), integer(np.int64(7))
    (7, 7)
    >>> integer(2.5)
    Traceback (most recent call last):
    TypeError: 'float' object cannot be interpreted as an integer
    """
    if isinstance(value, bool) or type(value).__name__ == "bool_":  # NumPy's bool (NumPy is not imported here)
        raise TypeError(f"{shown(value)} is not a whole number")
    return operator.index(cast(SupportsIndex, value))  # operator.index raises the TypeError for anything else


def is_whole(value: object) -> bool:
    """Whether :func:`integer` takes ``value`` (an int or a NumPy integer, not a bool).

    >>> is_whole(3), is_whole(True), is_whole(3.0)
    (True, False, False)
    """
    try:
        integer(value)
    except TypeError:
        return False
    return True


def ascii_digits(text: str) -> bool:
    """Whether ``text`` is a number in the digits 0-9 (``str.isdigit`` also takes other scripts' digits).

    >>> ascii_digits("14"), ascii_digits("１４"), ascii_digits("")
    (True, False, False)
    """
    return text.isascii() and text.isdigit()


def check_range(name: str, value: object, low: int, high: int) -> int:
    """``value`` if ``low <= value <= high``, else a one-line LimitError naming the allowed range.

    >>> check_range("matches", 10, 1, MAX_MATCHES)
    10
    >>> check_range("matches", 0, 1, 100)
    Traceback (most recent call last):
    bergen_sim.core.limits.LimitError: matches must be 1..100, not 0
    >>> check_range("seed", 2.5, 0, 100)
    Traceback (most recent call last):
    bergen_sim.core.limits.LimitError: seed must be a whole number 0..100, not 2.5
    """
    try:
        whole = integer(value)
    except TypeError:
        raise LimitError(
            tr("{name} must be a whole number {low}..{high}, not {value}").format(
                name=name, low=num(low, ","), high=num(high, ","), value=shown(value)
            )
        ) from None
    if not low <= whole <= high:
        raise LimitError(
            tr("{name} must be {low}..{high}, not {value}").format(
                name=name, low=num(low, ","), high=num(high, ","), value=short_number(whole)
            )
        )
    return whole


def short_number(value: int) -> str:
    """A number as typed, shortened when it is absurdly long (a 10**30 would fill the line).

    >>> short_number(10 ** 30), short_number(-10 ** 5000)
    ('10000000...(31 digits)', 'a number of about 5,000 digits')
    """
    if abs(value).bit_length() > 10_000:  # str() refuses ints of more than 4,300 digits
        return huge_number(value)
    text = str(value)
    return text if len(text) <= 24 else f"{text[:8]}...({len(text)} digits)"


_WHOLE = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*")


def whole_number(text: str) -> int | None:
    """The whole number ``text`` spells in ASCII digits (``"12"``, ``"-3"``, ``"1_000"``, ``" 7 "``), else None.

    Digits of other scripts (``"٣"``, ``"７"``), which ``int()`` reads, are
    refused like any other non-number, as game records and the ``play``
    prompt refuse them.  A number too long for ``int()`` (more than 4,300
    digits) comes back as a power of ten with as many digits: above every
    limit, so the caller's range check refuses it.

    >>> whole_number("1_000"), whole_number("٣"), whole_number("1.5"), whole_number("9" * 5000) == 10 ** 4999
    (1000, None, None, True)
    """
    text = text.strip()
    if not _WHOLE.fullmatch(text):
        return None
    digits = text.lstrip("+-").replace("_", "")
    if len(digits) > 4_000:
        return (-1 if text.startswith("-") else 1) * 10 ** (len(digits) - 1)
    return int(text)


def foreign_digit(text: str) -> str | None:
    """The first digit of another script in ``text`` (``'٣'``, ``'７'``, ``'²'``), else None.

    For text that is not a whole number but holds numbers (tiles ``3-5``,
    ends ``6,5d``, counts ``4,6``): ``int()`` and ``str.isdigit`` read such
    digits, so they are refused before the text is read, as
    :func:`whole_number` refuses them.

    >>> foreign_digit("3-5,6,5d"), foreign_digit("５-６")
    (None, '５')
    """
    return next((ch for ch in text if not ch.isascii() and ch.isnumeric()), None)


def ascii_digits_only(text: str, what: str) -> str:
    """``text`` if it has no digit of another script, else a one-line LimitError naming ``what`` and the digit.

    >>> ascii_digits_only("１４", "boneyard")
    Traceback (most recent call last):
    bergen_sim.core.limits.LimitError: boneyard: '１４' has '１', a digit of another script; write numbers with the digits 0-9
    """
    digit = foreign_digit(text)
    if digit is not None:
        raise LimitError(
            f"{what}: {shown(text)} has {digit!r}, a digit of another script; write numbers with the digits 0-9"
        )
    return text


def check_seed(seed: int) -> int:
    """A seed in ``0 .. 2**64 - 1`` (refused otherwise: reducing it would make two seeds the same run)."""
    return check_range("seed", seed, 0, MAX_SEED)


def check_run(matches: int, most: int, seed: int, workers: int | None) -> None:
    """A measuring tool's ``--matches`` (1..``most``), seed and ``--workers`` (None: every core), checked
    before its first run, so a wrong one is refused at once rather than after the runs that came first."""
    check_range("--matches", matches, 1, most)
    check_seed(seed)
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)


def check_chunks(matches: int, chunk_size: int, name: str = "--chunk-size") -> None:
    """Refuse a chunk size that cuts a run into more than MAX_CHUNKS chunks (``name``: the option or key that set it)."""
    chunks = -(-matches // chunk_size)
    if chunks > MAX_CHUNKS:
        joined = f"{name} = " if not name.startswith("--") else f"{name} "
        raise LimitError(
            f"{joined}{chunk_size:,} cuts {matches:,} matches into {chunks:,} chunks; "
            f"at most {MAX_CHUNKS:,} chunks: use {joined}{-(-matches // MAX_CHUNKS):,} or more"
        )
