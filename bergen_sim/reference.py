"""Reference engine for Bergen: plain Python, written to be read, not to be fast.

This module is the executable form of the project's rule book (RULES.md).
Every rule is applied in one obvious place, in the order the rule book states
it, and every event is written in ``bergen-trace/1`` form with the same key
order as the golden traces.  Faster engines are checked against this one (and
both against the golden traces), so clarity wins over speed everywhere here.

The engine itself is deterministic: all randomness lives in the two callables
it is given, ``deal_source`` (which tiles each seat gets, and the boneyard's
draw order) and ``choose`` (which legal move a seat makes).  Replaying a trace
is therefore just a matter of feeding back the recorded deals and moves, see
``deals_from_trace`` and ``moves_from_trace``.
"""

from __future__ import annotations

import functools
import random
from typing import Callable, Iterable

from bergen_sim.domain import Tile

FORMAT = "bergen-trace/1"

# The keys of a trace's ``rules`` object, in the order the format writes them.
RULE_KEYS = ("players", "partnerships", "hand_size", "target", "lead", "settlement",
             "blocked_points", "out_points", "boneyard_reserve", "reduced_headers")

# The double-six set in index order: lexicographic by (a, b) with a <= b.
TILES: list[str] = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]
TILE_INDEX: dict[str, int] = {t: i for i, t in enumerate(TILES)}


@functools.cache  # the reference engine's speed is a benchmark baseline: parse each name once
def halves(tile: str) -> tuple[int, int]:
    """``"3-5"`` -> ``(3, 5)`` (parsed by :class:`bergen_sim.domain.Tile`, the one parser of tile names)."""
    parsed = Tile.parse(tile)
    return parsed.lo, parsed.hi


def is_double(tile: str) -> bool:
    a, b = halves(tile)
    return a == b


def pips(tile: str) -> int:
    a, b = halves(tile)
    return a + b


def legal_moves(hand, left: int, right: int) -> list[tuple[str, str]]:
    """All legal ``(tile, end)`` moves for ``hand`` on a layout showing ``left``/``right``.

    Ordered by tile index, ``"L"`` before ``"R"`` for the same tile.  A tile
    that fits both ends is listed once per end, even when both ends show the
    same number: the two placements can differ (one end may be a double end),
    and a uniform policy must see both.
    """
    moves = []
    for tile in sorted(hand, key=TILE_INDEX.__getitem__):
        numbers = halves(tile)
        if left in numbers:
            moves.append((tile, "L"))
        if right in numbers:
            moves.append((tile, "R"))
    return moves


def side_of(rules: dict, seat: int) -> int:
    """Partners (4 players only) share a side: seats 0,2 -> 0 and 1,3 -> 1."""
    return seat % 2 if rules["partnerships"] else seat


def side_count(rules: dict) -> int:
    return 2 if rules["partnerships"] else rules["players"]


def cut_header(rules: dict, value: int, side_score: int) -> int:
    """Apply the near-target cut to a header worth ``value`` (lead included).

    ``need`` is what the side still lacks before this header.  Only headers
    (the led double included) are cut; going-out and blocked points never are,
    which is why callers apply this to header values only.
    """
    if not rules["reduced_headers"]:
        return value
    need = rules["target"] - side_score
    if need <= 2:
        return 1
    if need == 3:
        return min(value, 2)
    return value


def settle_blocked(rules: dict, hands: list[list[str]]) -> int | None:
    """Return the side winning a blocked hand, or None on a tie for best.

    Each side gets a sort key (smaller is better) over all tiles left in its
    players' hands; the best key wins only if no other side shares it.
    """
    tiles_by_side: list[list[str]] = [[] for _ in range(side_count(rules))]
    for seat, hand in enumerate(hands):
        tiles_by_side[side_of(rules, seat)].extend(hand)

    def key(tiles: list[str]):
        doubles = sum(1 for t in tiles if is_double(t))
        total = sum(pips(t) for t in tiles)
        if rules["settlement"] == "german":
            return (doubles, total)  # fewest doubles, then fewest pips
        if rules["settlement"] == "pips":
            return (total,)
        if rules["settlement"] == "american":
            # Holding no double beats holding one.  Sides without doubles
            # compare all their pips, sides with doubles compare non-double
            # pips only; for a double-free side those two counts coincide.
            plain = sum(pips(t) for t in tiles if not is_double(t))
            return (doubles > 0, plain)
        raise ValueError(f"unknown settlement {rules['settlement']!r}")

    keys = [key(tiles) for tiles in tiles_by_side]
    best = min(keys)
    if keys.count(best) > 1:
        return None
    return keys.index(best)


