"""``bergen-sim play``: play a match in the terminal against the built-in players.

The match is a :class:`bergen_sim.game.Game` (the compiled engine's keyed
deals for the seed, the compiled policies for the other seats).  Before each
of your moves the table is shown: the line of tiles with its ends, your hand,
the scores, every seat's tile count, the boneyard, and your legal moves
numbered.  Type a number (or the move itself, ``3-5 L``), ``h`` for a hint
(the ``analyze`` ranking of your moves from what you know) or ``q`` to stop.
The trace is written after every move, so the file always holds the match so
far; a finished match replays like the golden traces
(``bergen_sim.trace.replay_match``).
"""

from __future__ import annotations

import io
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bergen_sim.cli.bounds import SEED, Bounded
from bergen_sim.cli.options import with_rules
from bergen_sim.errors import BergenError, PolicyError, shown
from bergen_sim.limits import MAX_MATCH_INDEX, foreign_digit, short_number, whole_number
from bergen_sim.rules import PLAYER_COUNTS, Rules

if TYPE_CHECKING:  # the game (and Numba) is imported when a match starts, not for `bergen-sim --help`
    from bergen_sim.game import Game, Move, View

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
        raise PolicyError(f"give one opponent for all other seats or one per other seat ({others}), not {len(names)}")
    for name in set(names):
        resolve(name)  # an unknown policy fails here, in one line, before the match starts
    names.insert(seat, HUMAN)
    return names


def _says(subject: str, verb: str, third: str = "") -> str:
    """``you win``, ``seat 1 (expert) wins`` (``third`` for irregular forms: ``goes``, ``passes``)."""
    return f"{subject} {verb if subject == 'you' else third or verb + 's'}"


def _ends(view: View) -> str:
    (left, right), (dl, dr) = view.ends, view.double_ends
    return f"{left}{'d' if dl else ''} | {right}{'d' if dr else ''}"


class Session:
    """One terminal match: the game, who sits where, what has been told, and the trace file."""

    def __init__(self, game: Game, seat: int, policies: list[str], out: Path, hint_worlds: int):
        self.game = game
        self.seat = seat
        self.policies = policies
        self.out = out
        self.hint_worlds = hint_worlds
        self.told = 0  # events already narrated

    def who(self, seat: int) -> str:
        return "you" if seat == self.seat else f"seat {seat} ({self.policies[seat]})"

    def side_name(self, side: int) -> str:
        rules = self.game.rules
        mine = rules.side_of(self.seat)
        if rules.partnerships:
            return "your side" if side == mine else "their side"
        return self.who(side)

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

    def _describe(self, event: dict[str, Any]) -> str | None:
        kind = event["type"]
        points = event.get("points", 0)
        plus = f" (+{points})" if points else ""
        if kind == "deal":
            return f"-- hand {event['hand']}: you are dealt {' '.join(event['hands'][self.seat])}"
        if kind == "redeal":
            return "   no hand holds a double: the hand is dealt again"
        who = self.who(event.get("seat", -1))
        if kind == "lead":
            return f"{_says(who, 'lead')} {event['tile']}{plus}"
        if kind == "draw":
            return f"{_says(who, 'draw')} {event['tile'] if event['seat'] == self.seat else 'a tile'}"
        if kind == "play":
            return f"{_says(who, 'play')} {event['tile']} on {event['end']}{plus}"
        if kind == "pass":
            return _says(who, "pass", "passes")
        if kind == "out":
            return f"{_says(who, 'go', 'goes')} out{plus}"
        if kind == "blocked":
            if event["winner"] is None:
                return "the hand is blocked: nobody wins the settlement"
            return f"the hand is blocked: {_says(self.side_name(event['winner']), 'win')} the settlement{plus}"
        if kind == "match_end":
            return f"== {_says(self.side_name(event['winner']), 'win')} the match, {self.score_line()}"
        return None

    def score_line(self) -> str:
        return "scores " + ", ".join(f"{self.side_name(side)} {score}" for side, score in enumerate(self.game.scores))

    def table(self) -> list[str]:
        """The table before one of your moves, ending with the numbered legal moves."""
        game = self.game
        view = game.view(self.seat)
        line = game.line_text()
        counts = ", ".join(f"{self.who(s)} {n}" for s, n in enumerate(view.hand_counts))
        lines = [
            "",
            f"line    {line}",
            f"ends    {_ends(view)}" + ("   (d: a double end)" if any(view.double_ends) else ""),
            f"{self.score_line()}   (target {game.rules.target})",
            f"tiles   {counts}; boneyard {view.boneyard}",
            f"hand    {' '.join(view.hand)}",
        ]
        lines += [f"  {k}) {move}" for k, move in enumerate(game.legal_moves(), 1)]
        return lines

    def hint(self) -> list[str]:
        """The ``analyze`` ranking of the legal moves, from this seat's view."""
        from rich.console import Console

        from bergen_sim.search.position import analyze
        from bergen_sim.cli.analyze import analysis_table

        result = analyze(self.game.view(self.seat), self.game.rules, worlds=self.hint_worlds,
                         batch=min(500, self.hint_worlds), seed=self.game.seed)
        text = io.StringIO()
        Console(file=text, width=120).print(analysis_table(result))
        return text.getvalue().rstrip().splitlines()

    def save(self) -> None:
        from bergen_sim.trace import write_jsonl

        write_jsonl(self.game.events, self.out)


