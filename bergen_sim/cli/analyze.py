"""``bergen-sim analyze``: every legal move of a position ranked by match-win chance."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple, cast

import click
from click.core import ParameterSource
from rich.console import JustifyMethod
from rich.table import Table

from bergen_sim.cli.bounds import Bounded
from bergen_sim.cli.groups import SearchOptions, option_group, search_options
from bergen_sim.cli.options import rule_options, rules_from
from bergen_sim.cli.output import print_json, results_console
from bergen_sim.cli.renamed import old_spelling
from bergen_sim.core.errors import shown
from bergen_sim.core.estimate import Estimate
from bergen_sim.core.i18n import N_, interval, num, pct, tr, use
from bergen_sim.core.limits import ascii_digits_only
from bergen_sim.model.domain import Move
from bergen_sim.model.rules import Rules, file_setting
from bergen_sim.search.position import (
    DEFAULT_WORLDS,
    PLAYERS,
    Analysis,
    Position,
    PositionError,
)
from bergen_sim.services.position import analyze

_RULE_OPTIONS = ("players", "partnerships", "preset", "settings")
#: what describes a position (and its rules): a game's decision brings its own
_POSITION_OPTIONS = _RULE_OPTIONS + (
    "position_file",
    "seat",
    "hand",
    "ends",
    "spinner",
    "played",
    "played_by",
    "counts",
    "boneyard",
    "scores",
    "voids",
)
_OPTION_NAMES = {"position_file": "position", "voids": "void", "settings": "set"}
MOST_MATCH_INDEX = 10**12  # as review's --match: far beyond any file
MOST_DECISION = 10**6  # far beyond any match's decisions


class GameDecision(NamedTuple):
    """--game, --match and --decision: a decision of a played game (all None when the position is given)."""

    game_file: str | None
    match_index: int | None
    decision: int | None


def _read_file(path: str) -> dict[str, Any]:
    """The position file's object (JSON, or TOML for a .toml file)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a byte-order mark (Windows editors) is not text
    except UnicodeDecodeError as exc:
        raise PositionError(
            tr("{path}: not UTF-8 text (byte {byte}); save the position as UTF-8").format(path=path, byte=exc.start)
        ) from None
    except OSError as exc:
        raise PositionError(tr("{path}: cannot read it ({why})").format(path=path, why=exc.strerror or exc)) from None
    try:
        data = tomllib.loads(text) if path.endswith(".toml") else json.loads(text, object_pairs_hook=_json_object)
    except (ValueError, RecursionError) as exc:  # also a number of over 4,300 digits, or nesting too deep to read
        why = (
            exc
            if isinstance(exc, (tomllib.TOMLDecodeError, json.JSONDecodeError, _RepeatedKey))
            else "nested too deep"
            if isinstance(exc, RecursionError)
            else "a number of more than 4,300 digits"
        )
        raise PositionError(
            tr("{path}: not valid {format}: {why}").format(
                path=path, format="TOML" if path.endswith(".toml") else "JSON", why=why
            )
        ) from None
    if not isinstance(data, dict):
        raise PositionError(tr("{path}: the position must be an object of keys").format(path=path))
    return data


class _RepeatedKey(ValueError):
    """A JSON object that gives a key twice (JSON readers keep the last silently; TOML refuses it)."""


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of a JSON position file, refused if it repeats a key: a value would be lost without a word."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(f"the key {shown(key)} is given twice in one object")
        out[key] = value
    return out


def _rules_from_file(table: Any) -> Rules:
    """Rules from a position file's ``rules`` table (players, partnerships, preset and any setting)."""
    if not isinstance(table, dict):
        raise PositionError("rules: expected a table of players, partnerships, preset and settings")
    table = dict(table)
    players, partnerships, preset = (
        table.pop("players", 2),
        table.pop("partnerships", False),
        table.pop("preset", "standard"),
    )
    if isinstance(players, bool) or not isinstance(players, int):
        raise PositionError(f"rules.players must be a whole number, not {shown(players)}")
    if not isinstance(partnerships, bool):  # bool("false") is True: text would silently mean partnerships
        raise PositionError(f"rules.partnerships must be true or false, not {shown(partnerships)}")
    if not isinstance(preset, str):
        raise PositionError(f"rules.preset must be a name, not {shown(preset)}")
    settings = {key: file_setting(key, value) for key, value in table.items()}
    return Rules.make(players=players, partnerships=partnerships, preset=preset, **settings)


