"""``bergen-sim play``: play a match in the terminal against the built-in players.

The match is a :class:`bergen_sim.services.game.Game` (the compiled engine's keyed
deals for the seed, the compiled policies for the other seats).  Before each
of your moves the table is shown: the line of tiles with its ends, your hand,
the scores, every seat's tile count, the boneyard, and your legal moves
numbered, a tile that fits two ends that look alike listed once (the two
moves are one move seen in a mirror, ``position.mirror_moves``).  Type a
number (or the move itself, ``3-5 L``), ``h`` for a hint (the ``analyze``
ranking of your moves from what you know, numbered as the menu is), ``u`` to
take back your last move or ``q`` to stop.  A forced move (one move on the
menu) is played for you unless ``--no-auto-forced``.  The trace is written
after every move, so the file always holds the match so far; a finished
match replays like the golden traces (``bergen_sim.services.files.trace.replay_match``).
"""

from __future__ import annotations

import io
import random
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bergen_sim.cli.bounds import SEED, Bounded
from bergen_sim.cli.options import with_rules
from bergen_sim.core.errors import BergenError, PolicyError, one_line, shown
from bergen_sim.core.i18n import N_, tr, trn, trp
from bergen_sim.core.limits import MAX_MATCH_INDEX, foreign_digit, short_number, whole_number
from bergen_sim.model.rules import PLAYER_COUNTS, Rules

if TYPE_CHECKING:  # the game (and Numba) is imported when a match starts, not for `bergen-sim --help`
    from bergen_sim.services.files.output import OutputFile
    from bergen_sim.services.game import Game, Move, View

HUMAN = "human"
DEFAULT_OPPONENT = "expert"
DEFAULT_HINT_WORLDS = 2_000
MOST_HINT_WORLDS = 100_000  # the analyze default: a hint's sample table stays a few MB


def opponent_names(rules: Rules, seat: int, opponents: Sequence[str]) -> list[str]:
    """Policy names per seat, ``human`` at ``seat``: one opponent for every other seat, or one per other seat."""
    from bergen_sim.runtime.registry import resolve

    others = rules.players - 1
    names = list(opponents) or [DEFAULT_OPPONENT]
    if len(names) == 1:
        names = names * others
    if len(names) != others:
        raise PolicyError(
            tr("give one opponent for all other seats or one per other seat ({others}), not {given}").format(
                others=others, given=len(names)
            )
        )
    for name in set(names):
        resolve(name)  # an unknown policy fails here, in one line, before the match starts
    names.insert(seat, HUMAN)
    return names


def _ends(view: View) -> str:
    """``3d | 5``; with the spinner every arm by its end's name, ``*`` for one with no tile yet:
    ``L 4 | R 6 | U * | D *``."""
    from bergen_sim.engine import layout as L

    array = view.array
    spinner = array[L.V_SPINNER] >= 0

    def arm(end: int) -> str:
        if spinner and not array[L.V_END_TILES + end]:
            return "*"
        return f"{array[L.V_END + end]}{'d' if array[L.V_END_DOUBLE + end] else ''}"

    if not spinner:
        return f"{arm(L.END_L)} | {arm(L.END_R)}"
    return " | ".join(f"{name} {arm(end)}" for end, name in enumerate(L.END_NAMES))


#: what ``play`` answers to ``u`` with nothing to take back (translated where it is said)
NOTHING_TO_UNDO = N_("nothing to take back yet: you have not chosen a move this match")


def _trace_needs_a_file(given: str) -> click.BadParameter:
    """The one refusal of a trace target that is not a regular file (``-``, /dev/stdout, a pipe, a terminal)."""
    return click.BadParameter(
        tr(
            "{given}: give the trace a file name (it is rewritten after every move, so it "
            "cannot go to standard output, a device or a pipe)"
        ).format(given=shown(given)),
        param_hint="-o",
    )