def _read_choice(session: Session) -> Move | str | None:
    """Your next input: a Move, ``"hint"``, or None at ``q`` or the end of input; hostile input re-prompts."""
    from bergen_sim.game import Move, MoveError

    moves = session.game.legal_moves()
    while True:
        click.echo(f"your move [1-{len(moves)}, h hint, q quit]: ", nl=False)
        text = sys.stdin.readline()  # one stream for the whole match: a fresh wrapper would lose buffered lines
        if not text:  # end of input
            click.echo()
            return None
        text = text.strip()
        if text.lower() in ("q", "quit"):
            return None
        if text.lower() in ("h", "hint", "?"):
            return "hint"
        if text.isdigit():  # also other scripts' digits ('²', '٣'), and thousands of them: not a move number
            number = whole_number(text)  # None for other scripts' digits, which int() would read
            if number is not None and 1 <= number <= len(moves):
                return moves[number - 1]
            what = shown(text) + " (digits are 0-9)" if number is None else short_number(number)
            click.echo(f"{what} is not a move here: enter 1..{len(moves)}, h for a hint or q to quit")
            continue
        try:
            if foreign_digit(text) is not None:  # Move.parse would read '３-５ R' as 3-5 R
                raise MoveError("a digit of another script")
            move = Move.parse(text)
        except MoveError:
            click.echo(f"{shown(text)} is not a move: enter 1..{len(moves)} (or the move, e.g. {moves[0]}, "
                       "with the digits 0-9), h for a hint or q to quit")
            continue
        if move in moves:
            return move
        click.echo(f"{move} is not legal now: enter 1..{len(moves)}, h for a hint or q to quit")


def run_session(session: Session) -> bool:
    """Play until the match ends (True) or you stop (False); the trace is saved after every move."""
    game = session.game
    if hasattr(sys.stdin, "reconfigure"):  # bytes that are not text become "not a move", not a traceback
        sys.stdin.reconfigure(errors="replace")
    session.save()
    while not game.is_over:
        for line in session.narrate():
            click.echo(line)
        if game.to_move != session.seat:
            game.play(game.policy_move(session.policies[game.to_move]))
            session.save()
            continue
        for line in session.table():
            click.echo(line)
        while True:
            choice = _read_choice(session)
            if choice != "hint":
                break
            click.echo("thinking (rolling the position out in sampled worlds)...")
            try:
                for line in session.hint():
                    click.echo(line)
            except BergenError as exc:
                click.echo(f"no hint: {exc}")
        if choice is None:
            return False
        game.play(choice)
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
@click.option("--seat", type=Bounded(0, PLAYER_COUNTS[-1] - 1), default=0, show_default=True,
              help="Your seat (seat 0 is dealt first).")
@click.option("--opponent", "--policy", "opponents", multiple=True, metavar="NAME",
              help=f"Policy of the other seats: once for all, or once per other seat in seat order.  "
                   f"[default: {DEFAULT_OPPONENT}]")
@click.option("--seed", type=SEED, default=None,
              help="Seed of the deals, 0..2^64-1 (default: a new one, shown at the start).")
@click.option("--match", "match_index", type=Bounded(0, MAX_MATCH_INDEX), default=0, show_default=True,
              help="Match index within the seed (the deals of `bergen-sim trace --seed S` match M).")
@click.option("-o", "--out", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Trace file to write (default: bergen-play-SEED.jsonl, or -2, -3... when taken).")
@click.option("--hint-worlds", type=Bounded(1, MOST_HINT_WORLDS), default=DEFAULT_HINT_WORLDS,
              show_default=True,
              help="Most worlds a hint samples.")
def command(rules: Rules, seat: int, opponents: tuple[str, ...], seed: int | None, match_index: int,
            out: str | None, hint_worlds: int) -> None:
    """Play a match in the terminal against the built-in players; the game is saved as a trace."""
    if not 0 <= seat < rules.players:
        raise click.BadParameter(f"must be 0..{rules.players - 1} with {rules.players} players, not {seat}",
                                 param_hint="--seat")
    if out is not None and out.strip() in ("", "-"):  # the trace is rewritten after every move: it needs a file
        raise click.BadParameter("give the trace a file name (it is saved after every move, so it cannot go "
                                 "to standard output)", param_hint="-o")
    if sys.stdin is None:  # started with standard input closed (<&-): there is nowhere to read moves from
        raise click.UsageError("standard input is closed; play reads your moves from it: run it in a terminal, or "
                               "pipe the moves in")
    policies = opponent_names(rules, seat, opponents)
    from bergen_sim.game import compiled_policy

    for name in dict.fromkeys(policies):  # compiled now: a setting a player cannot take (a search's match-value
        if name != HUMAN:                 # table at a huge target) stops here, before the trace file is written
            compiled_policy(name, rules)
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    path = Path(out) if out else _unused_path(seed)
    from bergen_sim.output import check_file
    from bergen_sim.trace import TRACE_FORMATS

    check_file(path, "-o", TRACE_FORMATS)  # before the match starts, not at its first save
    from bergen_sim.game import Game

    game = Game(rules, seed=seed, match=match_index, policies=policies)
    session = Session(game, seat, policies, path, hint_worlds)
    click.echo(f"Bergen, {rules.players} players{' in partnerships' if rules.partnerships else ''}, "
               f"target {rules.target}; you are seat {seat}; seed {seed}, match {match_index}")
    click.echo("opponents: " + ", ".join(f"seat {s} {name}" for s, name in enumerate(policies) if s != seat))
    try:
        finished = run_session(session)
        session.save()
    except KeyboardInterrupt:
        session.save()
        raise click.exceptions.Abort() from None
    except OSError as exc:  # the trace cannot be written: say so in one line, before or during the match
        raise click.ClickException(f"cannot write the trace to {path}: {exc.strerror or exc}") from None
    if finished:
        click.echo(f"trace saved to {path} (review it with any bergen-trace reader)")
    else:
        click.echo(f"stopped; the match so far is saved to {path}")
