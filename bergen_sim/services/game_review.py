"""``review``: every decision of a played game weighed against the best move, in match-win probability.

A game (a ``bergen-trace`` match or a table record, :mod:`bergen_sim.services.files.record`)
is played again through the rules.  At each decision with more than one
legal move, :func:`~bergen_sim.search.position.analyze` is given the deciding
seat's view, exactly what it knew then (the order of the hand's plays
included, so the other seats' plays weigh the worlds as the ``reader``
reads them in a match), and ranks its moves by match-win probability in sampled worlds, stopping as soon
as the best move is separated from every other (or the world budget is
spent).  The loss of the move made is its paired difference to the best move,
with a 95% interval, measured on other worlds than those that chose the best
move (the best of the even worlds judged on the odd ones and the other way
round): the best of noisy estimates is luckier in the worlds that chose it,
and judging it there would overstate every loss.

Verdicts (the unit is match-win probability, 0..1):

* ``best``: the move made is the best one found, or ties it in every world;
* ``error``: the move made is behind the best beyond its 95% interval;
* ``blunder``: an error losing at least ``blunder`` (default 0.05, five
  points of match-win probability);
* ``unclear``: the interval of the loss still includes 0 when sampling stops.

Per seat: decisions reviewed, errors, blunders, and the total loss with a
95% interval (the decisions' worlds are drawn independently, so variances
add).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from bergen_sim.core.errors import BergenError, escaped, one_line, shown
from bergen_sim.core.estimate import Estimate
from bergen_sim.core.i18n import N_, interval, num, tr, use
from bergen_sim.core.limits import MAX_SEED, MAX_WORLDS, MIN_WORLDS, check_range, check_seed, short_number
from bergen_sim.core.stats import Z95
from bergen_sim.search.position import DEFAULT_BASE, ENGINES, MOVE_UNITS
from bergen_sim.services.files.record import Action, WrittenGame, drive, each_decision
from bergen_sim.services.position import analyze, checked_policy

DEFAULT_WORLDS = 20_000
DEFAULT_BATCH = 1_000
DEFAULT_BLUNDER = 0.05
#: what a loss counts: a decision's and a seat's total, as the analysis' gap to the best move does
LOSS = MOVE_UNITS["win_behind_best"]
#: a decision's verdict (the value in JSON) as the text a player reads calls it
VERDICTS = {"best": N_("best"), "error": N_("error"), "blunder": N_("blunder"), "unclear": N_("unclear")}


@dataclass(frozen=True)
class Decision:
    """One reviewed decision: the move made, the best move, and the loss between them."""

    match: int  # the match's index in the file reviewed (what --match and analyze --game --match name)
    number: int  # the decision's number in its match, every seat's counted (record.each_decision)
    hand: int
    seat: int
    side: int
    scores: tuple[int, ...]
    played: str
    best: str
    legal_moves: int
    win_played: Estimate  # the match-win probability after the move made, over the decision's worlds
    win_best: Estimate
    loss: Estimate  # win_best - win_played, paired, on worlds that did not choose the best move
    verdict: str
    worlds: int
    stopped: str


@dataclass
class SeatSummary:
    """A seat's decisions in the reviewed games, and what its errors cost."""

    seat: int
    name: str
    decisions: int = 0
    best: int = 0
    errors: int = 0
    blunders: int = 0
    unclear: int = 0
    total_loss: float = 0.0
    total_loss_var: float = 0.0

    def loss_estimate(self) -> Estimate:
        """The total loss of the seat's decisions with its 95% interval (the decisions' worlds are independent)."""
        half = Z95 * math.sqrt(self.total_loss_var)
        return Estimate(
            self.total_loss, self.total_loss - half, self.total_loss + half, self.decisions, LOSS, "decisions"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "decisions": self.decisions,
            "best": self.best,
            "errors": self.errors,
            "blunders": self.blunders,
            "unclear": self.unclear,
            "total_loss": self.loss_estimate().to_json(),
            "loss_per_decision": self.total_loss / self.decisions if self.decisions else math.nan,
        }


