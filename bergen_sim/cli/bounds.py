"""Click types for numbers with documented limits (see :mod:`bergen_sim.core.limits`)."""

from __future__ import annotations

import click

from bergen_sim.core.errors import shown
from bergen_sim.core.i18n import num, tr
from bergen_sim.core.limits import MAX_SEED, short_number, whole_number


class Bounded(click.ParamType):
    """A click whole-number type with a documented range; out-of-range values get one usage line.

    Unlike :class:`click.IntRange` it shortens absurdly long numbers in the message.
    """

    name = "integer"

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            number = whole_number(str(value))
            if number is None:
                self.fail(
                    tr("{value} is not a whole number ({low}..{high})").format(
                        value=shown(value), low=num(self.low, ","), high=num(self.high, ",")
                    ),
                    param,
                    ctx,
                )
        if not self.low <= number <= self.high:
            self.fail(
                tr("{value} is not in {low}..{high}").format(
                    value=short_number(number), low=num(self.low, ","), high=num(self.high, ",")
                ),
                param,
                ctx,
            )
        return number

    def get_metavar(self, param, ctx=None) -> str:  # in --help, e.g. 1..10^11
        return f"{self.low}..{_power(self.high)}"


def _power(value: int) -> str:
    """10**11 as '10^11', 2**64-1 as '2^64-1' (help text), else the number."""
    for base in (10, 2):
        exponent = value.bit_length() if base == 2 else len(str(value)) - 1
        if base**exponent == value and exponent > 6:
            return f"{base}^{exponent}"
        if base == 2 and base**exponent - 1 == value and exponent > 6:
            return f"{base}^{exponent}-1"
    return str(value)


#: click type of every --seed option
SEED = Bounded(0, MAX_SEED)
#: the help sentence of every --seed option
SEED_HELP = "Seed of the keyed random streams, a whole number 0..2^64-1 (not reduced: other values are refused)."
