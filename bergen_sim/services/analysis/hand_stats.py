"""Per-hand quantities derived from the engine's hand rows (layout ``H_*``).

The analyses need things the kernel does not store one by one: the points a
hand gave by source (lead, headers, going out, blocked), the points of each
seat counted from the leader, and how a blocked end state would have been
settled under each settlement.  Every rule involved is applied by the
engine's own compiled functions (:func:`~bergen_sim.engine.play_rules.cut_points`,
:func:`~bergen_sim.engine.play_rules.settle_blocked`) in small compiled loops,
so no rule is written twice.  All functions take a chunk's hand rows (an
``int64`` array) and return NumPy arrays with one row per hand, cheap enough
to be summed chunk by chunk so memory stays flat at any number of matches.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bergen_sim.core.stats import ratio_interval
from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import keyed_deals  # noqa: F401 (the analyses' keyed deals: hs.keyed_deals)
from bergen_sim.engine.play_rules import cut_points, settle_blocked
from bergen_sim.model.rules import Rules

#: points sources, in the column order of :func:`points_by_source`
SOURCES = ("lead", "header", "out", "blocked")
#: settlements, in the column order of :func:`settle_all_ways`
SETTLEMENTS = L.SETTLEMENT_NAMES


def _hands(rows: np.ndarray) -> L.Named:
    """Hand rows (layout ``HAND_ROW``) by column name."""
    return L.HAND_ROW.named(rows)


def seat_side(seats: np.ndarray, rules: Rules) -> np.ndarray:
    """The side each seat scores for (seat % 2 with partnerships, else the seat)."""
    return L.seat_side(seats, rules.partnerships)


def leader_side(rows: np.ndarray, rules: Rules) -> np.ndarray:
    """Side of each hand's leader."""
    return seat_side(_hands(rows)["leader"], rules)


def blocked_points(rows: np.ndarray, rules: Rules) -> np.ndarray:
    """Points each hand's blocked settlement gave (0 unless blocked with a winner; never cut)."""
    won = (_hands(rows)["end"] == L.HandEnd.BLOCKED) & (_hands(rows)["winner"] >= 0)
    return np.where(won, rules.blocked_points, 0)


def side_points(rows: np.ndarray, rules: Rules) -> np.ndarray:
    """(hands, sides) points each side scored in each hand, blocked points included."""
    seats = _hands(rows)["seat_points"][:, : rules.players]
    out = np.zeros((len(rows), rules.sides), dtype=np.int64)
    for seat in range(rules.players):
        out[:, rules.side_of(seat)] += seats[:, seat]
    won = blocked_points(rows, rules)
    winner = _hands(rows)["winner"]
    for side in range(rules.sides):
        out[:, side] += np.where(winner == side, won, 0)
    return out


def from_leader(per_seat: np.ndarray, leaders: np.ndarray) -> np.ndarray:
    """Re-index a (hands, players) array so column k is the seat k places after the leader."""
    players = per_seat.shape[1]
    seats = (leaders[:, None] + np.arange(players)[None, :]) % players
    return np.take_along_axis(per_seat, seats, axis=1)


def seat_points(rows: np.ndarray, rules: Rules) -> np.ndarray:
    """(hands, players) points of each seat's own lead, headers and going out."""
    return _hands(rows)["seat_points"][:, : rules.players]


@njit(cache=True)
def _lead_points(score_before, leader_side, target, reduced):
    out = np.empty(score_before.shape[0], dtype=np.int64)
    for i in range(score_before.shape[0]):
        out[i] = cut_points(2, score_before[i, leader_side[i]], target, reduced)
    return out


def lead_points(rows: np.ndarray, rules: Rules) -> np.ndarray:
    """Points each hand's led double scored (2, or less under the near-target cut)."""
    before = np.ascontiguousarray(_hands(rows)["score_before"])
    sides = np.ascontiguousarray(leader_side(rows, rules))
    return _lead_points(before, sides, rules.target, rules.reduced_headers)


def points_by_source(rows: np.ndarray, rules: Rules) -> np.ndarray:
    """(hands, 4) points of each hand from the lead, headers, going out and a blocked win (:data:`SOURCES`).

    Seat points hold lead + headers + out; the lead's share is recomputed with
    the engine's cut, out points are fixed (never cut) and the rest are headers.
    """
    lead = lead_points(rows, rules)
    out = np.where(_hands(rows)["end"] == L.HandEnd.OUT, rules.out_points, 0)
    header = seat_points(rows, rules).sum(axis=1) - lead - out
    return np.column_stack([lead, header, out, blocked_points(rows, rules)])


@njit(cache=True)
def _settle_rows(doubles, pips, plain, sides):
    out = np.empty((doubles.shape[0], 3), dtype=np.int64)
    for i in range(doubles.shape[0]):
        for settlement in range(3):
            out[i, settlement] = settle_blocked(settlement, doubles[i], pips[i], plain[i], sides)
    return out


def settle_all_ways(rows: np.ndarray, rules: Rules) -> np.ndarray:
    """(hands, 3) winning side of each blocked end state under german, pips and american (-1: nobody).

    ``rows`` must be blocked hands: their per-side doubles and pips are the end state.
    """

    def part(name: str) -> np.ndarray:
        return np.ascontiguousarray(_hands(rows)[name])

    return _settle_rows(part("side_doubles"), part("side_pips"), part("side_plain_pips"), rules.sides)


def match_sums(values: np.ndarray, matches: np.ndarray) -> np.ndarray:
    """Sum per-hand values (hands, k) over each match, in order of first appearance.

    Hand rows of a match are contiguous, so a change of match number starts a
    new group; used to treat matches, not hands, as the independent units.
    """
    starts = np.flatnonzero(np.r_[True, matches[1:] != matches[:-1]])
    return np.add.reduceat(values, starts, axis=0)


def source_sums(rows: np.ndarray, rules: Rules) -> dict[str, np.ndarray]:
    """Sums over matches of each source's points (x), all points (t) and their products.

    The share of points from a source is sum(x) / sum(t); these sums give it
    an interval with the match as the independent unit (:func:`source_shares`).
    """
    x = match_sums(points_by_source(rows, rules), _hands(rows)["match"]).astype(np.int64)
    t = x.sum(axis=1)
    return {
        "n": np.array(len(x)),
        "x": x.sum(0),
        "xx": (x * x).sum(0),
        "t": t.sum(),
        "tt": (t * t).sum(),
        "xt": (x * t[:, None]).sum(0),
    }


def source_shares(sums: dict[str, np.ndarray]) -> dict[str, float]:
    """Share of all points from each source, with 95% intervals (``lead_share``, ``lead_share_lo`` ...)."""
    record: dict[str, float] = {"matches": int(sums["n"]), "points": int(sums["t"])}
    for k, source in enumerate(SOURCES):
        share, lo, hi = ratio_interval(sums["x"][k], sums["t"], sums["xx"][k], sums["tt"], sums["xt"][k], sums["n"])
        record.update({f"{source}_share": share, f"{source}_share_lo": lo, f"{source}_share_hi": hi})
    return record
