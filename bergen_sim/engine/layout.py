"""The engine's data layout, documented in one place.

Everything the compiled engine touches is a plain integer or a NumPy array of
integers; this module names every position in those arrays so that no other
module uses a bare index.

Tiles and hands
---------------
A double-six set has 28 tiles ``a-b`` with ``0 <= a <= b <= 6``.  Tile index
``t`` orders them lexicographically by ``(a, b)``::

    0:0-0  1:0-1 ... 6:0-6  7:1-1  8:1-2 ... 27:6-6

A *hand* (or any set of tiles) is an ``int64`` bitmask with bit ``t`` set when
tile ``t`` is in it.  ``NUMBER_MASK[n]`` is the set of tiles showing ``n`` on
either half, so the playable tiles of a hand on ends ``(x, y)`` are
``hand & (NUMBER_MASK[x] | NUMBER_MASK[y])``.

Rules vector (``R_*``)
----------------------
:class:`bergen_sim.rules.Rules` becomes an ``int64`` vector of length
``R_SIZE`` for the kernel (enumerations as the ``LEAD_*`` / ``SETTLE_*`` codes).

Policy view (``V_*``)
---------------------
An ``int64`` vector the kernel maintains incrementally and hands to a policy.
It holds exactly what the deciding seat may know (see ``docs/policies.md``):
its own hand, the ends, every played tile and who played it, scores, hand
sizes, the boneyard size and, per seat, the numbers it is known to be void in
plus a log of the moments it drew or passed.  It never holds another hand or
the boneyard order.

Moves
-----
A legal move is ``(tile, end)`` with ``end`` ``END_L`` (0) or ``END_R`` (1).
The kernel lists them in two arrays ordered by tile index, L before R; a tile
that fits both ends is listed twice.

Trace rows (``T_*``)
--------------------
When tracing, the kernel appends one ``int64`` row of width ``T_WIDTH`` per
event; :mod:`bergen_sim.trace` turns them into ``bergen-trace/1`` JSON.  A deal
row carries the 28-tile deal (hands in seat order, then the boneyard) in
columns ``T_DEAL ...``.

Totals (``S_*``), match rows (``M_*``) and hand rows (``H_*``)
----------------------------------------------------------------
Counters summed over a run (integers, so chunked runs merge exactly), one row
per match and, when asked, one row per hand with the hand's end state.
"""

from __future__ import annotations

import numpy as np

# --- tiles ------------------------------------------------------------------
N_TILES = 28
N_NUMBERS = 7
MAX_SEATS = 4

TILE_LO = np.array([a for a in range(7) for b in range(a, 7)], dtype=np.int64)
TILE_HI = np.array([b for a in range(7) for b in range(a, 7)], dtype=np.int64)
TILE_PIPS = TILE_LO + TILE_HI
TILE_NAMES = tuple(f"{a}-{b}" for a, b in zip(TILE_LO.tolist(), TILE_HI.tolist()))
TILE_INDEX = {name: t for t, name in enumerate(TILE_NAMES)}
#: tile index of the double ``n-n``
DOUBLE_TILE = np.array([TILE_INDEX[f"{n}-{n}"] for n in range(7)], dtype=np.int64)
#: bitmask of all seven doubles
DOUBLE_MASK = int(sum(1 << int(t) for t in DOUBLE_TILE))
#: NUMBER_MASK[n]: bitmask of the tiles showing n on either half
NUMBER_MASK = np.array(
    [sum(1 << t for t in range(N_TILES) if n in (TILE_LO[t], TILE_HI[t])) for n in range(7)],
    dtype=np.int64,
)
FULL_SET = (1 << N_TILES) - 1

END_L = 0
END_R = 1
END_NAMES = ("L", "R")
#: most legal moves a hand can have: 13 tiles show one of two numbers, each on up to 2 ends
MAX_MOVES = 32

# --- rules vector -----------------------------------------------------------
R_PLAYERS = 0
R_PARTNERSHIPS = 1
R_HAND_SIZE = 2
R_TARGET = 3
R_LEAD = 4
R_SETTLEMENT = 5
R_BLOCKED_POINTS = 6
R_OUT_POINTS = 7
R_RESERVE = 8
R_REDUCED = 9
R_SIZE = 10

LEAD_LOWEST = 0
LEAD_HIGHEST = 1
LEAD_NAMES = ("lowest-double", "highest-double")

SETTLE_GERMAN = 0
SETTLE_PIPS = 1
SETTLE_AMERICAN = 2
SETTLEMENT_NAMES = ("german", "pips", "american")

# --- policy view ------------------------------------------------------------
V_SEAT = 0  # the deciding seat
V_SIDE = 1  # its side
V_PLAYERS = 2
V_PARTNERSHIPS = 3
V_TARGET = 4
V_RESERVE = 5  # boneyard tiles that are never drawn
V_HAND = 6  # the deciding seat's own hand (bitmask)
V_LEFT = 7  # number showing on the left end
V_RIGHT = 8
V_LEFT_DOUBLE = 9  # 1 when the left end is a double end
V_RIGHT_DOUBLE = 10
V_PLAYED = 11  # bitmask of every tile on the table (the lead included)
V_BONEYARD = 12  # tiles left in the boneyard
V_HAND_NO = 13  # hand number in the match (1-based)
V_PLAY_NO = 14  # plays after the lead so far in this hand
V_LEADER = 15  # seat that led this hand
V_OUT_POINTS = 16
V_BLOCKED_POINTS = 17
V_SETTLEMENT = 18
V_REDUCED = 19
V_SCORE = 20  # + side: side scores (4 slots)
V_PLAYED_BY = 24  # + seat: bitmask of the tiles that seat has played this hand
V_HAND_COUNT = 28  # + seat: tiles in that seat's hand
V_VOID = 32  # + seat: 7-bit mask of numbers that seat surely holds none of now
V_LOG_N = 36  # number of draw/pass moments logged this hand
V_LOG = 37  # + 4*k: (seat, left, right, tiles drawn) of the k-th moment
V_LOG_CAPACITY = 160
V_SIZE = V_LOG + 4 * V_LOG_CAPACITY