@dataclass
class Review:
    """Every reviewed decision in game order, and a summary per seat."""

    decisions: list[Decision]
    seats: list[SeatSummary]
    rules: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready result, every win and loss an :class:`Estimate` object (match-win probability, 0..1)."""
        return {
            "rules": self.rules,
            "settings": self.settings,
            "decisions": [asdict(d) for d in self.decisions],
            "seats": [s.to_dict() for s in self.seats],
        }

    def __repr__(self) -> str:
        errors = sum(s.errors for s in self.seats)
        return f"Review({len(self.decisions)} decisions, {errors} errors)"


def _verdict(loss: Estimate, is_best: bool, blunder: float) -> str:
    if is_best:
        return "best"
    if loss.low > 0:
        return "blunder" if loss.value >= blunder else "error"
    return "unclear"


def _se(loss: Estimate) -> float:
    return (loss.high - loss.low) / (2 * Z95) if loss.high > loss.low else 0.0


def decision_seed(seed: int, match: int, number: int) -> int:
    """The analyzer's seed for decision ``number`` of match ``match`` in a review seeded ``seed``.

    A function of the decision, not of its place in the review: it gets the
    same worlds whichever seats or matches are reviewed, and ``bergen-sim
    analyze --game FILE --decision N --seed S`` repeats review's figures for it
    (1,000,003 is prime, so no two decisions of fewer than a million per
    match share a seed).
    """
    return (seed + 1000 * number + 1_000_003 * match) % (MAX_SEED + 1)  # wraps past 2**64-1


def review(
    games: Sequence[WrittenGame],
    seats: Sequence[int] | None = None,
    worlds: int = DEFAULT_WORLDS,
    batch: int = DEFAULT_BATCH,
    base: str = DEFAULT_BASE,
    seed: int = 0,
    blunder: float = DEFAULT_BLUNDER,
    progress=None,
    policy: str | None = None,
    *,
    player: str | None = None,
) -> Review:
    """Review every decision of ``games`` (of the ``seats`` given, default all); reproducible from ``seed``.

    ``policy`` names the search player whose evaluation ranks the moves, as in
    :func:`~bergen_sim.services.position.analyze` (one of ``PLAYERS``, default ``ismcts``;
    ``player=``, its old name, still works for this release); ``base`` the policy of its rollouts.
    ``progress(done_decisions)`` is called after each decision, if given.
    """
    if not games:
        raise BergenError("there is no game to review")
    check_seed(seed)  # 0..2**64-1, as every seed
    check_range("worlds", worlds, MIN_WORLDS, MAX_WORLDS)
    check_range("batch", batch, 1, MAX_WORLDS)
    policy = checked_policy(policy, player)  # before the first decision, not at it
    if isinstance(blunder, bool) or not isinstance(blunder, (int, float)) or not 0 <= blunder <= 1:
        raise BergenError(f"blunder is a loss of match-win probability between 0 and 1, not {shown(blunder)}")
    rules = games[0].rules
    if any(g.rules != rules for g in games):
        raise BergenError("the games to review are played under different rules: review them one file at a time")
    players = rules.players
    if seats is None:
        wanted = set(range(players))
    else:  # a seat number alone (0 is seat 0, not "every seat"), or a list of them
        wanted = {
            check_range("seat", s, -(2**63), 2**63 - 1)  # a whole number (True is not seat 1)
            for s in ([seats] if isinstance(seats, int) or not hasattr(seats, "__iter__") else seats)
        }
        if not wanted:
            raise BergenError(f"seats names no seat: give seat numbers 0..{players - 1}, or None for every seat")
        bad = sorted(s for s in wanted if not 0 <= s < players)
        if bad:
            raise BergenError(f"seat {short_number(bad[0])} does not exist: seats are 0..{players - 1}")
    for written in games:  # every game replayed and checked whole (rules, events, its end) before the first analysis
        drive(written)
    names = games[0].names or games[0].policies or [f"seat {s}" for s in range(players)]
    summaries = [SeatSummary(s, str(names[s]) if s < len(names) else f"seat {s}") for s in range(players)]
    decisions: list[Decision] = []

    def visit(number: int, game, action: Action) -> None:
        if action.seat not in wanted:
            return
        moves = game.legal_moves()
        view = game.view(action.seat)
        result = analyze(
            view,
            rules,
            base=base,
            worlds=worlds,
            batch=min(batch, worlds),
            seed=decision_seed(seed, game.match, number),
            policy=policy,
        )
        best = result.moves[0]
        made = result.move((action.tile, action.end))
        same = made.win_behind_best
        is_best = made is best or made.mirror_of == best.move or (same.value == 0 and same.low == same.high == 0)
        loss = same if is_best else made.win_behind_best_held_out
        verdict = _verdict(loss, is_best, blunder)
        decision = Decision(
            match=index,
            number=number,
            hand=game.hand_number,
            seat=action.seat,
            side=rules.side_of(action.seat),
            scores=tuple(game.scores),
            played=str(made.move),
            best=str(best.move),
            legal_moves=len(moves),
            win_played=made.win,
            win_best=best.win,
            loss=loss,
            verdict=verdict,
            worlds=result.worlds,
            stopped=result.stopped,
        )
        decisions.append(decision)
        summary = summaries[action.seat]
        summary.decisions += 1
        summary.best += verdict == "best"
        summary.errors += verdict in ("error", "blunder")
        summary.blunders += verdict == "blunder"
        summary.unclear += verdict == "unclear"
        summary.total_loss += loss.value
        summary.total_loss_var += _se(loss) ** 2
        if progress is not None:
            progress(len(decisions))

    for written in games:
        index = written.index  # what visit labels the decisions with: the match as --match names it
        each_decision(written, visit)
    settings = {
        "worlds": worlds,
        "batch": batch,
        "base": base,
        "player": policy,
        "reading": ENGINES[policy],
        "seed": seed,
        "blunder": blunder,
        "seats": sorted(wanted),
        "games": len(games),
    }
    return Review(decisions, [summaries[s] for s in sorted(wanted)], rules.to_dict(), settings)


def plain(text: str) -> str:
    r"""Text from a game file (a player's name, a file name) as a report shows it: literally, on one line.

    A name is whatever the file says: a ``$`` would start matplotlib's maths,
    a lone surrogate (a byte that was not UTF-8) cannot be drawn or written as
    UTF-8, and a control character or a ``|`` would break a Markdown table.

    >>> plain("a $\\foo$ | b\x00")
    'a $\\foo$ \\| b\\x00'
    """
    return one_line(text).replace("|", "\\|")


def win_probability_figure(
    result: Review, path: str | Path | BinaryIO, lang: str | None = None
) -> str | Path | BinaryIO:
    """A figure of each deciding seat's match-win probability through the game(s), errors marked (PNG).

    ``path``: a file name or a binary file object (the command writes it through
    bergen_sim.services.files.output); ``lang``: the language of its labels (default: the language in force).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"text.parse_math": False}), use(lang):  # names are text, never maths
        return _draw_figure(plt, result, path)