def find_lead(rules: dict, hands: list[list[str]]) -> tuple[int, str] | None:
    """The ``(seat, double)`` that must lead, or None if no hand holds a double."""
    doubles = [(TILE_INDEX[t], seat, t) for seat, hand in enumerate(hands)
               for t in hand if is_double(t)]
    if not doubles:
        return None
    pick = min if rules["lead"] == "lowest-double" else max
    _, seat, tile = pick(doubles)
    return seat, tile


class _MatchOver(Exception):
    """Raised internally the moment a side reaches the target."""


def play_match_reference(rules: dict, deal_source, choose, *, match_index: int = 0,
                         seed: int = 0, policies: list[str] | None = None) -> list[dict]:
    """Play one match and return its ``bergen-trace/1`` events.

    ``deal_source(hand_number, attempt)`` returns ``(hands, boneyard)``;
    ``attempt`` counts redeals of that hand from 0.  ``choose(seat, hand,
    moves, info)`` returns one of ``moves``; it is called for every play after
    the lead, forced ones included, so a scripted policy stays in step.
    """
    if set(rules) != set(RULE_KEYS):
        raise ValueError(f"rules must have exactly the keys {RULE_KEYS}, got {sorted(rules)}")
    rules = {key: rules[key] for key in RULE_KEYS}  # canonical order for the match event
    players = rules["players"]
    if policies is None:
        policies = ["reference"] * players
    events: list[dict] = [{
        "type": "match", "format": FORMAT, "match": match_index, "rules": dict(rules),
        "policies": list(policies), "seed": seed,
    }]
    scores = [0] * side_count(rules)

    def add_points(seat: int, points: int) -> None:
        scores[side_of(rules, seat)] += points

    def check_target() -> None:
        """End the match right after the scoring event that reached the target."""
        for side, score in enumerate(scores):
            if score >= rules["target"]:
                events.append({"type": "match_end", "winner": side, "score": list(scores)})
                raise _MatchOver

    def go_out(seat: int) -> None:
        add_points(seat, rules["out_points"])
        events.append({"type": "out", "seat": seat, "points": rules["out_points"],
                       "score": list(scores)})
        check_target()

    def play_hand(hand_number: int) -> None:
        # Deal, redealing (same hand number) until some hand holds a double.
        attempt = 0
        while True:
            dealt, boneyard_in = deal_source(hand_number, attempt)
            hands = [list(h) for h in dealt]
            boneyard = list(boneyard_in)
            events.append({"type": "deal", "hand": hand_number,
                           "hands": [list(h) for h in hands], "boneyard": list(boneyard)})
            lead = find_lead(rules, hands)
            if lead is not None:
                break
            events.append({"type": "redeal", "hand": hand_number})
            attempt += 1

        # The lead: a double-header for the leader's side, subject to the cut.
        seat, tile = lead
        hands[seat].remove(tile)
        number = halves(tile)[0]
        left = right = number
        left_double = right_double = True
        points = cut_header(rules, 2, scores[side_of(rules, seat)])
        add_points(seat, points)
        events.append({"type": "lead", "seat": seat, "tile": tile, "points": points,
                       "score": list(scores)})
        check_target()
        if not hands[seat]:  # hand size 1: the leader goes out on the lead
            go_out(seat)
            return

        passes = 0
        while True:
            seat = (seat + 1) % players
            moves = legal_moves(hands[seat], left, right)
            # No playable tile: draw one at a time until one fits or only the
            # reserve is left.  A drawn playable tile is the only one, so only
            # its ends are offered.
            while not moves and len(boneyard) > rules["boneyard_reserve"]:
                drawn = boneyard.pop(0)
                hands[seat].append(drawn)
                events.append({"type": "draw", "seat": seat, "tile": drawn})
                moves = legal_moves([drawn], left, right)
            if not moves:
                events.append({"type": "pass", "seat": seat})
                passes += 1
                if passes == players:
                    winner = settle_blocked(rules, hands)
                    points = 0 if winner is None else rules["blocked_points"]
                    if winner is not None:
                        scores[winner] += points
                    events.append({"type": "blocked", "winner": winner, "points": points,
                                   "score": list(scores)})
                    check_target()
                    return
                continue

            passes = 0
            info = {"left": left, "right": right, "left_double": left_double,
                    "right_double": right_double, "scores": list(scores),
                    "hand_number": hand_number}
            move = choose(seat, list(hands[seat]), list(moves), info)
            move = tuple(move)
            if move not in moves:
                raise ValueError(f"seat {seat} chose illegal move {move!r}; legal: {moves}")
            tile, end = move
            hands[seat].remove(tile)
            a, b = halves(tile)
            shown = left if end == "L" else right
            new_number = b if a == shown else a
            if end == "L":
                left, left_double = new_number, a == b
            else:
                right, right_double = new_number, a == b

            points = 0
            if left == right:
                value = 3 if (left_double or right_double) else 2
                points = cut_header(rules, value, scores[side_of(rules, seat)])
            add_points(seat, points)
            events.append({"type": "play", "seat": seat, "tile": tile, "end": end,
                           "points": points, "score": list(scores)})
            check_target()  # a header may end the match before going out
            if not hands[seat]:
                go_out(seat)
                return

    hand_number = 1
    try:
        while True:
            play_hand(hand_number)
            hand_number += 1
    except _MatchOver:
        pass
    return events


