"""Can ``expert``'s features say what a search plays?  Fit its weights to the search's choices and compare.

    python research/imitation/measure.py --out research/imitation/imitation.json          # 400 matches of ismcts, about 1 minute

Why: every search player here plays out its worlds with ``expert``, and the
measured searches all land a few points above ``pimc``; a better play-out
policy is the obvious lever.  The cheapest better one would be ``expert``
with other weights, fitted to imitate the search (a policy-improvement step
by distillation).  This tool measures whether such weights exist.

The searcher (``--searcher``, default ``ismcts``) plays every seat of
``--matches`` 2-player matches (``bergen_sim.services.game``, the step API); at each
of its decisions with two or more legal moves the tool records ``expert``'s
five features of every legal move (``bergen_sim.policies.expert.feature_table``)
and the move the searcher chose.  Twins, one tile on two ends that look alike (the same move seen in a
mirror), count as one move.  The even matches fit a conditional logit
(the probability of a move proportional to ``exp(w . features)``, maximum
likelihood with scipy); the odd matches are held out.  On them it reports
how often the move with the highest weighted sum is the searcher's, for
``expert``'s own weights and for the fitted ones, and the difference of the
two (paired: the same decisions), each with a 95% interval over matches,
the sampling unit (a match's decisions share its deals and its play):
ratio estimates with a linearised variance and Student's t.  How well any
model could do is bounded by the searcher itself: at every decision it is
asked a second time, on an independent random stream of its own, and
``self_agreement`` is how often the two answers are the same move (a
searcher that samples worlds is itself a draw; a model of it that agreed
with it more often than it agrees with itself would be predicting its
random stream).  The fitted
weights are printed divided by the ``points`` weight, as ``expert``'s are;
``fitted_scale`` is the ``points`` weight itself, how sharply the searcher
maximises the score (the ``trust`` of ``model=expert``, in tenths, that
describes it: docs/policies.md).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy import optimize, stats

from bergen_sim.core.errors import BergenError
from bergen_sim.core.limits import check_range, check_seed
from bergen_sim.core.provenance import add_allow_dirty, check_clean
from bergen_sim.engine import layout as L
from bergen_sim.engine.keyed_random import STREAM_POLICY, seed_to_int, stream_state
from bergen_sim.engine.tileset import no_tiles_for
from bergen_sim.model.rules import Rules
from bergen_sim.policies import expert
from bergen_sim.runtime.registry import resolve
from bergen_sim.search.position import mirror_moves
from bergen_sim.services.files.output import merge_target, publish_record
from bergen_sim.services.game import Game, compiled_policy

#: most matches: the step API plays them in Python, one search per decision
MAX_MATCHES = 100_000


def collect(searcher: str, matches: int, seed: int) -> list[tuple[int, np.ndarray, int, int]]:
    """(match, features of each legal move, index of the searcher's move, index of its second answer) at each of
    its real decisions; the second answer is the searcher's on an independent stream, keyed by the decision."""
    rules = Rules.make(players=2)
    no_tiles = no_tiles_for(rules.n_tiles)
    choose = compiled_policy(searcher, rules)
    seed64 = np.uint64(seed_to_int(seed))
    again_rng = np.zeros(1, dtype=np.uint64)
    tiles = np.zeros(L.MAX_MOVES, dtype=np.int64)
    ends = np.zeros(L.MAX_MOVES, dtype=np.int64)
    rows = []
    for match in range(matches):
        game = Game(rules, seed=seed, match=match)
        asked = 0
        while not game.is_over:
            moves = game.legal_moves()
            chosen = game.policy_move(searcher)
            if len(moves) >= 2 and not game.choosing_lead:
                for k, move in enumerate(moves):
                    tiles[k], ends[k] = move.tile.index, int(move.end)
                view = game.view(game.to_move).array
                table = np.zeros((len(moves), len(expert.FEATURES)))
                expert.feature_table(view, tiles, ends, len(moves), no_tiles, table)
                asked += 1  # stream c = 0 is the game's own: the second answers take 1, 2, ...
                again_rng[0] = stream_state(
                    seed64, np.int64(match), np.int64(STREAM_POLICY + game.to_move), np.int64(asked)
                )
                again = int(choose(view, tiles, ends, len(moves), again_rng))
                first = first_twins(view, tiles, ends, len(moves))
                rows.append((match, table, first[moves.index(chosen)], first[again]))
            game.play(chosen)
    return rows


def first_twins(view: np.ndarray, tiles: np.ndarray, ends: np.ndarray, n: int) -> np.ndarray:
    """Each move's index, or its twin's where that is listed first: one tile on either of two ends that look alike
    is one move seen in a mirror (:func:`bergen_sim.search.position.mirror_moves`), with the same features, which
    a weighted sum ranks by the first listed; a searcher chooses between them by its random stream alone."""
    mirror = mirror_moves(view, tiles, ends, n)
    return np.array([min(k, m) if m >= 0 else k for k, m in enumerate(mirror)])


def padded(rows):
    """Features (decisions, most moves, features), a mask of the listed moves, the chosen index, the match."""
    n, width = len(rows), max(len(row[1]) for row in rows)
    features = np.zeros((n, width, len(expert.FEATURES)))
    listed = np.zeros((n, width), dtype=bool)
    chosen = np.array([row[2] for row in rows])
    for i, (_, table, *_) in enumerate(rows):
        features[i, : len(table)] = table
        listed[i, : len(table)] = True
    return features, listed, chosen, np.array([row[0] for row in rows])


def fit(features: np.ndarray, listed: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Maximum-likelihood weights of the conditional logit, started from ``expert``'s."""
    at = np.arange(len(chosen))

    def loss(w):
        u = np.where(listed, features @ w, -np.inf)
        u -= u.max(axis=1, keepdims=True)
        p = np.exp(u)
        p /= p.sum(axis=1, keepdims=True)
        gradient = -(features[at, chosen] - np.einsum("nm,nmf->nf", p, features)).sum(axis=0)
        return -np.log(p[at, chosen]).sum(), gradient

    return optimize.minimize(loss, expert.WEIGHTS.copy(), jac=True, method="BFGS").x


def agrees(features, listed, chosen, w) -> np.ndarray:
    """1 where the first move of highest weighted sum (``expert``'s tie-break) is the chosen one."""
    return (np.argmax(np.where(listed, features @ w, -np.inf), axis=1) == chosen).astype(float)


def rate(hits: np.ndarray, match: np.ndarray) -> dict:
    """Share of decisions with a 95% interval over matches (ratio estimate, linearised variance)."""
    ids, where = np.unique(match, return_inverse=True)
    a, n = np.bincount(where, weights=hits), np.bincount(where).astype(float)
    r = a.sum() / n.sum()
    m = len(ids)
    half = stats.t.ppf(0.975, m - 1) * np.sqrt(m / (m - 1) * ((a - r * n) ** 2).sum()) / n.sum()
    return {"rate": float(r), "low": float(r - half), "high": float(r + half)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searcher", default="ismcts")
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", help="JSON file to write")
    add_allow_dirty(parser)
    args = parser.parse_args()
    try:
        resolve(args.searcher)
        check_range("--matches", args.matches, 4, MAX_MATCHES)  # two of each fold at least, for an interval
        check_seed(args.seed)
        if args.out:
            merge_target(args.out, "--out", "searcher", str)  # an unreadable or foreign file: refused before play
            check_clean(args.out, args.allow_dirty)
    except BergenError as exc:
        parser.error(str(exc))
    started = time.time()
    rows = collect(args.searcher, args.matches, args.seed)
    features, listed, chosen, match = padded(rows)
    again = np.array([row[3] for row in rows])
    fitting, held = match % 2 == 0, match % 2 == 1
    w = fit(features[fitting], listed[fitting], chosen[fitting])
    own = agrees(features[held], listed[held], chosen[held], expert.WEIGHTS)
    fitted = agrees(features[held], listed[held], chosen[held], w)
    record = {
        "searcher": args.searcher,
        "matches": args.matches,
        "seed": args.seed,
        "decisions_fitted": int(fitting.sum()),
        "decisions_held_out": int(held.sum()),
        "features": list(expert.FEATURES),
        "expert_weights": expert.WEIGHTS.tolist(),
        "fitted_weights": (w / w[0]).tolist(),
        "fitted_scale": float(w[0]),  # the logit's weight on a point: how sharply the searcher maximises the score
        "agreement_expert": rate(own, match[held]),
        "agreement_fitted": rate(fitted, match[held]),
        "agreement_difference": rate(fitted - own, match[held]),
        # the searcher against itself on an independent stream, same decisions: what no model of it can exceed
        "self_agreement": rate((again[held] == chosen[held]).astype(float), match[held]),
        "seconds": round(time.time() - started, 1),
    }
    publish_record(record, "python research/imitation/measure.py " + " ".join(sys.argv[1:]), args.out)


if __name__ == "__main__":
    main()
