"""A Gymnasium environment: one seat of a Bergen match, the other seats played by built-in policies.

Install with ``pip install bergen-sim[gym]``.  Each episode is one match
(:class:`bergen_sim.services.game.Game`); the agent sits at ``seat`` and every other
seat is a compiled built-in policy (``expert`` by default), which moves by
itself between the agent's turns.

Every rule set the engine plays can be played (any ``domino_set``, the
spinner on or off, 2 to 8 seats, partnerships); the spaces are sized by it.
Below, the set has ``T`` tiles with highest number ``N`` (double-six: T = 28,
N = 6), ``n`` seats, and the line ``E`` ends (2; 4 with the spinner).

* **Actions**: ``Discrete(4 * T)`` (:func:`bergen_sim.services.game.n_actions`: 112
  with double-six, 220 with double-nine); action ``4 * t + e`` plays tile ``t``
  (tile index, ``bergen_sim.engine.layout.TILE_NAMES``) on end ``e`` (0 = L,
  1 = R, 2 = U, 3 = D, the spinner's arms): :attr:`bergen_sim.services.game.Move.action`
  and ``Move.from_action``.
  Only legal moves may be played: the observation's ``action_mask`` (also
  ``info["action_mask"]`` and :meth:`BergenEnv.action_masks`, the method
  maskable learners call) marks them.  An illegal action ends the
  episode with reward -1 and ``info["illegal_action"] = True`` (the convention
  of PettingZoo's classic games), so a random action never hangs a run.
* **Observations**: what the agent's seat may know, read from the policy view
  (docs/policies.md): its hand and the tiles on the table (``MultiBinary(T)``
  each), the numbers on the ``E`` ends (``MultiDiscrete([N + 1] * E)``; an arm
  of the spinner shows the spinner's number until a tile lies on it) and
  whether each is open and a double end (``MultiBinary(E)`` each), every
  seat's tile count, the boneyard size, side scores, the numbers each seat is
  known to be void in (``MultiBinary((n, N + 1))``), and the action mask.
* **Reward**: +1 when the agent's side wins the match, -1 when another side
  does, 0 before the end.

>>> env = BergenEnv(opponents="first")
>>> obs, info = env.reset(seed=3)
>>> int(obs["action_mask"].sum()) == len(env.game.legal_moves())
True
>>> action = int(np.flatnonzero(obs["action_mask"])[0])
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> reward, truncated
(0.0, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from bergen_sim.engine import layout as L
from bergen_sim.model.rules import Rules
from bergen_sim.services.game import Game, Move, end_count, n_actions

ENV_ID = "bergen_sim/Bergen-v0"


class BergenEnv(gymnasium.Env):
    """One seat of a Bergen match against built-in policies (see the module note)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        rules: Rules | None = None,
        seat: int = 0,
        opponents: str | Sequence[str] = "expert",
        render_mode: str | None = None,
    ):
        self.rules = rules if rules is not None else Rules.make()
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat must be 0..{self.rules.players - 1}, not {seat}")
        if self.rules.hand_size == 1:
            raise ValueError("with hand_size 1 every hand ends on its lead: the agent would never move")
        self.seat = seat
        names = [opponents] * self.rules.players if isinstance(opponents, str) else list(opponents)
        if len(names) == self.rules.players - 1:
            names.insert(seat, "agent")
        if len(names) != self.rules.players:
            raise ValueError(f"give one opponent policy, or one per other seat ({self.rules.players - 1})")
        names[seat] = "agent"
        self.policies = names
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        players, sides, tiles = self.rules.players, self.rules.sides, self.rules.n_tiles
        numbers, self.ends = self.rules.max_number + 1, end_count(self.rules)
        most = self.rules.target - 1 + max(3, self.rules.out_points, self.rules.blocked_points)
        self.n_actions = n_actions(self.rules)
        self.action_space = spaces.Discrete(self.n_actions)
        self.observation_space = spaces.Dict(
            {
                "hand": spaces.MultiBinary(tiles),
                "played": spaces.MultiBinary(tiles),
                "ends": spaces.MultiDiscrete([numbers] * self.ends),
                "open_ends": spaces.MultiBinary(self.ends),
                "double_ends": spaces.MultiBinary(self.ends),
                "hand_counts": spaces.Box(0, tiles, shape=(players,), dtype=np.int64),
                "boneyard": spaces.Box(0, tiles, shape=(1,), dtype=np.int64),
                "scores": spaces.Box(0, most, shape=(sides,), dtype=np.int64),
                "voids": spaces.MultiBinary((players, numbers)),
                "action_mask": spaces.MultiBinary(self.n_actions),
            }
        )
        self.game: Game | None = None

    # --- the Gymnasium API --------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new match, its deals keyed by a seed drawn from the env's generator as in the compiled engine.

        A match that ends before the agent's first move (possible with tiny
        hands or targets) is skipped for the next match index of that seed.
        """
        super().reset(seed=seed)
        match_seed = int(self.np_random.integers(0, 2**63))
        match = 0
        while True:
            self.game = Game(self.rules, seed=match_seed, match=match, policies=self.policies)
            self._opponents_move()
            if not self.game.is_over:
                return self._observation(), self._info()
            match += 1

    def step(self, action):
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if self.game.is_over:
            raise RuntimeError("the match is over: call reset()")
        if self.illegal:  # that step said terminated: the episode is over though the match is not
            raise RuntimeError("the episode ended with an illegal action: call reset()")
        move = Move.from_action(action)
        if move not in self.game.legal_moves():
            self.illegal = True
            return self._observation(), -1.0, True, False, self._info()
        self.game.play(move)
        self._opponents_move()
        reward = 0.0
        if self.game.is_over:
            reward = 1.0 if self.game.winner == self.rules.side_of(self.seat) else -1.0
        return self._observation(), reward, self.game.is_over, False, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.game is None:
            return None
        return f"{self.game.line_text()}\n{self.game.view(self.seat)!r}\n"

    def action_masks(self) -> np.ndarray:
        """The legal actions now (1 = legal), for maskable learners."""
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if self.game is not None and self.game.to_move == self.seat:
            for move in self.game.legal_moves():
                mask[move.action] = 1
        return mask

    # --- helpers -----------------------------------------------------------------

    def _started(self) -> Game:
        """The match under way (``reset`` starts one)."""
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        return self.game

    def _opponents_move(self) -> None:
        self.illegal = False
        game = self._started()
        while (seat := game.to_move) is not None and seat != self.seat:
            game.play(game.policy_move(self.policies[seat]))

    def _observation(self) -> dict[str, np.ndarray]:
        game = self._started()
        view = game.view(self.seat)
        voids = np.zeros((self.rules.players, self.rules.max_number + 1), dtype=np.int8)
        for s, numbers in enumerate(view.voids):
            voids[s, numbers] = 1
        open_ends = np.zeros(self.ends, dtype=np.int8)
        open_ends[: view.open_ends] = 1
        return {
            "hand": self._tiles(view.hand),
            "played": self._tiles(view.played),
            "ends": np.array(view.end_numbers(self.ends), dtype=np.int64),
            "open_ends": open_ends,
            "double_ends": np.array(view.end_doubles(self.ends), dtype=np.int8),
            "hand_counts": np.array(view.hand_counts, dtype=np.int64),
            "boneyard": np.array([view.boneyard], dtype=np.int64),
            "scores": np.array(game.scores, dtype=np.int64),
            "voids": voids,
            "action_mask": self.action_masks(),
        }

    def _info(self) -> dict[str, Any]:
        game = self._started()
        return {
            "action_mask": self.action_masks(),
            "illegal_action": self.illegal,
            "scores": game.scores,
            "hand_number": game.hand_number,
        }

    def _tiles(self, names: list[str]) -> np.ndarray:
        out = np.zeros(self.rules.n_tiles, dtype=np.int8)
        out[[L.TILE_INDEX[t] for t in names]] = 1
        return out


if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="bergen_sim.adapters.gym_env:BergenEnv")