def _seat_items(values: tuple[str, ...], option: str) -> dict[str, str]:
    """``("1:2,5",)`` -> ``{"1": "2,5"}`` for --void and --played-by.

    The option repeats: a seat given again adds its items, exactly as if
    written in one (``1:5`` and ``1:6`` -> ``{"1": "5,6"}``);
    :meth:`Position.from_mapping` keeps each item once, and merges seats
    written differently (``1`` and ``01``).
    """
    out: dict[str, str] = {}
    for value in values:
        seat, sep, rest = value.partition(":")
        if not sep:
            raise PositionError(f"{option} takes SEAT:ITEMS (e.g. 1:2,5), not {value!r}")
        seat = seat.strip()
        out[seat] = f"{out[seat]},{rest}" if seat in out else rest
    return out


def _refuse_foreign_digits(value: Any, where: str) -> None:
    """Refuse a digit of another script anywhere in a position (option text or file value, key or item).

    The position's own readers use ``int()`` and ``str.isdigit``, which read
    ``'１４'`` as 14; every number of a position is written with the digits 0-9.
    (``--seat`` and ``--boneyard`` come as text too, so that they are checked
    here and then read, and their range told with these rules, like a file's.)
    """
    if isinstance(value, str):
        ascii_digits_only(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse_foreign_digits(key, where)
            _refuse_foreign_digits(item, f"{where}.{key}" if isinstance(key, str) and key.isascii() else where)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _refuse_foreign_digits(item, where)


def _pct(estimate: Estimate) -> str:
    low, high = num(100 * estimate.low, ".1f"), num(100 * estimate.high, ".1f")
    return f"{pct(100 * estimate.value)} {interval(low, high)}"


def _num(estimate: Estimate) -> str:
    return f"{num(estimate.value, '.2f')} {interval(num(estimate.low, '.2f'), num(estimate.high, '.2f'))}"


#: why sampling stopped (Analysis.stopped), as the table's title says it
STOPPED = {
    "separated": N_("best move separated"),
    "tie": N_("the best moves tie in every world"),
    "budget": N_("world budget reached"),
}


def analysis_table(result: Analysis, menu: Mapping[Move, int] | None = None, lang: str | None = None) -> Table:
    """The ranked moves as a table (95% intervals in brackets), its words in ``lang`` (default: the language in
    force, :mod:`bergen_sim.core.i18n`).

    ``menu`` (``play``'s hints) maps a move to its number in a move menu: the table then starts with
    that number, and a mirror twin the menu leaves out (the same move on an end that looks alike) is left out
    here too, the ranks counting only the moves listed.
    """
    with use(lang):
        return _analysis_table(result, menu)


def _analysis_table(result: Analysis, menu: Mapping[Move, int] | None) -> Table:
    p = result.position
    ends = p.ends_text("|") + (
        "" if p.spinner is None else tr(" (spinner {double})").format(double=f"{p.spinner}-{p.spinner}")
    )
    hand = " ".join(p.hand)
    where = (
        tr("seat {seat} to lead a double of {hand}") if result.leading else tr("seat {seat} to play {hand} on {ends}")
    ).format(seat=p.seat, hand=hand, ends=ends)
    title = tr("{where}, scores {scores}; {worlds} worlds ({stopped}), {player}, base {base}, seed {seed}").format(
        where=where,
        scores="-".join(map(str, p.scores)),
        worlds=num(result.worlds, ","),
        stopped=tr(STOPPED[result.stopped]),
        player=result.player,
        base=result.base,
        seed=result.seed,
    )
    table = Table(title=title, show_header=True, header_style="bold")
    columns = (
        (tr("rank"), "right"),
        (tr("move"), "left"),
        (tr("ends after"), "left"),
        (tr("match win"), "right"),
        (tr("behind best"), "right"),
        (tr("points this hand"), "right"),
    )
    for name, justify in ((("#", "right"),) if menu is not None else ()) + columns:
        table.add_column(name, justify=cast(JustifyMethod, justify))
    listed = [ranked for ranked in result.moves if menu is None or ranked.move in menu]
    for rank, ranked in enumerate(listed, 1):
        behind = "" if rank == 1 else _pct(ranked.win_behind_best)
        name = str(ranked.move) + (tr(" (mirror)") if ranked.mirror_of and menu is None else "")
        number = () if menu is None else (str(menu[ranked.move]),)
        table.add_row(
            *number,
            str(rank),
            name,
            ranked.ends_after.replace(",", "|"),
            _pct(ranked.win),
            behind,
            _num(ranked.points),
        )
    return table


@click.command("analyze")
@old_spelling("--player", "--policy", "policy", "analyze", type=click.Choice(PLAYERS))
@rule_options
@option_group(
    "game",
    [
        click.option(
            "--game",
            "game_file",
            type=click.Path(dir_okay=False),
            help="A played game (a bergen-trace file or a game record, as `bergen-sim review` reads): analyze "
            "its decision --decision, from what the deciding seat knew, its plays read.",
        ),
        click.option(
            "--match",
            "match_index",
            type=Bounded(0, MOST_MATCH_INDEX),
            default=None,
            help="With --game: which match of the file: a match index from 0.  [default: 0]",
        ),
        click.option(
            "--decision",
            type=Bounded(1, MOST_DECISION),
            default=None,
            help="With --game: the decision's number in its match (the # column of `bergen-sim review`).",
        ),
    ],
    GameDecision,
)
@option_group(
    "position",
    [
        click.option(
            "--position",
            "position_file",
            type=click.Path(exists=True, dir_okay=False),
            help="JSON or TOML file with the position (keys as the options below, plus an optional rules table).",
        ),
        click.option("--seat", metavar="N", help="The deciding seat: a seat number from 0.  [default: 0]"),
        click.option("--hand", metavar="TILES", help="Its tiles, e.g. 2-5,5-5,0-1."),
        click.option(
            "--ends",
            metavar="L,R[,U,D]",
            help="Left and right end numbers; d marks a double end, e.g. 3d,5.  With the spinner on: "
            "L,R,U,D, * for an arm with no tile, e.g. 3,5d,*,*.",
        ),
        click.option("--spinner", metavar="N", help="With the spinner on: the led double's number (or N-N)."),
        click.option("--played", metavar="TILES", help="Every tile on the table, the led double included."),
        click.option(
            "--played-by", multiple=True, metavar="SEAT:TILES", help="Tiles a seat played (optional). Repeatable."
        ),
        click.option(
            "--counts", metavar="N,N,...", help="Tiles in each seat's hand, in seat order (own seat included)."
        ),
        click.option("--boneyard", metavar="N", help="Tiles left in the boneyard."),
        click.option("--scores", metavar="N,N,...", help="Side scores, in side order."),
        click.option(
            "--void",
            "voids",
            multiple=True,
            metavar="SEAT:NUMBERS",
            help="Numbers a seat surely holds none of (it drew or passed on them). Repeatable.",
        ),
    ],
    dict,
)
@search_options(
    policy_help="Search player whose evaluation ranks the moves (reader: pimc's rollouts on worlds weighted by the "
    "other seats' plays; ismcts: the tree search of the player that measured best against pimc, on the same worlds, "
    "every move in every world; see docs/policies.md).",
    worlds_default=DEFAULT_WORLDS,
    worlds_help="Most worlds to sample (the budget).",
    seed_help="Seed of the sampled worlds (0..2^64-1).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def command(players, partnerships, preset, settings, game: GameDecision, position: dict[str, Any], search, as_json):
    """Rank every legal move of a position by its estimated match-win probability.

    The position is described by the options below or a --position file, or
    is a decision of a played game (--game FILE --decision N).
    """
    ctx = click.get_current_context()
    given_options = [name for name in ctx.params if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if game != GameDecision(None, None, None):
        _game_decision(game, given_options, search, as_json)
        return
    position_file = position.pop("position_file")
    data = _read_file(position_file) if position_file else {}
    position["played_by"] = _seat_items(position["played_by"], "--played-by") or None
    position["voids"] = _seat_items(position["voids"], "--void") or None
    data.update({key: value for key, value in position.items() if value is not None})
    for key, value in data.items():
        _refuse_foreign_digits(value, key)
    from_options = [name for name in _RULE_OPTIONS if name in given_options]
    if "rules" in data:
        if from_options:
            raise PositionError("the position file has a rules table: give the rules there or as options, not both")
        rules = _rules_from_file(data["rules"])
    else:
        rules = rules_from(players, partnerships, preset, settings)
    result = analyze(Position.from_mapping(data), rules, **search.keywords())
    if as_json:
        print_json(result.to_dict())
    else:
        results_console().print(analysis_table(result))


def _game_decision(game: GameDecision, given_options: list[str], search: SearchOptions, as_json: bool) -> None:
    """``--game FILE --decision N``: analyze a decision of a played game from the deciding seat's whole view.

    The view holds the order of the hand's plays, so the search weighs its
    worlds by the other seats' plays, as ``review`` does; the seed is
    review's for that decision (:func:`bergen_sim.services.game_review.decision_seed`), so
    with review's ``--worlds`` and ``--seed`` the figures repeat its row.
    """
    game_file, match_index, decision = game
    if game_file is None:
        raise PositionError(
            f"--{'decision' if decision is not None else 'match'} picks a decision of a played "
            "game: give the game too (--game FILE)"
        )
    if decision is None:
        raise PositionError(
            f"--game {game_file}: give --decision N, the decision's number in its match "
            "(the # column of `bergen-sim review`)"
        )
    clash = [name for name in given_options if name in _POSITION_OPTIONS]
    if clash:
        option = _OPTION_NAMES.get(clash[0], clash[0]).replace("_", "-")
        raise PositionError(f"--game brings its own position and rules: leave out --{option}")
    from bergen_sim.core.errors import BergenError
    from bergen_sim.services.files.record import MatchOutOfRange, RecordError, decision_view, read_games
    from bergen_sim.services.game_review import decision_seed

    match_index = 0 if match_index is None else match_index
    try:  # only this match is kept in memory
        (written,) = read_games(game_file, matches=[match_index])
    except MatchOutOfRange as exc:
        raise BergenError(f"--{exc}") from None
    try:
        view, action = decision_view(written, decision)
    except RecordError as exc:
        raise RecordError(f"--decision {decision}, match {match_index} of {game_file}: {exc}") from None
    result = analyze(
        view,
        written.rules,
        **dataclasses.replace(search, seed=decision_seed(search.seed, written.match, decision)).keywords(),
    )
    made = f"{action.tile} {action.end}"
    rank = result.move(made).rank
    if as_json:
        print_json(
            {
                **result.to_dict(),
                "game": {
                    "file": str(game_file),
                    "match": match_index,
                    "decision": decision,
                    "played": made,
                    "played_rank": rank,
                    "review_seed": search.seed,
                },
            }
        )
        return
    console = results_console()
    console.print(analysis_table(result))
    console.print(
        tr(
            "match {match}, decision {decision}: seat {seat} played {move} (rank {rank} of {moves}); the "
            "worlds are review's for this decision with --seed {seed}"
        ).format(
            match=match_index,
            decision=decision,
            seat=action.seat,
            move=made,
            rank=rank,
            moves=len(result.moves),
            seed=search.seed,
        )
    )
