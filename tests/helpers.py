"""Helpers shared by the engine tests: hand-built deals, compiled replays, a trace checker.

The test modules import them as ``from tests.helpers import ...``: ``tests`` is a
package, so pytest puts the project root on ``sys.path`` (no path edits needed).

:func:`walk_match` is an independent reading of a match's events: it moves
every tile between hands, boneyard and line, asserts the invariants RULES.md
promises (tiles conserved, draws only above the reserve, scores never fall,
the match ends exactly when a side reaches the target) and counts what
``simulate`` counts, so a trace can be checked against a summary.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st

from bergen_sim.engine import layout as L
from bergen_sim.engine.layout import DOMINO_SETS
from bergen_sim.model.rules import Rules
from bergen_sim.services.execution.jobs import engine_for
from bergen_sim.services.files.trace import rows_to_events, split_matches
from tests.oracle import play_match_reference, random_choose, random_deal_source, replay_reference

#: the summary's integer counters that a trace determines
COUNT_KEYS = (
    "matches",
    "hands",
    "redeals",
    "plays",
    "draws",
    "passes",
    "double_headers",
    "triple_headers",
    "blocked_hands",
    "out_hands",
    "decided_hands",
    "leader_side_hand_wins",
)
POINT_SOURCES = ("lead", "header", "out", "blocked")


def deal(*hands: Sequence[str], boneyard: Sequence[str] = (), domino_set: str = "double-six") -> list[int]:
    """A whole deal of the set: the hands in seat order, then ``boneyard``, then every other tile in index order."""
    named = [t for hand in hands for t in hand] + list(boneyard)
    assert len(set(named)) == len(named), f"tile dealt twice in {named}"
    tiles = L.TILE_NAMES[: L.set_size(L.DOMINO_SETS[domino_set])]
    rest = [t for t in tiles if t not in named]
    return [L.TILE_INDEX[t] for t in named + rest]


def compiled_events(
    rules: Rules, deals: Sequence[Sequence[int]], script: Sequence[tuple[str, str]] = (), seed: int = 0, match: int = 0
) -> list[dict[str, Any]]:
    """Events of one match played by the compiled engine on given deals.

    ``script`` lists every play after the lead as ``(tile, end)``; without it the
    ``first`` policy chooses.
    """
    engine = engine_for(rules, ("first",) * rules.players)
    moves = np.array([[L.TILE_INDEX[t], L.END_NAMES.index(e)] for t, e in script], dtype=np.int64)
    rows = engine.trace_rows(
        seed, match, 1, deals=np.array(deals, dtype=np.int64), script=moves if len(moves) else None
    )
    return rows_to_events(rows, rules, engine.policy_names, seed)


_HALVES = {name: (int(lo), int(hi)) for name, lo, hi in zip(L.TILE_NAMES, L.TILE_LO, L.TILE_HI)}


def _halves(tile: str) -> tuple[int, int]:
    return _HALVES[tile]


def _fits(tile: str, number: int) -> bool:
    return number in _HALVES[tile]


def walk_match(events: list[dict[str, Any]], rules: Rules, per_hand: list[Counter] | None = None) -> Counter:
    """Check one match's events against the invariants; return its summary counts.

    With ``per_hand`` a list, one Counter per hand is appended to it (its
    leader, redeals, plays, draws, passes, headers, out/blocked/decided hands,
    leader_side_hand_wins, how it ended (``end``, ``winner`` as in hand rows)
    and ``seat_points_<seat>``: each seat's lead, header and going-out points),
    for per-hand statistics and hand rows.
    """
    sides, players, target = rules.sides, rules.players, rules.target
    counts: Counter = Counter(matches=1)
    hand_counts: Counter = Counter()

    def bump(key: str, n: int = 1) -> None:
        counts[key] += n
        hand_counts[key] += n

    assert events[0]["type"] == "match" and Rules.from_trace(events[0]["rules"]) == rules
    score = [0] * sides
    hands: list[list[str]] = []
    boneyard: list[str] = []
    line: list[str] = []
    ends = None  # open end -> (number, double end) once led: L and R, U and D once the spinner's arms open
    arms: dict[str, int] = {}  # open end -> tiles played on it
    hand_no = 0
    redealt = False
    passes = 0
    leader_side = -1
    turn = -1  # the seat whose turn it is
    ended = False
    for k, ev in enumerate(events[1:], 1):
        kind = ev["type"]
        assert not ended, f"event {k} after match_end"
        if "score" in ev:
            new = ev["score"]
            assert len(new) == sides
            rises = [new[s] - score[s] for s in range(sides)]
            assert min(rises) >= 0, f"event {k}: a score fell"
            assert sum(1 for r in rises if r) <= 1, f"event {k}: two sides scored at once"
            assert sum(rises) == ev.get("points", 0), f"event {k}: points do not match the score change"
            score = list(new)
            if kind != "match_end":
                # every event but the match end leaves all sides short of the target unless the next one ends it
                reached = max(score) >= target
                assert reached == (events[k + 1]["type"] == "match_end"), f"event {k}: match end misplaced"
        if kind == "deal":
            tiles = [t for h in ev["hands"] for t in h] + ev["boneyard"]
            assert sorted(L.TILE_INDEX[t] for t in tiles) == list(range(rules.n_tiles)), "deal is not a permutation"
            assert [len(h) for h in ev["hands"]] == [rules.hand_size] * players
            assert ev["hand"] == (hand_no if redealt else hand_no + 1)
            if not redealt:  # a new hand (a redeal's deal belongs to the hand it replaces)
                counts["hands"] += 1
                hand_counts = Counter(leader=-1, winner=-1, end=L.HAND_CUT)
                if per_hand is not None:
                    per_hand.append(hand_counts)
            hand_no, redealt = ev["hand"], False
            hands = [list(h) for h in ev["hands"]]
            boneyard, line, ends, passes = list(ev["boneyard"]), [], None, 0
        elif kind == "redeal":
            assert ev["hand"] == hand_no and ends is None
            assert not any(_halves(t)[0] == _halves(t)[1] for h in hands for t in h), "redeal with a double dealt"
            redealt = True
            bump("redeals")
        elif kind == "lead":
            doubles = [t for h in hands for t in h if _halves(t)[0] == _halves(t)[1]]
            if rules.lead == "any-double":  # the first seat from the opening seat holding a double leads one
                opening = (hand_no - 1) % players
                holders = [(opening + j) % players for j in range(players)]
                leader = next(s for s in holders if any(_halves(t)[0] == _halves(t)[1] for t in hands[s]))
                assert ev["seat"] == leader and _halves(ev["tile"])[0] == _halves(ev["tile"])[1]
            else:
                pick = min if rules.lead == "lowest-double" else max
                assert ev["tile"] == pick(doubles, key=L.TILE_INDEX.__getitem__)
            assert ev["tile"] in hands[ev["seat"]]
            hands[ev["seat"]].remove(ev["tile"])
            line.append(ev["tile"])
            n = _halves(ev["tile"])[0]
            ends, arms = {"L": (n, True), "R": (n, True)}, {"L": 0, "R": 0}
            turn, leader_side = ev["seat"], rules.side_of(ev["seat"])
            hand_counts["leader"] = ev["seat"]
            hand_counts[f"seat_points_{ev['seat']}"] += ev["points"]
            counts["points_lead"] += ev["points"]
        elif kind == "draw":
            turn_seat = ev["seat"]
            assert turn_seat == (turn + 1) % players, f"event {k}: out of turn"
            assert ends is not None and not any(_fits(t, e[0]) for t in hands[turn_seat] for e in ends.values())
            assert len(boneyard) > rules.boneyard_reserve, f"event {k}: draw at or below the reserve"
            assert boneyard[0] == ev["tile"], "drawn out of the boneyard's order"
            hands[turn_seat].append(boneyard.pop(0))
            bump("draws")
        elif kind == "play":
            seat, tile, end = ev["seat"], ev["tile"], ev["end"]
            assert seat == (turn + 1) % players, f"event {k}: out of turn"
            assert end in ends, f"event {k}: end {end} is not open"
            assert tile in hands[seat] and _fits(tile, ends[end][0]), f"event {k}: illegal play"
            hands[seat].remove(tile)
            line.append(tile)
            a, b = _halves(tile)
            ends[end] = (b if a == ends[end][0] else a, a == b)
            arms[end] += 1
            if rules.spinner and "U" not in ends and arms["L"] and arms["R"]:  # the spinner's arms open, empty
                spinner = _halves(line[0])[0]
                ends.update(U=(spinner, True), D=(spinner, True))
                arms.update(U=0, D=0)
            counting = [ends[e] for e in ends if e in ("L", "R") or arms[e]]
            if len({number for number, _ in counting}) == 1:
                bump("triple_headers" if any(double for _, double in counting) else "double_headers")
                assert ev["points"] > 0
            else:
                assert ev["points"] == 0
            counts["points_header"] += ev["points"]
            hand_counts[f"seat_points_{seat}"] += ev["points"]
            bump("plays")
            turn, passes = seat, 0
        elif kind == "pass":
            seat = ev["seat"]
            assert seat == (turn + 1) % players, f"event {k}: out of turn"
            assert not any(_fits(t, e[0]) for t in hands[seat] for e in ends.values()), f"event {k}: pass with a move"
            assert len(boneyard) <= rules.boneyard_reserve, f"event {k}: pass with tiles left to draw"
            turn, passes = seat, passes + 1
            bump("passes")
            assert (passes == players) == (events[k + 1]["type"] == "blocked"), f"event {k}: block misplaced"
        elif kind == "out":
            assert hands[ev["seat"]] == [] and ev["points"] == rules.out_points
            bump("out_hands")
            bump("decided_hands")
            bump("leader_side_hand_wins", rules.side_of(ev["seat"]) == leader_side)
            counts["points_out"] += ev["points"]
            hand_counts[f"seat_points_{ev['seat']}"] += ev["points"]
            hand_counts["winner"], hand_counts["end"] = rules.side_of(ev["seat"]), L.HAND_OUT
        elif kind == "blocked":
            assert passes == players, "blocked without a pass from every seat"
            assert ev["points"] == (0 if ev["winner"] is None else rules.blocked_points)
            bump("blocked_hands")
            if ev["winner"] is not None:
                bump("decided_hands")
                bump("leader_side_hand_wins", ev["winner"] == leader_side)
            counts["points_blocked"] += ev["points"]
            hand_counts["end"] = L.HAND_BLOCKED
            hand_counts["winner"] = -1 if ev["winner"] is None else ev["winner"]
        elif kind == "match_end":
            assert ev["score"] == score and score[ev["winner"]] >= target
            counts[f"wins_{ev['winner']}"] += 1
            ended = True
        else:
            raise AssertionError(f"unknown event type {kind!r}")
        # conservation: every tile is in exactly one hand, the boneyard or the line.  Each move above
        # takes its tile from where it must be, so counting suffices between the full checks at hand ends.
        if hands:
            assert sum(map(len, hands)) + len(boneyard) + len(line) == rules.n_tiles, f"event {k}: tiles not conserved"
            if kind in ("out", "blocked", "match_end"):
                held = {t for h in hands for t in h} | set(boneyard) | set(line)
                assert len(held) == rules.n_tiles, f"event {k}: tiles not conserved"
    assert ended, "match has no match_end"
    return counts


def trace_summary(events: Iterable[dict[str, Any]], rules: Rules) -> dict[str, Any]:
    """Walk every match of a trace and return its counts in the shape of ``simulate``'s summary."""
    total: Counter = Counter()
    for match in split_matches(events):
        total += walk_match(match, rules)
    summary = {key: total[key] for key in COUNT_KEYS}
    summary["points_by_source"] = {src: total[f"points_{src}"] for src in POINT_SOURCES}
    summary["match_wins"] = [total[f"wins_{side}"] for side in range(rules.sides)]
    return summary


def summary_counts(summary: dict[str, Any]) -> dict[str, Any]:
    """The part of a ``simulate`` summary that :func:`trace_summary` reproduces."""
    counts = {key: summary[key] for key in COUNT_KEYS}
    counts["points_by_source"] = dict(summary["points_by_source"])
    counts["match_wins"] = list(summary["match_wins"])
    return counts


# --- differential testing: the reference engine against another engine's traces ------------------------
#
# Two directions, both event for event (key order included):
#
# * another engine's trace -> the reference: ``assert_reference_agrees(events)`` replays every match of a
#   trace (e.g. ``bergen_sim.services.files.trace.generate(Engine(rules, ["random"]), seed, 0, n)``) through the reference
#   engine with the recorded deals and decisions (plays, and any-double lead choices); the reference's own
#   leads, draws, passes, points, scores, settlements and match end must be the recorded ones;
# * the reference's matches -> another engine: ``reference_matches(rules, n, seed=...)`` plays n matches
#   with random deals and uniform-random decisions; feed each to the other engine's replay (for the
#   compiled engine ``bergen_sim.services.files.trace.replay_match``) and compare with ``assert_same_events``.


def assert_same_events(produced: Sequence[dict[str, Any]], recorded: Sequence[dict[str, Any]], label: str = "") -> None:
    """Two matches' events are identical, key order included; the message names the first difference."""
    for k, (got, want) in enumerate(zip(produced, recorded)):
        assert json.dumps(got) == json.dumps(want), f"{label} event {k}: {json.dumps(got)} != {json.dumps(want)}"
    assert len(produced) == len(recorded), f"{label}: {len(produced)} events produced, {len(recorded)} recorded"


def assert_reference_agrees(events: Iterable[dict[str, Any]]) -> int:
    """Replay every match of a trace through the reference engine and check it event for event; returns matches."""
    count = 0
    for recorded in split_matches(events):
        assert_same_events(replay_reference(recorded), recorded, f"match {recorded[0]['match']}")
        walk_match(recorded, Rules.from_trace(recorded[0]["rules"]))
        count += 1
    return count


def reference_matches(
    rules: Rules,
    n_matches: int,
    *,
    seed: int = 0,
    first_match: int = 0,
    deals: Callable[[int], Callable] | None = None,
    choices: Callable[[int], Callable] | None = None,
    policies: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Events (``bergen-trace/2``) of ``n_matches`` matches of ``rules`` played by the reference engine.

    ``deals(match)`` gives match ``match``'s deal source ``(hand, attempt) ->
    (hands, boneyard)`` and ``choices(match)`` its ``choose(seat, hand, moves,
    info)`` (see :func:`tests.oracle.play_match_reference`); by default
    both are uniform random from ``random.Random`` seeded by ``(seed, match)``,
    so a match is the same whichever batch it is played in.
    """
    events: list[dict[str, Any]] = []
    for match in range(first_match, first_match + n_matches):
        rng = random.Random(f"{seed}/{match}")
        source = deals(match) if deals else random_deal_source(rng, rules.players, rules.hand_size, rules.max_number)
        choose = choices(match) if choices else random_choose(rng)
        events += play_match_reference(
            rules.to_dict(),
            source,
            choose,
            match_index=match,
            seed=seed,
            policies=list(policies or ["uniform-random"] * rules.players),
        )
    return events


def deal_keyed_hand(rv: np.ndarray, b, deal: np.ndarray, n_tiles: int, seed: int, match: int, hand_no: int) -> int:
    """Deal hand ``hand_no`` of ``match`` into the hand buffers ``b`` (whose boneyard is ``deal``) as the engine
    deals it from ``seed``: redealt until a hand holds a double; returns ``start_hand``'s result."""
    from bergen_sim.engine.hand import REDEAL, start_hand
    from bergen_sim.engine.keyed_random import shuffled_set, stream_state

    deal_rng = np.zeros(1, dtype=np.uint64)
    attempt = 0
    while True:
        deal_rng[0] = stream_state(np.uint64(seed), match, hand_no, attempt)
        shuffled_set(deal_rng, deal, n_tiles)
        ended = start_hand(rv, b, hand_no)
        if ended != REDEAL:
            return ended
        attempt += 1


def line_view(left: int, right: int, rules: Rules | None = None) -> np.ndarray:
    """A policy view of a line (no spinner) whose open ends show ``left`` and ``right``."""
    from bergen_sim.engine.view import view_start_match

    view = np.zeros(L.V_SIZE, dtype=np.int64)
    view_start_match(view, (rules or Rules.make(players=2)).to_array())
    view[L.V_LEFT], view[L.V_RIGHT] = left, right
    view[L.V_OPEN_ENDS] = 2
    view[L.V_COUNTING] = (1 << L.END_L) | (1 << L.END_R)
    return view


def ctrl_c_as_on_a_terminal() -> None:
    """``preexec_fn`` for a CLI subprocess that must see Ctrl-C (SIGINT) as a terminal user's would.

    A shell running this suite in the background (``pytest &``, ``nohup``) starts it with SIGINT
    ignored, every child inherits that, and the CLI rightly leaves an ignored Ctrl-C alone; a test
    that sends SIGINT restores the default first.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def assert_halts_soon(run: Callable[[np.ndarray], Any], *, after_s: float, within_s: float = 5.0) -> None:
    """Start ``run(flag)`` (a chunk that would take minutes) in a thread, raise the halt flag after
    ``after_s`` seconds and assert the chunk raised :class:`Halted` within ``within_s`` seconds of it."""
    import threading
    import time

    from bergen_sim.runtime.runner import Halted, halt_flag

    flag = halt_flag()
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["result"] = run(flag)
        except Halted as exc:
            outcome["halted"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    time.sleep(after_s)
    asked = time.perf_counter()
    flag[0] = 1
    thread.join(timeout=60)
    assert not thread.is_alive() and "halted" in outcome, "the chunk did not stop on the halt flag"
    assert time.perf_counter() - asked < within_s


def only_compile_notices(err: str) -> bool:
    """Whether stderr holds nothing but compile notices (said off a terminal too: a cold cache compiles)."""
    return all(line.startswith("compiling ") for line in err.splitlines())


def error_lines(err: str) -> list[str]:
    """The lines of ``err`` but the compile notices, which a cold compile cache adds wherever stderr goes."""
    return [line for line in err.splitlines() if not line.startswith("compiling ")]


#: English words that must not be left in text a Danish player reads (command lines, option names, policy
#: names, move notation and setting values are the same in every language; english_left takes them out first)
ENGLISH_WORDS = (
    "you ",
    "your ",
    "seat",
    "hand ",
    "hands",
    "match ",
    "wins",
    "win ",
    "tile",
    "boneyard",
    "scores",
    "target",
    "pass",
    "goes out",
    "blocked",
    "draws",
    "plays",
    "leads",
    "double ",
    "points",
    "the ",
    " and ",
    " of ",
    " with ",
    "saved",
    "review it",
    "decision",
    "loss",
    "verdict",
    "best",
    "error",
    "blunder",
    "unclear",
    "player",
    "Rules",
    "Findings",
    "Method",
    "Tables",
    "Figures",
    "Key findings",
)


def english_left(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The words of ENGLISH_WORDS in ``text`` once what stays English in every language is taken out: command
    lines, backquoted code, option names, file names (and ``allowed``)."""
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"bergen-sim [^\n]*", "", text)
    text = re.sub(r"--[a-z-]+", "", text)
    text = re.sub(r"\S+\.(?:jsonl|md|png|svg|parquet|json)\b", "", text)
    for word in allowed:
        text = text.replace(word, "")
    return [word for word in ENGLISH_WORDS if word in text]


def schema_validator(name: str):
    """A validator of the JSON output ``name`` (``simulate``, ``compare``, ...) against its schema shipped in
    ``bergen_sim/schemas``, the other schema files (the estimate's, the provenance's) registered for its ``$ref``."""
    from importlib import resources

    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    from bergen_sim.core.estimate import schema

    folder = resources.files("bergen_sim").joinpath("schemas")
    registry = Registry().with_resources(
        (path.name, Resource.from_contents(json.loads(path.read_text())))
        for path in folder.iterdir()
        if path.name.endswith(".schema.json")
    )
    Draft202012Validator.check_schema(schema(name))
    return Draft202012Validator(schema(name), registry=registry)


@st.composite
def rule_books(draw) -> Rules:
    """Any rules the rule book allows: every set, spinner on or off, 2-8 players, partnerships, each lead and
    settlement (hand sizes up to 7 and targets up to 12, so that a match is short)."""
    domino_set = draw(st.sampled_from(list(DOMINO_SETS)))
    players = draw(st.integers(2, 8))
    partnerships = players in (4, 6, 8) and draw(st.booleans())
    tiles = Rules(domino_set=domino_set).n_tiles
    reserve = draw(st.integers(0, 3))
    most = (tiles - reserve) // players
    if most < 1:
        reserve, most = 0, tiles // players
    hand_size = draw(st.integers(1, min(most, 7)))
    return Rules.make(
        players=players,
        partnerships=partnerships,
        domino_set=domino_set,
        spinner=draw(st.booleans()),
        hand_size=hand_size,
        boneyard_reserve=reserve,
        target=draw(st.integers(1, 12)),
        lead=draw(st.sampled_from(["lowest-double", "highest-double", "any-double"])),
        settlement=draw(st.sampled_from(["german", "pips", "american"])),
        reduced_headers=draw(st.booleans()),
    )
