# %% [markdown]
# # Greedy against random: simulate, compare, plot
#
# A notebook as a plain script: each `# %%` marks a cell (VS Code, PyCharm and
# Jupytext open it as a notebook); `python notebook.py` runs it top to bottom.
# The test suite runs it, so every line here works.  In a notebook each
# result shows itself as a small table (its `_repr_html_`); here we print
# the short `repr`.  The first run on a machine compiles the match loop that
# every mix of built-in policies plays on (it says so); later runs load it.

# %%
import matplotlib

matplotlib.use("Agg")  # draw to files; in Jupyter, leave this out to see the figures inline
import matplotlib.pyplot as plt

import bergen_sim
from bergen_sim import Rules

MATCHES = 2_000  # small and quick; the intervals below narrow as this grows

# %% [markdown]
# ## Simulate: greedy in seat 0, random in seat 1
# `policies` is one name for every seat, or one per seat (a list, or names separated by commas).

# %%
run = bergen_sim.simulate(
    rules=Rules.make(players=2), policies=["greedy", "random"], matches=MATCHES, seed=1, rows=True
)
print(run)
wins = run.summary["match_win_rate"][0]
print(
    f"greedy (seat 0) wins {100 * wins['value']:.1f}% of matches, 95% interval "
    f"[{100 * wins['low']:.1f}, {100 * wins['high']:.1f}]"
)
run.matches.head()

# %% [markdown]
# ## Compare: a round-robin on duplicate deals, every seat rotation
# Both policies play the same deals from both seats, so luck of the deal cancels out.

# %%
duel = bergen_sim.compare(rules=Rules.make(players=2), policies="greedy,random", deals=MATCHES // 2, seed=1)
print(duel)
duel.standings[["rank", "policy", "win_rate", "win_rate_lo", "win_rate_hi"]]

# %% [markdown]
# ## Plot: match win rate against the field, and how long matches last

# %%
figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
standings = duel.standings
errors = [standings["win_rate"] - standings["win_rate_lo"], standings["win_rate_hi"] - standings["win_rate"]]
left.bar(standings["policy"], standings["win_rate"], yerr=errors, capsize=6, color=["tab:blue", "tab:gray"])
left.axhline(0.5, color="black", linewidth=0.8, linestyle="--")
left.set_ylabel("match win rate (95% interval)")
left.set_title("against the field, duplicate deals")
hands = run.matches["hands"].value_counts().sort_index()
right.bar(hands.index, hands.values / hands.sum(), color="tab:blue")
right.set_xlabel("hands in the match")
right.set_ylabel("share of matches")
right.set_title(f"greedy vs random, {MATCHES:,} matches")
figure.tight_layout()
figure.savefig("greedy_vs_random.png", dpi=100)
print("saved greedy_vs_random.png")
