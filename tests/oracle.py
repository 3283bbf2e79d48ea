"""The independent oracle: Bergen in plain Python, written to be read, not to be fast.

This is the test suite's executable form of the rule book (RULES.md), kept apart from the product on
purpose: the package's own Python game (:mod:`bergen_sim.model.state`, typed tiles, moves and events)
and the compiled engine are both checked against it event for event (and all of them against the
golden traces), so a rule read wrongly in one place shows up as a difference.  It works on tile
*names* and the traces' dict events, shares no rule with either engine (only the tile names and
their index order, by high half then low half, so that every set is a prefix of the next and moves
are listed in the same order), and every rule is applied in one obvious place, in the order the rule
book states it; every event is written in ``bergen-trace/2`` form (or, replaying a version-1 file,
``bergen-trace/1``) with the same key order as the golden traces.

It plays every game the rule book names: the five sets (double-six to
double-eighteen), the spinner (the led double's four arms L, R, U and D), the
three lead rules (lowest, highest and any double), 2 to 8 players and
partnerships of 4, 6 or 8.

The rules live in :class:`MatchState`, a match stepped one deal, lead choice,
draw or move at a time; :func:`play_match_reference` drives it in a loop.

The engine itself is deterministic: all randomness lives in the two callables
it is given, ``deal_source`` (which tiles each seat gets, and the boneyard's
draw order) and ``choose`` (which legal move a seat makes, and with
``lead = any-double`` which double the leader leads).  Replaying a trace is
therefore just a matter of feeding back the recorded deals and decisions, see
:func:`deals_from_trace`, :func:`moves_from_trace` and :func:`replay_reference`.

Readings of the rule book this engine makes (where the text leaves a detail open):

* an open but empty U or D arm is a double end (it shows the spinner, a
  double); it never matters, since an empty arm does not count for headers;
* the lead decision with ``any-double`` is offered to ``choose`` as moves
  ``(double, "L")``, one per double the leader holds, in tile order, with
  ``info["phase"] == "lead"``; the end is nominal (the led double opens L and
  R at once);
* moves are listed by tile index, and for one tile in end order L, R, U, D.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable

from bergen_sim.engine.layout import DOMINO_SETS, MAX_NUMBER
from bergen_sim.model.rules import RULE_KEYS_V1

FORMAT_V1 = "bergen-trace/1"
FORMAT_V2 = "bergen-trace/2"
FORMATS = (FORMAT_V1, FORMAT_V2)
FORMAT = FORMAT_V2

# The keys of a trace's ``rules`` object, in the order the format writes them (version 1: the last ten).
RULE_KEYS = ("domino_set", "spinner", *RULE_KEYS_V1)

#: the ends in the order moves list them: the line's L and R, then the spinner's U and D
ENDS = ("L", "R", "U", "D")


def tile_names(max_number: int) -> list[str]:
    """The double-``max_number`` set in index order: by high half, then low half (each set a prefix of the next)."""
    return [f"{a}-{b}" for b in range(max_number + 1) for a in range(b + 1)]


#: the double-six set in index order
TILES: list[str] = tile_names(6)
#: every tile up to double-eighteen -> its index (a set's tiles are indices 0 .. its size - 1)
TILE_INDEX: dict[str, int] = {t: i for i, t in enumerate(tile_names(MAX_NUMBER))}


@functools.cache  # parse each name once: the oracle plays thousands of matches per test run
def halves(tile: str) -> tuple[int, int]:
    """``"3-5"`` -> ``(3, 5)``: the oracle reads only names it wrote or a test gave, so no checks beyond int()."""
    a, b = tile.split("-")
    return min(int(a), int(b)), max(int(a), int(b))


def is_double(tile: str) -> bool:
    a, b = halves(tile)
    return a == b


def pips(tile: str) -> int:
    a, b = halves(tile)
    return a + b


def legal_moves(
    hand, left: int | None, right: int | None, up: int | None = None, down: int | None = None
) -> list[tuple[str, str]]:
    """All legal ``(tile, end)`` moves for ``hand`` on a layout whose open ends show these numbers.

    ``up`` and ``down`` are the spinner's arms, None while closed.  Ordered by
    tile index, then L, R, U, D for the same tile.  A tile that fits several
    ends is listed once per end, even when they show the same number: the
    placements can differ (one end may be a double end), and a uniform policy
    must see each.
    """
    ends = [(name, number) for name, number in zip(ENDS, (left, right, up, down)) if number is not None]
    moves: list[tuple[str, str]] = []
    for tile in sorted(hand, key=TILE_INDEX.__getitem__):
        numbers = halves(tile)
        moves.extend((tile, name) for name, number in ends if number in numbers)
    return moves


def side_of(rules: dict, seat: int) -> int:
    """Partners (4, 6 or 8 players) share a side: even seats side 0, odd seats side 1."""
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


def opening_seat(rules: dict, hand_number: int) -> int:
    """With ``lead = any-double``: the seat from which the search for a leader starts, ``(h - 1) mod n``."""
    return (hand_number - 1) % rules["players"]


def find_leader(rules: dict, hands: list[list[str]], hand_number: int) -> tuple[int, list[str]] | None:
    """The seat that leads and the doubles it may lead, or None if no hand holds a double.

    ``lowest-double`` / ``highest-double``: the holder of that double, which
    must lead it (one choice).  ``any-double``: the first seat from the opening
    seat, in turn order, holding a double; it may lead any of them (tile order).
    """
    players = rules["players"]
    if rules["lead"] == "any-double":
        start = opening_seat(rules, hand_number)
        for k in range(players):
            seat = (start + k) % players
            doubles = sorted((t for t in hands[seat] if is_double(t)), key=TILE_INDEX.__getitem__)
            if doubles:
                return seat, doubles
        return None
    doubles = [(TILE_INDEX[t], seat, t) for seat, hand in enumerate(hands) for t in hand if is_double(t)]
    if not doubles:
        return None
    if rules["lead"] not in ("lowest-double", "highest-double"):
        raise ValueError(f"unknown lead rule {rules['lead']!r}")
    pick = min if rules["lead"] == "lowest-double" else max
    _, seat, tile = pick(doubles)
    return seat, [tile]


def canonical_rules(rules: dict) -> dict:
    """A trace's rules object with all twelve keys in format order (a version-1 object is double-six, no spinner)."""
    if set(rules) == set(RULE_KEYS_V1):
        rules = {"domino_set": "double-six", "spinner": False, **rules}
    if set(rules) != set(RULE_KEYS):
        raise ValueError(
            f"rules must have exactly the keys {RULE_KEYS} (version 1: {RULE_KEYS_V1}), got {sorted(rules)}"
        )
    if rules["domino_set"] not in DOMINO_SETS:
        raise ValueError(f"unknown domino_set {rules['domino_set']!r}")
    return {key: rules[key] for key in RULE_KEYS}