def _draw_figure(plt, result: Review, path: str | Path | BinaryIO) -> str | Path | BinaryIO:
    fig, ax = plt.subplots(figsize=(8, 3.6))
    for summary in result.seats:
        xs = [k for k, d in enumerate(result.decisions, 1) if d.seat == summary.seat]
        ys = [100 * d.win_played.value for d in result.decisions if d.seat == summary.seat]
        lo = [100 * d.win_played.low for d in result.decisions if d.seat == summary.seat]
        hi = [100 * d.win_played.high for d in result.decisions if d.seat == summary.seat]
        (line,) = ax.plot(
            xs,
            ys,
            marker="o",
            markersize=3,
            linewidth=1,
            label=tr("{name} (seat {seat})").format(name=plain(summary.name), seat=summary.seat),
        )
        ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15, linewidth=0)
        bad = [
            (x, y)
            for x, y, d in zip(xs, ys, [d for d in result.decisions if d.seat == summary.seat])
            if d.verdict in ("error", "blunder")
        ]
        if bad:
            ax.scatter(*zip(*bad), marker="x", color="red", zorder=3, s=30)
    matches = sorted({d.match for d in result.decisions})
    for m in matches[1:]:
        first = next(k for k, d in enumerate(result.decisions, 1) if d.match == m)
        ax.axvline(first - 0.5, color="grey", linewidth=0.6, linestyle=":")
    ax.set_xlabel(tr("decision (in game order)"))
    ax.set_ylabel(tr("match-win probability after the move made (%)"))
    ax.set_ylim(0, 100)
    ax.set_title(tr("Match-win probability through the game (red x: an error; band: 95% interval)"), fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    if isinstance(path, str):
        path = Path(path)
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)
    return path