class Session:
    """One terminal match: the game, who sits where, what has been told, the trace file, the moves to take back."""

    def __init__(
        self, game: Game, seat: int, policies: list[str], out: OutputFile, hint_worlds: int, auto_forced: bool = True
    ):
        self.game = game
        self.seat = seat
        self.policies = policies
        self.out = out
        self.hint_worlds = hint_worlds
        self.auto_forced = auto_forced
        self.told = 0  # events already narrated
        self.saved = False  # whether the trace file holds this match (so far)
        # before each move you chose: the game as it was, the events told then, and the move
        self.chosen: list[tuple[Game, int, Move]] = []

    def who(self, seat: int) -> str:
        return (
            tr("you")
            if seat == self.seat
            else tr("seat {seat} ({policy})").format(seat=seat, policy=self.policies[seat])
        )

    def is_mine(self, side: int) -> bool:
        """Whether ``side`` is yours (your seat, or your partnership)."""
        return side == self.game.rules.side_of(self.seat)

    def side_name(self, side: int) -> str:
        if self.game.rules.partnerships:
            return tr("your side") if self.is_mine(side) else tr("their side")
        return self.who(side)

    def _says(self, seat: int, yours: str, theirs: str, **fields: Any) -> str:
        """The line ``yours`` when ``seat`` is yours, else ``theirs`` with ``{who}`` the seat: English conjugates
        (``you play``, ``seat 1 (expert) plays``), and every language words the two as it says them."""
        if seat == self.seat:
            return yours.format(**fields)
        return theirs.format(who=self.who(seat), **fields)

    def narrate(self) -> list[str]:
        """Lines for the events since the last call, as this seat may see them (others' draws stay face down)."""
        lines = []
        events = self.game.events
        for event in events[self.told :]:
            line = self._describe(event)
            if line:
                lines.append(line)
        self.told = len(events)
        return lines

    def _header(self, event: dict[str, Any]) -> str:
        """What a scoring lead or play scored: ``double-header`` or ``triple-header``, or ``header`` when the
        near-target cut leaves its points short of telling which (the led double is always a double-header)."""
        rules = self.game.rules
        points = event["points"]
        if event["type"] == "lead":
            return "double-header"
        need = rules.target - (event["score"][rules.side_of(event["seat"])] - points)
        if rules.reduced_headers and need <= 3 and points < 3:
            return "header"
        return "triple-header" if points == 3 else "double-header"

    def _describe(self, event: dict[str, Any]) -> str | None:
        kind = event["type"]
        points = event.get("points", 0)
        plus = f" (+{points})" if points else ""
        if points and kind in ("lead", "play"):  # a header: English gives its points, Danish names it too
            header = self._header(event)
            plus = (
                trp("double-header", " (+{points})")
                if header == "double-header"
                else trp("triple-header", " (+{points})")
                if header == "triple-header"
                else trp("header", " (+{points})")
            ).format(points=points)
        if kind == "deal":
            return tr("-- hand {hand}: you are dealt {tiles}").format(
                hand=event["hand"], tiles=" ".join(event["hands"][self.seat])
            )
        if kind == "redeal":
            return tr("   no hand holds a double: the hand is dealt again")
        seat = event.get("seat", -1)
        if kind == "lead":
            return self._says(
                seat, tr("you lead {tile}{plus}"), tr("{who} leads {tile}{plus}"), tile=event["tile"], plus=plus
            )
        if kind == "draw":
            return self._says(seat, tr("you draw {tile}"), tr("{who} draws a tile"), tile=event["tile"])
        if kind == "play":
            return self._says(
                seat,
                tr("you play {tile} on {end}{plus}"),
                tr("{who} plays {tile} on {end}{plus}"),
                tile=event["tile"],
                end=event["end"],
                plus=plus,
            )
        if kind == "pass":
            return self._says(seat, tr("you pass"), tr("{who} passes"))
        if kind == "out":
            return self._says(seat, tr("you go out{plus}"), tr("{who} goes out{plus}"), plus=plus)
        if kind == "blocked":
            if event["winner"] is None:
                return tr("the hand is blocked: nobody wins the settlement")
            return self._side_says(
                event["winner"],
                tr("the hand is blocked: you win the settlement{plus}"),
                tr("the hand is blocked: your side wins the settlement{plus}"),
                tr("the hand is blocked: {who} wins the settlement{plus}"),
                plus=plus,
            )
        if kind == "match_end":
            return self._side_says(
                event["winner"],
                tr("== you win the match, {scores}"),
                tr("== your side wins the match, {scores}"),
                tr("== {who} wins the match, {scores}"),
                scores=self.score_line(),
            )
        return None

    def _side_says(self, side: int, you: str, your_side: str, theirs: str, **fields: Any) -> str:
        """The line for a side's result: yours (you, or your side in partnerships) or another's (``{who}``)."""
        if self.is_mine(side):
            return (your_side if self.game.rules.partnerships else you).format(**fields)
        return theirs.format(who=self.side_name(side), **fields)

    def score_line(self) -> str:
        return tr("scores {scores}").format(
            scores=", ".join(f"{self.side_name(side)} {score}" for side, score in enumerate(self.game.scores))
        )

    def menu(self) -> list[Move]:
        """Your legal moves in the engine's order, each mirror twin after the first left out (the same move)."""
        import numpy as np

        from bergen_sim.search.position import mirror_moves

        moves = self.game.legal_moves()
        tiles = np.array([move.tile.index for move in moves], dtype=np.int64)
        ends = np.array([int(move.end) for move in moves], dtype=np.int64)
        twin = mirror_moves(self.game.view(self.seat).array, tiles, ends, len(moves))
        return [move for k, move in enumerate(moves) if not 0 <= twin[k] < k]

    def table(self, menu: list[Move]) -> list[str]:
        """The table before one of your moves, ending with the numbered menu of moves."""
        from bergen_sim.engine import layout as L

        game = self.game
        view = game.view(self.seat)
        counts = ", ".join(f"{self.who(s)} {n}" for s, n in enumerate(view.hand_counts))
        if game.line:
            ends = _ends(view)
            spinner = view.array[L.V_SPINNER]
            legend = [
                what
                for mark, what in (
                    ("d", tr("d: a double end")),
                    (
                        "*",
                        tr("*: no tile yet on that arm of the spinner {double}").format(double=f"{spinner}-{spinner}"),
                    ),
                )
                if mark in ends
            ]
            board = [
                tr("line    {tiles}").format(tiles=game.line_text()),
                tr("ends    {ends}").format(ends=ends) + (f"   ({'; '.join(legend)})" if legend else ""),
            ]
        else:  # the leader chooses its double: there are no ends to show yet
            board = [tr("line    (the table is empty: you lead one of your doubles)")]
        lines = [
            "",
            *board,
            tr("{scores}   (target {target})").format(scores=self.score_line(), target=game.rules.target),
            tr("tiles   {counts}; boneyard {boneyard}").format(counts=counts, boneyard=view.boneyard),
            tr("hand    {tiles}").format(tiles=" ".join(view.hand)),
        ]
        lines += [f"  {k}) {move}" for k, move in enumerate(menu, 1)]
        return lines

    def hint(self, menu: list[Move]) -> list[str]:
        """The ``analyze`` ranking of the legal moves, from this seat's view, numbered as ``menu`` is."""
        from rich.console import Console

        from bergen_sim.cli.analyze import analysis_table
        from bergen_sim.services.position import analyze

        result = analyze(
            self.game.view(self.seat),
            self.game.rules,
            worlds=self.hint_worlds,
            batch=min(500, self.hint_worlds),
            seed=self.game.seed,
        )
        text = io.StringIO()
        numbers = {move: k for k, move in enumerate(menu, 1)}
        Console(file=text, width=120).print(analysis_table(result, numbers))
        return text.getvalue().rstrip().splitlines()

    def choose(self, move: Move) -> None:
        """Make the move you chose, remembering the game before it (for ``u``)."""
        self.chosen.append((self.game.clone(), self.told, move))
        self.game.play(move)

    def undo(self) -> str:
        """Take back your last chosen move and everything played since (the opponents' replies, your forced
        moves); the game, its random streams included, is as it was, so the trace holds a match that replays."""
        before, self.told, move = self.chosen.pop()
        since = [e for e in self.game.events[len(before.events) :] if e["type"] in ("lead", "play")]
        self.game = before
        self.save()
        others = len(since) - 1
        if not others:
            return tr("taken back: your {move}; your move again").format(move=move)
        return trn(
            "taken back: your {move} and {n} move since; your move again",
            "taken back: your {move} and {n} moves since; your move again",
            others,
        ).format(move=move, n=others)

    def save(self) -> None:
        from bergen_sim.services.files.trace import write_jsonl

        write_jsonl(self.game.events, self.out)
        self.saved = True