#: phases of a match in progress: what the next step must be
DEAL = "deal"  # the hand (or its redeal) needs a deal: MatchState.deal
LEAD = "lead"  # lead = any-double: the leader must choose its double: MatchState.lead
DRAW = "draw"  # a seat must draw and the boneyard order is not known yet: MatchState.draw
PLAY = "play"  # a seat holds a playable tile and must choose a move: MatchState.play
OVER = "over"  # a side reached the target


class MatchState:
    """One match in progress, stepped one deal, lead choice, draw or move at a time.

    The oracle's state machine, driven by :func:`play_match_reference`.  After every step the state runs on by itself through
    everything that needs no decision (a forced lead, draws from a known
    boneyard, passes, going out, blocked settlements, the next hand) and stops
    at the next step that needs input, named by :attr:`phase`:

    * ``DEAL``: call :meth:`deal` with the hands (and the boneyard in draw
      order, or None to give the drawn tiles one by one later);
    * ``LEAD``: (``lead = any-double`` only) :attr:`seat` must choose which of
      its doubles to lead, one of :attr:`moves` ``(double, "L")``, with :meth:`lead`;
    * ``DRAW``: (only after a deal without a boneyard order) call :meth:`draw`
      with the tile that :attr:`seat` draws next;
    * ``PLAY``: :attr:`seat` must play one of :attr:`moves` with :meth:`play`;
    * ``OVER``: a side reached the target.

    ``rules`` is a trace's rules object (version 1 or 2 keys).  Every event is
    appended to :attr:`events` in the form of ``format`` (version 2 unless a
    version-1 file is being replayed).

    The layout is :attr:`numbers` (open end -> the number it shows),
    :attr:`double_ends` (open end -> whether it is a double end) and
    :attr:`arm_tiles` (open end -> tiles played on it); U and D are open only
    with the spinner, once L and R each hold a tile.

    >>> state = MatchState(dict(players=2, partnerships=False, hand_size=2, target=15,
    ...     lead="lowest-double", settlement="german", blocked_points=2, out_points=2,
    ...     boneyard_reserve=2, reduced_headers=True), format="bergen-trace/1")
    >>> state.phase
    'deal'
    >>> state.deal([["1-1", "1-2"], ["2-3", "4-4"]], [t for t in TILES if t not in ("1-1", "1-2", "2-3", "4-4")])
    >>> [(e["type"], e.get("tile")) for e in state.events[2:]]  # the lead, then seat 1 draws until a tile fits
    [('lead', '1-1'), ('draw', '0-0'), ('draw', '0-1')]
    >>> state.phase, state.seat, state.moves
    ('play', 1, [('0-1', 'L'), ('0-1', 'R')])
    """

    def __init__(
        self,
        rules: dict,
        *,
        match_index: int = 0,
        seed: int = 0,
        policies: list[str] | None = None,
        format: str = FORMAT,
    ):
        if format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {format!r}")
        self.rules = canonical_rules(rules)
        if format == FORMAT_V1 and (self.rules["domino_set"], self.rules["spinner"]) != ("double-six", False):
            raise ValueError(f"{FORMAT_V1} describes double-six without the spinner only")
        self.format = format
        self.players = self.rules["players"]
        self.set_tiles = tile_names(DOMINO_SETS[self.rules["domino_set"]])
        if policies is None:
            policies = ["reference"] * self.players
        written = self.rules if format == FORMAT_V2 else {key: self.rules[key] for key in RULE_KEYS_V1}
        self.events: list[dict] = [
            {
                "type": "match",
                "format": format,
                "match": match_index,
                "rules": dict(written),
                "policies": list(policies),
                "seed": seed,
            }
        ]
        self.scores = [0] * side_count(self.rules)
        self.hand_number = 1
        self.attempt = 0  # redeals of this hand so far
        self.hands: list[list[str]] = [[] for _ in range(self.players)]
        self.boneyard: list[str] | None = []  # draw order; None while it is given tile by tile
        self.boneyard_size = 0
        self.numbers: dict[str, int] = {}
        self.double_ends: dict[str, bool] = {}
        self.arm_tiles: dict[str, int] = {}
        self.spinner_number = -1  # the led double's number
        self.seat = -1  # the seat to move (or to draw, or to lead)
        self.moves: list[tuple[str, str]] = []  # its legal moves in phase PLAY (its doubles in phase LEAD)
        self.drawn = 0  # tiles it drew this turn
        self.passes = 0
        self.phase = DEAL

    # --- the steps ---------------------------------------------------------

    def deal(self, hands: list[list[str]], boneyard: list[str] | None) -> None:
        """Deal this hand: ``hands`` per seat and the ``boneyard`` in draw order.

        With ``boneyard=None`` the undealt tiles' order is left open and every
        draw stops in phase ``DRAW`` for :meth:`draw` (the deal event then has
        ``"boneyard": None``).  A deal without a double is recorded and
        followed by a redeal event; the state stays in phase ``DEAL`` (and the
        hand keeps its number, so its opening seat).
        """
        self._expect(DEAL)
        hands = [list(h) for h in hands]
        self._check_deal(hands, boneyard)
        self.events.append(
            {
                "type": "deal",
                "hand": self.hand_number,
                "hands": [list(h) for h in hands],
                "boneyard": None if boneyard is None else list(boneyard),
            }
        )
        found = find_leader(self.rules, hands, self.hand_number)
        if found is None:
            self.events.append({"type": "redeal", "hand": self.hand_number})
            self.attempt += 1
            return
        self.hands = hands
        self.boneyard = None if boneyard is None else list(boneyard)
        self.boneyard_size = len(self.set_tiles) - self.players * self.rules["hand_size"]
        seat, doubles = found
        self.seat = seat
        if self.rules["lead"] == "any-double":  # the leader's own choice, asked even of a single double
            self.moves = [(tile, "L") for tile in doubles]
            self.phase = LEAD
            return
        self._lead(doubles[0])

    def lead(self, tile: str) -> None:
        """The leader leads ``tile``, one of its doubles (phase ``LEAD``: ``lead = any-double``)."""
        self._expect(LEAD)
        if (tile, "L") not in self.moves:
            raise ValueError(f"seat {self.seat} cannot lead {tile!r}; it may lead {[t for t, _ in self.moves]}")
        self.moves = []
        self._lead(tile)

    def draw(self, tile: str) -> None:
        """The seat to move draws ``tile`` (phase ``DRAW``, after a deal without boneyard order)."""
        self._expect(DRAW)
        if tile not in self.set_tiles or tile in self.out_of_boneyard():
            raise ValueError(f"{tile!r} cannot be drawn: it is not an undealt tile")
        self._take(tile)

    def play(self, tile: str, end: str) -> None:
        """The seat to move plays ``tile`` on ``end`` (one of :attr:`moves`)."""
        self._expect(PLAY)
        seat = self.seat
        move = (tile, end)
        if move not in self.moves:
            raise ValueError(f"seat {seat} chose illegal move {move!r}; legal: {self.moves}")
        self.hands[seat].remove(tile)
        a, b = halves(tile)
        shown = self.numbers[end]
        self.numbers[end] = b if a == shown else a
        self.double_ends[end] = a == b
        self.arm_tiles[end] += 1
        if self.rules["spinner"] and "U" not in self.numbers and self.arm_tiles["L"] and self.arm_tiles["R"]:
            # the spinner's U and D arms open together once L and R each hold a tile; empty, they show
            # the spinner and do not count for headers (so this very play's header counts L and R only)
            spinner = self.spinner_number
            self.numbers.update(U=spinner, D=spinner)
            self.double_ends.update(U=True, D=True)
            self.arm_tiles.update(U=0, D=0)
        points = 0
        counting = self.counting_ends()
        if len({self.numbers[e] for e in counting}) == 1:
            value = 3 if any(self.double_ends[e] for e in counting) else 2
            points = cut_header(self.rules, value, self.scores[side_of(self.rules, seat)])
        self._add_points(seat, points)
        self.events.append(
            {"type": "play", "seat": seat, "tile": tile, "end": end, "points": points, "score": list(self.scores)}
        )
        self.moves = []
        if self._reached_target():  # a header may end the match before going out
            return
        if not self.hands[seat]:
            self._go_out(seat)
            return
        self._next_turn()

    # --- what a caller may ask ---------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def left(self) -> int:
        return self.numbers.get("L", -1)

    @property
    def right(self) -> int:
        return self.numbers.get("R", -1)

    def counting_ends(self) -> list[str]:
        """The ends that count for headers: L and R always, U and D once a tile lies on them."""
        return [e for e in self.numbers if e in ("L", "R") or self.arm_tiles[e]]

    def info(self) -> dict:
        """The public layout and scores, as the reference loop's ``choose`` receives them.

        ``phase`` is ``"lead"`` for the any-double lead choice, else ``"play"``;
        ``ends`` maps each open end to its number (empty before the lead).
        """
        return {
            "phase": LEAD if self.phase == LEAD else PLAY,
            "left": self.left,
            "right": self.right,
            "left_double": self.double_ends.get("L", False),
            "right_double": self.double_ends.get("R", False),
            "ends": dict(self.numbers),
            "double_ends": dict(self.double_ends),
            "counting": self.counting_ends(),
            "scores": list(self.scores),
            "hand_number": self.hand_number,
        }

    def out_of_boneyard(self) -> set[str]:
        """Tiles in a hand or on the table this hand: every tile not in the boneyard."""
        held = {t for hand in self.hands for t in hand}
        return held | self.table()

    def table(self) -> set[str]:
        """Tiles on the table this hand: the lead and every play since the last deal."""
        tiles: set[str] = set()
        for event in reversed(self.events):
            if event["type"] == "deal":
                break
            if event["type"] in ("lead", "play"):
                tiles.add(event["tile"])
        return tiles

    # --- the rules that run by themselves -----------------------------------

    def _expect(self, phase: str) -> None:
        if self.phase != phase:
            raise ValueError(f"the match is in phase {self.phase!r}, not {phase!r}")

    def _check_deal(self, hands: list[list[str]], boneyard: list[str] | None) -> None:
        """A deal gives each seat hand_size tiles of the set, and the boneyard (when given) the rest."""
        if len(hands) != self.players or any(len(h) != self.rules["hand_size"] for h in hands):
            raise ValueError(f"a deal gives {self.players} hands of {self.rules['hand_size']} tiles")
        dealt = [t for h in hands for t in h] + list(boneyard or [])
        if (
            len(set(dealt)) != len(dealt)
            or not set(dealt) <= set(self.set_tiles)
            or (boneyard is not None and len(dealt) != len(self.set_tiles))
        ):
            raise ValueError(f"the deal is not the {self.rules['domino_set']} set dealt once")

    def _lead(self, tile: str) -> None:
        """The led double: a double-header for the leader's side (subject to the cut), ends L and R showing it."""
        seat = self.seat
        self.hands[seat].remove(tile)
        number = halves(tile)[0]
        self.spinner_number = number  # the spinner's number, shown by its U and D arms once they open
        self.numbers = {"L": number, "R": number}
        self.double_ends = {"L": True, "R": True}
        self.arm_tiles = {"L": 0, "R": 0}
        self.passes = 0
        points = cut_header(self.rules, 2, self.scores[side_of(self.rules, seat)])
        self._add_points(seat, points)
        self.events.append({"type": "lead", "seat": seat, "tile": tile, "points": points, "score": list(self.scores)})
        self.phase = PLAY  # until the next step says otherwise
        if self._reached_target():
            return
        if not self.hands[seat]:  # hand size 1: the leader goes out on the lead
            self._go_out(seat)
            return
        self._next_turn()

    def _add_points(self, seat: int, points: int) -> None:
        self.scores[side_of(self.rules, seat)] += points

    def _reached_target(self) -> bool:
        """End the match right after the scoring event that reached the target."""
        for side, score in enumerate(self.scores):
            if score >= self.rules["target"]:
                self.events.append({"type": "match_end", "winner": side, "score": list(self.scores)})
                self.phase = OVER
                self.moves = []
                return True
        return False

    def _go_out(self, seat: int) -> None:
        self._add_points(seat, self.rules["out_points"])
        self.events.append(
            {"type": "out", "seat": seat, "points": self.rules["out_points"], "score": list(self.scores)}
        )
        if not self._reached_target():
            self._next_hand()

    def _next_hand(self) -> None:
        self.hand_number += 1
        self.attempt = 0
        self.seat = -1
        self.phase = DEAL

    def _legal(self, hand) -> list[tuple[str, str]]:
        return legal_moves(hand, *(self.numbers.get(end) for end in ENDS))

    def _next_turn(self) -> None:
        """Play passes to the next seat; run on until it must choose (or draw from an open boneyard)."""
        self.seat = (self.seat + 1) % self.players
        self.drawn = 0
        self._offer(self._legal(self.hands[self.seat]))

    def _offer(self, moves: list[tuple[str, str]]) -> None:
        """The seat to move has ``moves``; without any it draws (one tile at a time
        until a drawn tile fits or only the reserve is left) and then passes."""
        if moves:
            self.passes = 0
            self.moves = moves
            self.phase = PLAY
            return
        if self.boneyard_size > self.rules["boneyard_reserve"]:
            if self.boneyard is None:
                self.phase = DRAW
                return
            self._take(self.boneyard[0])
            return
        self.events.append({"type": "pass", "seat": self.seat})
        self.passes += 1
        if self.passes == self.players:
            winner = settle_blocked(self.rules, self.hands)
            points = 0 if winner is None else self.rules["blocked_points"]
            if winner is not None:
                self.scores[winner] += points
            self.events.append({"type": "blocked", "winner": winner, "points": points, "score": list(self.scores)})
            if not self._reached_target():
                self._next_hand()
            return
        self._next_turn()

    def _take(self, tile: str) -> None:
        """The seat to move draws ``tile``; a drawn playable tile is the only one, so only its ends are offered."""
        if self.boneyard is not None:
            self.boneyard.remove(tile)
        self.boneyard_size -= 1
        self.hands[self.seat].append(tile)
        self.drawn += 1
        self.events.append({"type": "draw", "seat": self.seat, "tile": tile})
        self._offer(self._legal([tile]))