# --- helpers: replaying traces and the naive random baseline ---------------

def split_matches(lines: Iterable[dict]) -> list[list[dict]]:
    """Split a trace's events into matches, each starting at a ``match`` event."""
    matches: list[list[dict]] = []
    for event in lines:
        if event["type"] == "match":
            matches.append([])
        elif not matches:
            raise ValueError("trace does not start with a match event")
        matches[-1].append(event)
    return matches


def deals_from_trace(events: list[dict]) -> Callable:
    """A deal_source serving one match's recorded deals in order.

    The k-th call gets the k-th ``deal`` event.  The requested hand number and
    attempt are checked against the recording so a replay that drifts out of
    step fails loudly instead of silently using the wrong deal.
    """
    deals = []
    attempts: dict[int, int] = {}
    for e in events:
        if e["type"] == "deal":
            attempt = attempts.get(e["hand"], 0)
            attempts[e["hand"]] = attempt + 1
            deals.append((e["hand"], attempt, e["hands"], e["boneyard"]))
    queue = iter(deals)

    def deal_source(hand_number: int, attempt: int):
        try:
            hand, recorded_attempt, hands, boneyard = next(queue)
        except StopIteration:
            raise ValueError("no recorded deal left") from None
        if (hand, recorded_attempt) != (hand_number, attempt):
            raise ValueError(f"asked for hand {hand_number} attempt {attempt}, "
                             f"recorded hand {hand} attempt {recorded_attempt}")
        return [list(h) for h in hands], list(boneyard)

    return deal_source


def moves_from_trace(events: list[dict]) -> Callable:
    """A scripted ``choose`` returning the recorded ``play`` moves in order."""
    queue = iter([(e["tile"], e["end"]) for e in events if e["type"] == "play"])

    def choose(seat, hand, moves, info):
        try:
            return next(queue)
        except StopIteration:
            raise ValueError("no recorded move left") from None

    return choose


def random_deal_source(rng: random.Random, players: int, hand_size: int) -> Callable:
    """Shuffle the 28 tiles; deal ``hand_size`` each in seat order; the rest is the boneyard."""
    def deal_source(hand_number: int, attempt: int):
        tiles = list(TILES)
        rng.shuffle(tiles)
        hands = [tiles[i * hand_size:(i + 1) * hand_size] for i in range(players)]
        return hands, tiles[players * hand_size:]

    return deal_source


def random_choose(rng: random.Random) -> Callable:
    """A uniform-random policy over the offered moves."""
    def choose(seat, hand, moves, info):
        return rng.choice(moves)

    return choose
