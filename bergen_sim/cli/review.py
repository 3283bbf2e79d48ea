"""``bergen-sim review``: every decision of a played game against the best move (see bergen_sim.services.game_review)."""

from __future__ import annotations

import io
from pathlib import Path

import click

from bergen_sim.cli.bounds import SEED_HELP, Bounded
from bergen_sim.cli.groups import PLAYERS, search_options
from bergen_sim.cli.renamed import old_spelling

DEFAULT_WORLDS = 20_000  # the same defaults as bergen_sim.services.game_review (kept here so --help imports no engine)
DEFAULT_BLUNDER = 0.05
MOST_SEAT = 7  # rules.PLAYER_COUNTS[-1] - 1 (not imported: the rules load NumPy and the engine's layout)
MOST_MATCH_INDEX = 10**12  # far beyond any file (a match takes about 10 kB)


@click.command("review")
@old_spelling("--player", "--policy", "policy", "review", type=click.Choice(PLAYERS))
@click.argument("game", type=click.Path(dir_okay=False))
@click.option(
    "--seat",
    "seats",
    type=Bounded(0, MOST_SEAT),
    multiple=True,
    help="Review only the decisions of this seat: a seat number from 0. Repeatable.",
)
@click.option(
    "--match",
    "matches",
    type=Bounded(0, MOST_MATCH_INDEX),
    multiple=True,
    help="Review only this match of the file: a match index from 0. Repeatable.",
)
@search_options(
    policy_help="Search player whose evaluation ranks the moves, as in `bergen-sim analyze --policy`.",
    worlds_default=DEFAULT_WORLDS,
    worlds_help="Most sampled worlds per decision (sampling stops earlier once the best move is separated).",
    seed_help=SEED_HELP,
)
@click.option(
    "--blunder",
    type=click.FloatRange(0, 1),
    default=DEFAULT_BLUNDER,
    show_default=True,
    help="An error losing at least this much match-win probability is a blunder.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Also write a Markdown report here, with a figure (PNG) beside it.",
)
def command(game, seats, matches, search, blunder, as_json, out):
    """Review a played game: for every decision, the move made, the best move and the loss.

    GAME is a bergen-trace file (JSON Lines, e.g. from `bergen-sim trace` or
    `bergen-sim play`) or a game record written at a table (`bergen-record 1`,
    see docs/review.md).  Losses are in points of match-win probability, with
    95% intervals.
    """
    from bergen_sim.core.errors import BergenError
    from bergen_sim.services.files.output import OutputError, check_file, open_output, write_bytes
    from bergen_sim.services.files.record import MatchOutOfRange, read_games
    from bergen_sim.services.game_review import markdown, review, win_probability_figure

    try:  # a match asked twice is reviewed once; the others are not kept in memory
        games = read_games(game, matches=list(dict.fromkeys(matches)) or None)
    except MatchOutOfRange as exc:
        raise BergenError(f"--{exc}") from None
    report = figure = None
    if out is not None:  # checked before the review runs: a typo never costs the minutes (an empty name too)
        report = check_file(out, "--out", formats=(".md",))
        if report.how != "replace":
            raise OutputError(
                f"--out {out}: a review report is a Markdown file with its figure (PNG) beside it; "
                "give a file name ending in .md"
            )
        figure = check_file(str(report.path.with_suffix(".png")), "--out", formats=(".png",))
        for written in (report.path, figure.path):
            if _same_file(written, game):
                raise OutputError(
                    f"--out {out}: it would write {written.name} over the game being reviewed; "
                    "give a report name whose .md and .png are other files"
                )
    result = review(games, seats=seats or None, blunder=blunder, **search.keywords())
    failure = None
    if out is not None:
        try:  # each file is complete or not written at all (bergen_sim.services.files.output)
            png = io.BytesIO()
            win_probability_figure(result, png)
            write_bytes(figure, png.getvalue())
            with open_output(report) as handle:
                handle.write(markdown(result, figure.path.name, source=Path(game).name))
        except OutputError as exc:
            failure = exc  # raised after the results are shown: the review is never lost
    _show(result, as_json, out if failure is None else None)
    if failure is not None:
        raise failure


def _same_file(path: Path, game: str) -> bool:
    """Whether ``path`` is the file ``game`` (its own name, another name of it, or a link to it)."""
    import os

    try:
        return path.exists() and os.path.samefile(path, game)  # a path that does not exist is no game read
    except (OSError, ValueError):
        return False


def _show(result, as_json: bool, out: str | None) -> None:
    """Print the review: one JSON object, or the decisions' and the players' tables."""
    if as_json:
        from bergen_sim.cli.output import print_json

        print_json(result.to_dict())
        return
    from rich.table import Table
    from rich.text import Text

    from bergen_sim.cli.output import results_console
    from bergen_sim.core.errors import printable
    from bergen_sim.core.i18n import N_, tr, trn
    from bergen_sim.services.game_review import VERDICTS, points_text

    console = results_console()
    table = Table(
        title=trn(
            "{n} decision (loss: points of match-win probability, 95% interval)",
            "{n} decisions (loss: points of match-win probability, 95% interval)",
            len(result.decisions),
        ).format(n=len(result.decisions))
    )
    right = ("#", "match", "hand", "seat", "loss")
    for name in (
        "#",
        N_("match"),
        N_("hand"),
        N_("seat"),
        N_("scores"),
        N_("played"),
        N_("best"),
        N_("loss"),
        N_("verdict"),
    ):
        table.add_column(tr(name) if name != "#" else name, justify="right" if name in right else "left")
    for d in result.decisions:  # '#': the decision's number in its match (analyze --game FILE --decision N)
        table.add_row(
            str(d.number),
            str(d.match),
            str(d.hand),
            str(d.seat),
            "-".join(map(str, d.scores)),
            d.played,
            d.best,
            points_text(d.loss),
            tr(VERDICTS[d.verdict]),
        )
    console.print(table)
    summary = Table(title=tr("per player"))
    for name in (
        N_("seat"),
        N_("player"),
        N_("decisions"),
        N_("best"),
        N_("errors"),
        N_("blunders"),
        N_("unclear"),
        N_("total loss"),
    ):
        summary.add_column(tr(name))
    for seat in result.seats:
        summary.add_row(
            str(seat.seat),
            Text(printable(seat.name, 80)),
            str(seat.decisions),
            str(seat.best),
            str(seat.errors),
            str(seat.blunders),
            str(seat.unclear),
            points_text(seat.loss_estimate()),
        )
    console.print(summary)
    if out:
        console.print(
            Text(
                printable(
                    tr("report written to {out} (figure {figure})").format(
                        out=out, figure=Path(out).with_suffix(".png")
                    ),
                    1000,
                )
            )
        )