def play_match_reference(
    rules: dict,
    deal_source,
    choose,
    *,
    match_index: int = 0,
    seed: int = 0,
    policies: list[str] | None = None,
    format: str = FORMAT,
) -> list[dict]:
    """Play one match and return its trace events (``bergen-trace/2``, or ``format``).

    ``deal_source(hand_number, attempt)`` returns ``(hands, boneyard)``;
    ``attempt`` counts redeals of that hand from 0.  ``choose(seat, hand,
    moves, info)`` returns one of ``moves``; it is called for every play after
    the lead, forced ones included, so a scripted policy stays in step, and
    with ``lead = any-double`` for every lead (``info["phase"] == "lead"``,
    moves ``(double, "L")``).
    """
    state = MatchState(rules, match_index=match_index, seed=seed, policies=policies, format=format)
    while not state.is_over:
        if state.phase == DEAL:
            state.deal(*deal_source(state.hand_number, state.attempt))
            continue
        move = choose(state.seat, list(state.hands[state.seat]), list(state.moves), state.info())
        tile, end = tuple(move)
        if state.phase == LEAD:
            state.lead(tile)
        else:
            state.play(tile, end)
    return state.events


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
            raise ValueError(
                f"asked for hand {hand_number} attempt {attempt}, recorded hand {hand} attempt {recorded_attempt}"
            )
        return [list(h) for h in hands], list(boneyard)

    return deal_source