def _read_choice(session: Session, menu: list[Move]) -> Move | str | None:
    """Your next input: a Move, ``"hint"``, ``"undo"``, or None at ``q`` or the end of input; hostile input
    re-prompts.  A number picks from ``menu``; a move's text may name any legal move (a mirror twin too)."""
    from bergen_sim.services.game import Move, MoveError

    moves = session.game.legal_moves()
    numbers = f"1-{len(menu)}" if len(menu) > 1 else "1"
    if session.chosen:
        prompt = tr("your move [{numbers}, h hint, u undo, q quit]: ").format(numbers=numbers)
        keys = tr("h for a hint, u to take back your last move or q to quit")
    else:
        prompt = tr("your move [{numbers}, h hint, q quit]: ").format(numbers=numbers)
        keys = tr("h for a hint or q to quit")
    while True:
        click.echo(prompt, nl=False)
        text = sys.stdin.readline()  # one stream for the whole match: a fresh wrapper would lose buffered lines
        if not text:  # end of input
            click.echo()
            return None
        text = text.strip()
        if text.lower() in ("q", "quit"):
            return None
        if text.lower() in ("h", "hint", "?"):
            return "hint"
        if text.lower() in ("u", "undo"):
            if session.chosen:
                return "undo"
            click.echo(tr(NOTHING_TO_UNDO))
            continue
        if text.isdigit():  # also other scripts' digits ('²', '٣'), and thousands of them: not a move number
            number = whole_number(text)  # None for other scripts' digits, which int() would read
            if number is not None and 1 <= number <= len(menu):
                return menu[number - 1]
            what = shown(text) + tr(" (digits are 0-9)") if number is None else short_number(number)
            click.echo(
                tr("{what} is not a move here: enter 1..{most}, {keys}").format(what=what, most=len(menu), keys=keys)
            )
            continue
        try:
            if foreign_digit(text) is not None:  # Move.parse would read '３-５ R' as 3-5 R
                raise MoveError("a digit of another script")
            move = Move.parse(text)
        except MoveError:
            click.echo(
                tr(
                    "{what} is not a move: enter 1..{most} (or the move, e.g. {example}, with the digits 0-9), {keys}"
                ).format(what=shown(text), most=len(menu), example=menu[0], keys=keys)
            )
            continue
        if move in moves:
            return move
        click.echo(tr("{move} is not legal now: enter 1..{most}, {keys}").format(move=move, most=len(menu), keys=keys))