# --- trace rows -------------------------------------------------------------
EV_MATCH = 0
EV_DEAL = 1
EV_REDEAL = 2
EV_LEAD = 3
EV_DRAW = 4
EV_PLAY = 5
EV_PASS = 6
EV_OUT = 7
EV_BLOCKED = 8
EV_MATCH_END = 9
EVENT_NAMES = ("match", "deal", "redeal", "lead", "draw", "play", "pass", "out", "blocked", "match_end")

T_TYPE = 0
T_MATCH = 1
T_HAND = 2
T_SEAT = 3
T_TILE = 4
T_END = 5
T_POINTS = 6
T_WINNER = 7  # side, or -1 for none
T_SCORE = 8  # + side (4 slots)
T_DEAL = 12  # + k: the 28 tiles of a deal (hands in seat order, then boneyard)
T_WIDTH = T_DEAL + N_TILES

# --- totals -----------------------------------------------------------------
S_MATCHES = 0
S_HANDS = 1
S_REDEALS = 2
S_PLAYS = 3
S_DRAWS = 4
S_PASSES = 5
S_DOUBLE_HEADERS = 6
S_TRIPLE_HEADERS = 7
S_BLOCKED_HANDS = 8
S_OUT_HANDS = 9
S_POINTS_LEAD = 10
S_POINTS_HEADER = 11
S_POINTS_OUT = 12
S_POINTS_BLOCKED = 13
S_DECIDED_HANDS = 14
S_LEADER_SIDE_WINS = 15
S_MATCH_WINS = 16  # + side (4 slots)
S_POLICY_CALLS = 20
S_DOUBLE_HEADERS_SQ = 21  # sum over hands of (double headers in the hand)^2, for intervals
S_TRIPLE_HEADERS_SQ = 22
S_HANDS_SQ = 23  # sum over matches of (hands in the match)^2
#: S_HEADERS_BY_PLAY + 2*p + k: headers of kind k (0 double, 1 triple) on play p (1-based, capped)
S_HEADERS_BY_PLAY = 24
MAX_PLAY_NO = 28
S_SIZE = S_HEADERS_BY_PLAY + 2 * (MAX_PLAY_NO + 1)


# --- match rows -------------------------------------------------------------
M_MATCH = 0
M_WINNER = 1
M_SCORE = 2  # + side (4 slots, -1 for sides that do not exist)
M_HANDS = 6
M_REDEALS = 7
M_FIRST_LEADER = 8
M_DOUBLE_HEADERS = 9
M_TRIPLE_HEADERS = 10
M_PLAYS = 11
M_DRAWS = 12
M_BLOCKED_HANDS = 13
M_WIDTH = 14

# --- hand rows --------------------------------------------------------------
H_MATCH = 0
H_HAND = 1
H_LEADER = 2
H_LED_DOUBLE = 3  # the number of the led double
H_END = 4  # HAND_OUT, HAND_BLOCKED or HAND_CUT (the match ended inside the hand)
H_WINNER = 5  # side that went out or won the settlement, -1 for none
H_SEAT_POINTS = 6  # + seat: points of that seat's lead, headers and going out (a settlement's go to side H_WINNER)
H_DOUBLE_HEADERS = 10
H_TRIPLE_HEADERS = 11
H_PLAYS = 12
H_DRAWS = 13
H_PASSES = 14
H_REDEALS = 15
H_SIDE_DOUBLES = 16  # + side: doubles left in the side's hands at the end
H_SIDE_PIPS = 20  # + side: pips left, doubles included
H_SIDE_PLAIN_PIPS = 24  # + side: pips left on non-double tiles
H_SCORE_BEFORE = 28  # + side: scores when the hand was dealt
H_WIDTH = 32

HAND_OUT = 0
HAND_BLOCKED = 1
HAND_CUT = 2

# --- kernel error slots -----------------------------------------------------
E_CODE = 0
E_MATCH = 1
E_SEAT = 2
E_POLICY = 3
E_CHOICE = 4
E_N_MOVES = 5
E_HAND = 6
E_LEFT = 7
E_RIGHT = 8
E_SIZE = 9

ERR_NONE = 0
ERR_ILLEGAL_CHOICE = 1  # a policy returned an index outside the legal moves
ERR_SCRIPT = 2  # a replayed move is not legal in the replayed position
ERR_SCRIPT_SHORT = 3  # the replay script ran out of moves
ERR_DEALS_SHORT = 4  # the given deals ran out
ERR_TRACE_FULL = 5  # the trace buffer is too small


def tile_mask(names) -> int:
    """Bitmask of the named tiles (``["0-0", "3-5"]`` -> ``0b...``)."""
    mask = 0
    for name in names:
        mask |= 1 << TILE_INDEX[name]
    return mask


def mask_tiles(mask: int) -> list[str]:
    """Names of the tiles in a bitmask, in tile-index order."""
    return [TILE_NAMES[t] for t in range(N_TILES) if mask >> t & 1]
