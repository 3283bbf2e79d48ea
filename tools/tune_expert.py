"""Tune the ``expert`` policy's weights by coordinate search on duplicate deals.

Run from the project root (it prints every candidate it tries and, at the
end, the weights and the table rows for ``bergen_sim/policies/expert.py``)::

    python tools/tune_expert.py --deal-sets 10000 --seed 20240601 --rounds 3
    python tools/tune_expert.py --players 4 --set domino_set=double-nine --deal-sets 2000   # another game

How (reproducible: the same arguments give the same weights):

- The objective of a weight vector is its mean match-win share against the
  panel ``greedy, defensive, doubles-first, heavy-first`` in matches of the
  game asked for (2-player standard rules by default; ``--players``,
  ``--partnerships`` and ``--set KEY=VALUE`` choose another), each pair
  played on ``--deal-sets`` duplicate deal sets (every seat rotation on the
  same deals, :func:`bergen_sim.services.comparison.play_pair`).
- Every candidate meets the same deals (the same seed), so two candidates
  differ only by their play and the comparison is paired deal set by deal set.
- Coordinate search: for each weight but ``points`` (it fixes the scale,
  since multiplying all weights by a constant changes no choice) try
  ``w - step`` and ``w + step``; keep the better of the two when its gain over
  the current vector exceeds one standard error of the paired difference.  After
  each round every step is halved.

Why the weights are read at run time here: a kernel is compiled once per
policy combination (10-20 s), far too slow to compile per candidate.  The
``candidate`` policy below is ``expert.best_move`` reading its weights from
the memory of a NumPy array that the search rewrites between runs.  That
address is frozen into the compiled kernel, so the script plays in its own
process only and builds its kernels in a private temporary cache folder
that no other process ever reads.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from numba import carray, njit

from bergen_sim.engine.bits import _as_pointer
from bergen_sim.policies import expert

PANEL = ("greedy", "defensive", "doubles-first", "heavy-first")
CANDIDATE = "tools.tune_expert:candidate"
#: first step per weight (halved after every round); ``points`` is never moved
FIRST_STEPS = {"threat": 0.5, "double": 0.5, "follow": 0.2, "block": 0.5}
#: where the search starts: hand-picked (points 1, a point expected for the opponent costs as much as one scored)
START = {"points": 1.0, "threat": -1.0, "double": 0.5, "follow": 0.2, "block": 0.5}

#: names the private cache folder while the search runs; ``candidate`` refuses to load anywhere else
_PRIVATE = "BERGEN_TUNE_EXPERT_CACHE"
if __name__ != "__main__" and os.environ.get(_PRIVATE, "-") != os.environ.get("BERGEN_SIM_CACHE_DIR"):
    raise ImportError(
        "tools.tune_expert:candidate only runs inside tools/tune_expert.py (its kernels must "
        "stay in that run's private cache)"
    )

#: the weights under test; the search writes them, ``candidate`` reads them during play
WEIGHTS = np.array(expert.WEIGHTS, dtype=np.float64)
_ADDRESS = WEIGHTS.ctypes.data
_N_WEIGHTS = len(expert.FEATURES)


@njit
def candidate(view, move_tiles, move_ends, n_moves, rng, no_tiles):
    """``expert`` with the weights currently stored in ``WEIGHTS``."""
    weights = carray(_as_pointer(_ADDRESS, np.float64), (_N_WEIGHTS,))
    return expert.best_move(view, move_tiles, move_ends, n_moves, weights, no_tiles)


def win_shares(weights: np.ndarray, deal_sets: int, seed: int, rules, panel=PANEL) -> np.ndarray:
    """Per deal set, the candidate's mean win share against the panel (one row per deal set)."""
    from bergen_sim.services.comparison import play_pair
    from bergen_sim.services.execution.jobs import RunOptions

    module = sys.modules["tools.tune_expert"]  # the instance the kernels imported, not __main__
    module.WEIGHTS[:] = weights
    here = RunOptions(workers=1)  # in this process: other processes do not share WEIGHTS' memory
    shares = [play_pair(rules, CANDIDATE, opponent, deal_sets, seed, options=here).win_share for opponent in panel]
    return np.mean(shares, axis=0)