def run_session(session: Session) -> bool:
    """Play until the match ends (True) or you stop (False); the trace is saved after every move."""
    if hasattr(sys.stdin, "reconfigure"):  # bytes that are not text become "not a move", not a traceback
        sys.stdin.reconfigure(errors="replace")
    session.save()
    while not session.game.is_over:
        game = session.game  # a new one after each undo
        for line in session.narrate():
            click.echo(line)
        mover = game.to_move
        if mover is not None and mover != session.seat:
            game.play(game.policy_move(session.policies[mover]))
            session.save()
            continue
        menu = session.menu()
        if len(menu) == 1 and session.auto_forced:
            click.echo(tr("forced: {move} is your only move, played for you").format(move=menu[0]))
            game.play(menu[0])
            session.save()
            continue
        for line in session.table(menu):
            click.echo(line)
        while True:
            choice = _read_choice(session, menu)
            if choice != "hint":
                break
            click.echo(tr("thinking (rolling the position out in sampled worlds)..."))
            try:
                for line in session.hint(menu):
                    click.echo(line)
            except BergenError as exc:
                click.echo(tr("no hint: {why}").format(why=exc))
        if choice is None:
            return False
        if choice == "undo":
            click.echo(session.undo())
            continue
        if isinstance(choice, str):  # "hint" was handled above
            continue
        session.choose(choice)
        session.save()
    for line in session.narrate():
        click.echo(line)
    return True


def _unused_path(seed: int) -> Path:
    """``bergen-play-SEED.jsonl``, or ``-2``, ``-3``... after it when taken: a replayed seed never replaces an
    earlier game (an ``--out`` the user names is theirs to replace)."""
    path = Path(f"bergen-play-{seed}.jsonl")
    k = 1
    while path.exists():
        k += 1
        path = Path(f"bergen-play-{seed}-{k}.jsonl")
    return path