def points_text(estimate: Estimate) -> str:
    """A loss or a win in points of match-win probability with its 95% interval, as the language writes numbers:
    ``1.2 [0.4, 2.0]``, in Danish ``1,2 [0,4; 2,0]``."""
    low, high = num(100 * estimate.low, ".1f"), num(100 * estimate.high, ".1f")
    return f"{num(100 * estimate.value, '.1f')} {interval(low, high)}"


def _engine_text(settings: dict[str, Any]) -> str:
    """How the report names the search that ranked the moves."""
    player = settings["player"]
    if player == "pimc":
        return tr("`pimc`'s search, on worlds uniform among those the seat's view allows")
    search = tr("the tree search of `{reading}`") if player == "ismcts" else tr("the search of `{reading}`")
    return tr("{search}, on worlds weighed by the other seats' plays as it reads them").format(
        search=search.format(reading=settings["reading"])
    )


def markdown(result: Review, figure: str | None = None, source: str = "", lang: str | None = None) -> str:
    """The review as a Markdown report (losses in points of match-win probability, with 95% intervals), its
    words in ``lang`` (default: the language in force, :mod:`bergen_sim.core.i18n`)."""
    with use(lang):
        return _markdown(result, figure, source)


def _markdown(result: Review, figure: str | None, source: str) -> str:
    s = result.settings
    title = tr("Game review: {source}").format(source=plain(source)) if source else tr("Game review")
    lines = [
        f"# {title}",
        "",
        tr("Rules: {rules}.").format(rules=", ".join(f"{k}={v}" for k, v in result.rules.items())),
        tr(
            "Each decision with more than one legal move was analysed from what the deciding seat knew, "
            "in up to {worlds} sampled worlds, ranked by {engine} (base policy `{base}`, seed {seed}), stopping "
            "once the best move was separated. Losses are in points of match-win probability (percentage "
            "points) with 95% intervals; a blunder loses at least {blunder} points."
        ).format(
            worlds=num(s["worlds"], ","),
            engine=_engine_text(s),
            base=s["base"],
            seed=s["seed"],
            blunder=num(100 * s["blunder"], ".0f"),
        ),
        "",
        "## " + tr("Per player"),
        "",
        "| "
        + " | ".join(
            tr(h)
            for h in (
                N_("seat"),
                N_("player"),
                N_("decisions"),
                N_("best"),
                N_("errors"),
                N_("blunders"),
                N_("unclear"),
                N_("total loss (points)"),
            )
        )
        + " |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for seat in result.seats:
        lines.append(
            f"| {seat.seat} | {plain(seat.name)} | {seat.decisions} | {seat.best} | "
            f"{seat.errors} | {seat.blunders} | {seat.unclear} | {points_text(seat.loss_estimate())} |"
        )
    if figure:
        caption = tr("match-win probability through the game")
        lines += ["", f"![{caption}]({escaped(figure)})"]
    lines += [
        "",
        "## " + tr("Every decision"),
        "",
        tr(
            "`#` numbers a match's decisions in the order played, every seat's counted; "
            "`bergen-sim analyze --game FILE --match M --decision N` analyses one in depth."
        ),
        "",
        "| # | "
        + " | ".join(
            tr(h)
            for h in (
                N_("match"),
                N_("hand"),
                N_("seat"),
                N_("scores"),
                N_("played"),
                N_("best"),
                N_("loss (points)"),
                N_("verdict"),
            )
        )
        + " |",
        "|---:|---:|---:|---:|---|---|---|---:|---|",
    ]
    for d in result.decisions:
        lines.append(
            f"| {d.number} | {d.match} | {d.hand} | {d.seat} | {'-'.join(map(str, d.scores))} | {d.played} | "
            f"{d.best} | {points_text(d.loss)} | {tr(VERDICTS[d.verdict])} |"
        )
    return "\n".join(lines) + "\n"