def search(deal_sets: int, seed: int, rounds: int, rules, start: np.ndarray | None = None, panel=PANEL) -> np.ndarray:
    """Coordinate search from ``start`` (default START); prints each candidate and returns the best weights."""
    best = np.array([START[name] for name in expert.FEATURES] if start is None else start, dtype=np.float64)
    best_shares = win_shares(best, deal_sets, seed, rules, panel)
    print(f"start {_fmt(best)}  share {best_shares.mean():.4f}", flush=True)
    steps = dict(FIRST_STEPS)
    for round_no in range(1, rounds + 1):
        for name, step in steps.items():
            i = expert.FEATURES.index(name)
            tried = []
            for sign in (-1.0, 1.0):
                trial = best.copy()
                trial[i] += sign * step
                shares = win_shares(trial, deal_sets, seed, rules, panel)
                diff = shares - best_shares  # paired: the same deal sets
                gain, se = diff.mean(), diff.std(ddof=1) / np.sqrt(len(diff))
                print(
                    f"round {round_no} {name}{sign * step:+.3f}: {_fmt(trial)}  share {shares.mean():.4f}"
                    f"  gain {gain:+.4f} (se {se:.4f})",
                    flush=True,
                )
                tried.append((gain - se, trial, shares))
            margin, trial, shares = max(tried, key=lambda t: t[0])
            if margin > 0:
                best, best_shares = trial, shares
                print(f"  kept {_fmt(best)}", flush=True)
        steps = {name: step / 2 for name, step in steps.items()}
    return best


def _fmt(weights: np.ndarray) -> str:
    return " ".join(f"{name}={w:.3f}" for name, w in zip(expert.FEATURES, weights))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deal-sets", type=int, default=10_000, help="deal sets per opponent and candidate")
    parser.add_argument("--seed", type=int, default=20240601, help="seed of the tuning deals")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the coordinate search")
    parser.add_argument("--players", type=int, default=2, help="players of the tuning game")
    parser.add_argument("--partnerships", action="store_true", help="play in partnerships (4, 6 or 8 players)")
    parser.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule setting of the tuning game (repeatable), as in bergen-sim --set",
    )
    parser.add_argument(
        "--start",
        choices=("hand-picked", "expert"),
        default="hand-picked",
        help="start from the hand-picked START or from expert's present weights",
    )
    parser.add_argument(
        "--panel", default=",".join(PANEL), help="the opponents, comma-separated built-ins (default: %(default)s)"
    )
    args = parser.parse_args()
    root = Path(__file__).resolve().parent.parent
    os.chdir(root)
    sys.path.insert(0, str(root))
    with tempfile.TemporaryDirectory(prefix="bergen-tune-") as private_cache:
        os.environ["BERGEN_SIM_CACHE_DIR"] = os.environ[_PRIVATE] = private_cache  # kernels stay private
        importlib.import_module("tools.tune_expert")
        from bergen_sim.core.errors import BergenError
        from bergen_sim.model.rules import Rules, parse_settings
        from bergen_sim.runtime.registry import resolve

        try:  # a wrong game or opponent is one line and exit status 2, before any play
            if args.deal_sets < 1 or args.rounds < 1:
                raise BergenError("--deal-sets and --rounds must be at least 1")
            rules = Rules.make(players=args.players, partnerships=args.partnerships, **parse_settings(args.settings))
            panel = tuple(args.panel.split(","))
            for name in panel:
                resolve(name)
        except BergenError as exc:
            parser.error(str(exc))
        print(
            f"tuning on {rules.players} players{' in partnerships' if rules.partnerships else ''}, "
            f"{rules.domino_set}, spinner {'on' if rules.spinner else 'off'}, lead {rules.lead}",
            flush=True,
        )
        start = expert.WEIGHTS if args.start == "expert" else None
        best = search(args.deal_sets, args.seed, args.rounds, rules, start, panel)
    print(f"\nWEIGHTS = np.array([{', '.join(f'{w:.3g}' for w in best)}])")
    for name, w in zip(expert.FEATURES, best):
        print(f"{name:<8} {w:.3g}")


if __name__ == "__main__":
    main()