def moves_from_trace(events: list[dict]) -> Callable:
    """A scripted ``choose`` making one match's recorded decisions in order.

    The decisions are its ``play`` events and, when the match's rules lead
    ``any-double``, its ``lead`` events (the leader's choice of double).  A
    call asking for a lead when a play is next (or the other way round) fails
    loudly: the replay has drifted out of step.
    """
    head = events[0] if events and events[0]["type"] == "match" else {"rules": {}}
    chosen_leads = head["rules"].get("lead") == "any-double"
    queue = iter(
        [
            (e["type"], (e["tile"], "L" if e["type"] == "lead" else e["end"]))
            for e in events
            if e["type"] == "play" or (chosen_leads and e["type"] == "lead")
        ]
    )

    def choose(seat, hand, moves, info):
        try:
            kind, move = next(queue)
        except StopIteration:
            raise ValueError("no recorded move left") from None
        if kind != info.get("phase", PLAY):
            raise ValueError(f"asked for a {info.get('phase', PLAY)} decision, the recording's next one is a {kind}")
        return move

    return choose


def replay_reference(recorded: list[dict]) -> list[dict]:
    """Replay one recorded match (its ``match`` event first) through the reference engine; returns its events.

    The recorded deals and decisions go in, the events are the reference's
    own, written in the recording's format: a valid recording comes back equal.
    """
    head = recorded[0]
    return play_match_reference(
        head["rules"],
        deals_from_trace(recorded),
        moves_from_trace(recorded),
        match_index=head["match"],
        seed=head["seed"],
        policies=head["policies"],
        format=head["format"],
    )


def random_deal_source(rng: random.Random, players: int, hand_size: int, max_number: int = 6) -> Callable:
    """Shuffle the double-``max_number`` set; deal ``hand_size`` each in seat order; the rest is the boneyard."""

    def deal_source(hand_number: int, attempt: int):
        tiles = tile_names(max_number)
        rng.shuffle(tiles)
        hands = [tiles[i * hand_size : (i + 1) * hand_size] for i in range(players)]
        return hands, tiles[players * hand_size :]

    return deal_source


def random_choose(rng: random.Random) -> Callable:
    """A uniform-random policy over the offered moves (with ``any-double``: uniform over the leader's doubles)."""

    def choose(seat, hand, moves, info):
        return rng.choice(moves)

    return choose