@click.command("play")
@with_rules
@click.option(
    "--seat",
    type=Bounded(0, PLAYER_COUNTS[-1] - 1),
    default=0,
    show_default=True,
    help="Your seat: a seat number from 0 (seat 0 is dealt first).",
)
@click.option(
    "--opponent",
    "--policy",
    "opponents",
    multiple=True,
    metavar="NAME",
    help=f"Policy of the other seats: once for all, or once per other seat in seat order.  "
    f"[default: {DEFAULT_OPPONENT}]",
)
@click.option(
    "--seed", type=SEED, default=None, help="Seed of the deals, 0..2^64-1 (default: a new one, shown at the start)."
)
@click.option(
    "--match",
    "match_index",
    type=Bounded(0, MAX_MATCH_INDEX),
    default=0,
    show_default=True,
    help="Which match of the seed to deal: a match index from 0 (match M of `bergen-sim trace --seed S`).",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    metavar="FILE",
    help="Trace file to write (default: bergen-play-SEED.jsonl, or -2, -3... when taken).",
)
@click.option(
    "--hint-worlds",
    type=Bounded(1, MOST_HINT_WORLDS),
    default=DEFAULT_HINT_WORLDS,
    show_default=True,
    help="Most worlds a hint samples.",
)
@click.option(
    "--auto-forced/--no-auto-forced",
    default=True,
    show_default=True,
    help="Play your forced moves for you (one move on the menu: a tile that fits two ends that look "
    "alike is one move), with a line saying so.",
)
def command(
    rules: Rules,
    seat: int,
    opponents: tuple[str, ...],
    seed: int | None,
    match_index: int,
    out: str | None,
    hint_worlds: int,
    auto_forced: bool,
) -> None:
    """Play a match in the terminal against the built-in players; the game is saved as a trace.

    Type a move's number (or the move, e.g. 3-5 L), h for a hint (numbered as the menu is), u to take back your
    last move and the replies since, or q to stop.
    """
    if not 0 <= seat < rules.players:
        raise click.BadParameter(
            tr("must be 0..{most} with {players} players, not {seat}").format(
                most=rules.players - 1, players=rules.players, seat=seat
            ),
            param_hint="--seat",
        )
    if out is not None and out.strip() in ("", "-"):  # the trace is rewritten after every move: it needs a file
        raise _trace_needs_a_file(out)
    if sys.stdin is None:  # started with standard input closed (<&-): there is nowhere to read moves from
        raise click.UsageError(
            tr("standard input is closed; play reads your moves from it: run it in a terminal, or pipe the moves in")
        )
    policies = opponent_names(rules, seat, opponents)
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    path = Path(out) if out else _unused_path(seed)
    from bergen_sim.services.files.output import check_file
    from bergen_sim.services.files.trace import TRACE_FORMATS

    target = check_file(path, "-o", TRACE_FORMATS)  # before the match starts, not at its first save
    if target.how != "replace":  # /dev/stdout, a terminal, a pipe: each save would write the whole match again
        raise _trace_needs_a_file(str(path))
    session = None
    try:
        from bergen_sim.services.game import Game, compiled_policy

        for name in dict.fromkeys(policies):  # compiled now: a setting a player cannot take (a search's match-value
            if name != HUMAN:  # table at a huge target) stops here, before the trace file is written
                compiled_policy(name, rules)
        game = Game(rules, seed=seed, match=match_index, policies=policies)
        session = Session(game, seat, policies, target, hint_worlds, auto_forced)
        table = (
            tr("Bergen, {players} players in partnerships") if rules.partnerships else tr("Bergen, {players} players")
        ).format(players=rules.players)
        click.echo(
            tr("{table}, target {target}; you are seat {seat}; seed {seed}, match {match}").format(
                table=table, target=rules.target, seat=seat, seed=seed, match=match_index
            )
        )
        click.echo(
            tr("opponents: {seats}").format(
                seats=", ".join(
                    tr("seat {seat} {policy}").format(seat=s, policy=name)
                    for s, name in enumerate(policies)
                    if s != seat
                )
            )
        )
        finished = run_session(session)
    except KeyboardInterrupt:
        kept = (
            tr("the match so far is saved to {path}").format(path=one_line(str(path)))
            if session is not None and session.saved
            else tr("nothing was saved")
        )
        raise click.exceptions.Abort() from KeyboardInterrupt(tr("interrupted; {kept}").format(kept=kept))
    except OSError as exc:  # the trace cannot be written: say so in one line, before or during the match
        raise click.ClickException(
            tr("cannot write the trace to {path}: {why}").format(path=one_line(str(path)), why=exc.strerror or exc)
        ) from None
    if finished:
        click.echo(tr("trace saved to {path}").format(path=one_line(str(path))))
        # the trace holds this one match, so it is match 0 of the file whatever --match dealt it
        click.echo(
            one_line(
                tr("review it: {command}").format(
                    command=f"bergen-sim review {shlex.quote(str(target.path))} --match 0"
                )
            )
        )
    else:
        click.echo(tr("stopped; the match so far is saved to {path}").format(path=one_line(str(path))))
