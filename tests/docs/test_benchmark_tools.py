"""The pure helpers of the developer benchmarks (profile_kernel's reading of a profile, trees' table settings), and
the developer scripts' one-line refusals of a wrong argument."""

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import error_lines

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    sys.path.insert(0, str(BENCHMARKS))  # the scripts import each other as a folder of scripts
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


profile_kernel = _load("profile_kernel")
trees = _load("trees")


def test_the_imitation_tool_fits_a_known_chooser_and_intervals_cover_matches():
    """measure_imitation's logit recovers the weights of a chooser that plays by them, its argmax agreement is 1
    there, and its interval over matches is the cluster (ratio) interval: wider when a match's decisions agree
    together than when they are independent."""
    spec = importlib.util.spec_from_file_location(
        "measure_imitation", BENCHMARKS.parent / "research/imitation/measure.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    rng = np.random.default_rng(3)
    true = np.array([1.0, -2.0, 0.5, 0.3, 0.0])
    features = rng.normal(size=(4000, 3, 5))
    listed = np.ones((4000, 3), dtype=bool)
    u = features @ true
    chosen = np.array([rng.choice(3, p=np.exp(x) / np.exp(x).sum()) for x in u])
    w = tool.fit(features, listed, chosen)
    assert np.allclose(w, true, atol=0.15)
    assert tool.agrees(features, listed, np.argmax(u, axis=1), true).all()
    match = np.repeat(np.arange(200), 20)
    independent = tool.rate(rng.integers(0, 2, size=4000).astype(float), match)
    clustered = tool.rate(np.repeat(rng.integers(0, 2, size=200), 20).astype(float), match)
    assert independent["low"] < 0.5 < independent["high"]
    assert clustered["high"] - clustered["low"] > 3 * (independent["high"] - independent["low"])


def test_the_imitation_tool_counts_twins_as_one_move():
    """0-2 on either end of 0|0 is one move seen in a mirror: a chooser's pick of either is the first listed, so
    agreement is not lost to a coin flip between twins; a decision without twins keeps every index."""
    spec = importlib.util.spec_from_file_location(
        "measure_imitation", BENCHMARKS.parent / "research/imitation/measure.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    from bergen_sim.engine import layout as L
    from bergen_sim.services.files.record import drive, read_games

    games = read_games(BENCHMARKS.parent / "tests" / "golden" / "2p-standard.jsonl")[:1]
    seen = []
    drive(
        games[0],
        lambda game, action: (
            seen.append((game.view(action.seat).array.copy(), game.legal_moves()))
            if (game.hand_number, action.seat, action.tile) == (2, 0, "0-2")
            else None
        ),
    )
    view, moves = seen[0]
    tiles = np.array([m.tile.index for m in moves] + [0] * (L.MAX_MOVES - len(moves)), dtype=np.int64)
    ends = np.array([int(m.end) for m in moves] + [0] * (L.MAX_MOVES - len(moves)), dtype=np.int64)
    first = tool.first_twins(view, tiles, ends, len(moves))
    texts = [f"{m.tile} {m.end.name}" for m in moves]
    assert first[texts.index("0-2 R")] == first[texts.index("0-2 L")] == texts.index("0-2 L")
    assert sorted(set(first)) == sorted(set(range(len(moves))) - {texts.index("0-2 R")})


def test_the_analyzer_tool_counts_agreement_mirrors_and_cross_losses_per_match():
    """measure_analyzer: two analyzers agree when they pick the same move or its mirror; where they differ, each
    judge's loss for the other's pick is read from its own ranking; the first decision's time is kept apart."""
    spec = importlib.util.spec_from_file_location(
        "measure_analyzer", BENCHMARKS.parent / "research/analyzer-engine/measure.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)

    def by(best, mirror, behind, cpu=0.01):
        return {
            "cpu_s": cpu,
            "worlds": 1000,
            "stopped": "separated",
            "best": best,
            "mirror_of": mirror,
            "behind": behind,
        }

    rows = [
        {
            "match": 0,
            "number": 1,
            "compiling": True,
            "by": {
                "reader": by("1-2 L", None, {"1-2 L": [0, 0]}, 9.0),
                "ismcts": by("1-2 L", None, {"1-2 L": [0, 0]}, 9.0),
            },
        },
        {
            "match": 0,
            "number": 2,
            "by": {
                "reader": by("3-3 L", None, {"3-3 L": [0, 0], "3-3 R": [0, 0]}),
                "ismcts": by("3-3 R", "3-3 L", {"3-3 R": [0, 0], "3-3 L": [0, 0]}),
            },
        },
        {
            "match": 1,
            "number": 1,
            "by": {
                "reader": by("0-1 L", None, {"0-1 L": [0, 0], "2-5 R": [0.04, 0.01]}),
                "ismcts": by("2-5 R", None, {"2-5 R": [0, 0], "0-1 L": [0.02, -0.01]}),
            },
        },
        {
            "match": 1,
            "number": 2,
            "by": {"reader": by("4-4 L", None, {"4-4 L": [0, 0]}), "ismcts": by("4-4 L", None, {"4-4 L": [0, 0]})},
        },
    ]
    out = tool.summarize(rows, ["reader", "ismcts"], {"reader": 9.0, "ismcts": 9.0}, 2, 0, 1000, 100)
    pair = out["summary"]["pairs"]["reader vs ismcts"]
    assert pair["agree"]["mean"] == 0.75 and pair["differ_n"] == 1
    assert pair["ismcts_pick_by_reader"]["loss_per_differing_decision"]["mean"] == 0.04
    assert pair["ismcts_pick_by_reader"]["loss_shown"]["mean"] == 1.0
    assert pair["reader_pick_by_ismcts"]["loss_shown"]["mean"] == 0.0
    assert out["summary"]["players"]["reader"]["cpu_s_per_decision"]["mean"] == pytest.approx(0.01)
    assert out["summary"]["players"]["reader"]["cpu_s_per_decision"]["n"] == 3


def test_the_clairvoyance_tool_plays_both_seat_orders_of_a_deal_set_reproducibly():
    """A deal set is two matches (the clairvoyant in seat 0, then seat 1): its share is 0, 1/2 or 1, it decides
    at least once, and the same deal set plays the same way again (keyed streams, no hidden state)."""
    spec = importlib.util.spec_from_file_location(
        "measure_clairvoyance", BENCHMARKS.parent / "research/clairvoyance/measure.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    expert = tool.BASE_POLICIES.index("expert")
    runs = [tool.play_deal_set((5, match, "greedy", 8, expert)) for match in (0, 1, 0)]
    for share, decisions in runs:
        assert share in (0.0, 0.5, 1.0) and decisions > 0
    assert runs[0] == runs[2]


def test_stretches_split_at_twelve_unsampled_instructions_busiest_first():
    counts = [0, 5, 0, 3] + [0] * 12 + [9, 9, 0, 1] + [0] * 11 + [2]
    # 1..3 is one stretch; 16..19 another (eleven zeros do not end it, so 31 joins it)
    assert profile_kernel.stretches(counts) == [(16, 31), (1, 3)]
    assert profile_kernel.stretches([0, 0, 0]) == []


def test_a_compiled_function_name_loses_its_abi_tags_and_argument_types():
    name = (
        "bergen_sim::policies::expert::choose[abi:v134][abi:c8tJTC_2fWw](Array<long long, 1, C, mutable, "
        "aligned>, long long)"
    )
    assert profile_kernel.short(name) == "bergen_sim::policies::expert::choose"


def test_table_settings_read_numbers_and_switches():
    assert trees.game_settings("players=4,domino_set=double-nine,spinner=off") == {
        "players": 4,
        "domino_set": "double-nine",
        "spinner": False,
    }
    assert (
        trees.game_label({"players": 8, "domino_set": "double-eighteen", "partnerships": True})
        == "8p double-eighteen partnerships"
    )
    with pytest.raises(argparse.ArgumentTypeError):
        trees.game_settings("players")


sizes = _load("sizes")


def test_a_paired_ratio_cancels_what_both_runs_of_a_repeat_share():
    """Load that slows both modes of a repeat alike moves neither the ratio nor its interval; one pair has none."""
    one = [1.0, 2.0, 1.5, 3.0]
    assert sizes.paired_ratio([2 * x for x in one], one) == {"ratio": 2.0, "low": 2.0, "high": 2.0, "n": 4}
    noisy = sizes.paired_ratio([1.1, 0.9, 1.05, 0.95], [1.0, 1.0, 1.0, 1.0])
    assert noisy["low"] < 1.0 < noisy["high"] and noisy["n"] == 4
    assert sizes.paired_ratio([2.0], [1.0])["low"] is None


def _row(matches, one, two, default, play_s=0.0):
    """A size-sweep row as sizes.summarize keeps it (runs per mode), with its paired ratios."""
    row = {"tree": "new", "view": "command", "matches": matches}
    for mode, walls in (("1 worker", one), ("2 workers", two), ("default", default)):
        row[mode] = {"wall_s": sorted(walls)[len(walls) // 2], "runs_wall_s": walls, "play_s": play_s}
    return sizes.add_paired(row)


def test_the_size_goals_are_met_only_where_every_interval_shows_them():
    same = [1.0, 1.2, 0.9, 1.1]
    tight = _row(10_000, same, same, [x * 1.01 for x in same])  # default 1.01x, no spread
    wide = _row(30_000, same, same, [1.3, 0.9, 1.2, 0.8])  # default about 1.0x, wide interval
    slower = _row(100_000, same, same, [x * 1.2 for x in same])  # default 1.2x, every time
    fast = _row(1_000_000, [4.0, 4.2, 3.9], [2.0, 2.1, 1.95], [2.0, 2.1, 1.95], play_s=3.0)  # 2 workers 2.0x

    def judged(rows):
        return [(g["met"], g["measured"].split("; ", 1)[1]) for g in sizes.goals(rows)]

    assert judged([tight, fast]) == [
        (True, "every size's interval is at or below 1.05"),
        (True, "every such size's interval is at or above 1.9x"),
    ]
    assert judged([tight, wide])[0][0] is False
    assert judged([tight, wide])[0][1].startswith("no size shown above 1.05; the intervals reach")
    assert judged([tight, slower])[0] == (False, "shown above 1.05 at 100,000")
    half = _row(1_000_000, [4.0, 4.2, 3.9], [3.0, 3.1, 2.9], [3.0, 3.1, 2.9], play_s=3.0)  # 2 workers 1.35x
    assert judged([tight, half])[1] == (False, "shown below 1.9x at 1,000,000")


def test_two_workers_are_judged_on_the_play_time_too_where_the_runs_report_it():
    """A fresh command's start-up is shared by both modes and no core count shortens it: the wall-time ratio
    understates the speed-up of the play, so the sweep judges the play times the runs report as well."""
    row = {"tree": "new", "view": "command", "matches": 1_000_000}
    for mode, walls, plays in (
        ("1 worker", [3.5, 3.6, 3.4], [3.0, 3.1, 2.9]),
        ("2 workers", [2.0, 2.05, 1.95], [1.5, 1.55, 1.45]),
        ("default", [2.0, 2.05, 1.95], [1.5, 1.55, 1.45]),
    ):
        row[mode] = {"wall_s": walls[1], "runs_wall_s": walls, "play_s": plays[1], "runs_play_s": plays}
    judged = {g["key"]: (g["met"], g["measured"]) for g in sizes.goals([sizes.add_paired(row)])}
    assert judged["two_vs_one"][0] is False and judged["two_vs_one"][1].startswith("lowest 1.75")
    assert judged["two_vs_one_play"] == (
        True,
        "lowest 2.00 [2.00, 2.00]x at 1,000,000 matches; every such size's interval is at or above 1.9x",
    )


def test_two_workers_are_also_judged_against_the_machines_two_cores():
    """Two busy cores of a shared machine run slower than one: two unrelated one-worker runs at once (the
    ceiling) lose the same, so 2 workers are also judged against them (0.95 of them is 1.9x of perfect cores)."""
    row = {"tree": "new", "view": "api", "matches": 1_000_000}
    for mode, walls in (
        ("1 worker", [3.4, 3.5, 3.3]),
        ("2 workers", [1.8, 1.85, 1.75]),
        ("default", [1.8, 1.85, 1.75]),
        (sizes.CEILING, [1.8, 1.85, 1.75]),
    ):
        row[mode] = {"wall_s": walls[1], "runs_wall_s": walls}
    judged = {g["key"]: (g["met"], g["measured"]) for g in sizes.goals([sizes.add_paired(row)])}
    assert judged["two_vs_one"][0] is False  # 1.89x of one worker
    assert judged["two_vs_ceiling"] == (
        True,
        "lowest 1.00 [1.00, 1.00] at 1,000,000 matches; every such size's interval is at or above 0.95",
    )
    row[sizes.CEILING]["runs_wall_s"] = [1.6, 1.65, 1.55]  # the machine gives more than 2 workers get
    judged = {g["key"]: g["met"] for g in sizes.goals([sizes.add_paired(row)])}
    assert judged["two_vs_ceiling"] is False


def test_a_goal_whose_interval_spans_it_is_reported_as_not_decided():
    """ "no" is kept for a goal the intervals show missed; one they neither meet nor miss says so."""
    same = [1.0, 1.2, 0.9, 1.1]
    tight = _row(10_000, same, same, [x * 1.01 for x in same])
    wide = _row(30_000, same, same, [1.3, 0.9, 1.2, 0.8])
    slower = _row(100_000, same, same, [x * 1.2 for x in same])
    words = lambda rows: [sizes._met_text(g) for g in sizes.goals(rows)]  # noqa: E731
    assert words([tight]) == ["yes"]
    assert words([tight, wide]) == ["not decided"]
    assert words([tight, slower]) == ["no"]
    for row in (tight, wide):
        row["default"]["workers_used"] = [2]
    assert "| not decided |" in sizes.report(
        {
            "machine": {"date": "d", "cores": 2, "commit": "c"},
            "load_average_before": [0],
            "load_average_after": [0],
            "repeats": 4,
            "rows": [tight, wide],
            "goals": sizes.goals([tight, wide]),
        }
    )


#: runs a script (argv[2], its arguments after it) as if argv[1] were the package's checkout, with uncommitted changes
DIRTY_CHECKOUT = """
import runpy, sys
from pathlib import Path
from bergen_sim.core import provenance
root, script = Path(sys.argv[1]), sys.argv[2]
provenance.source_root = lambda: root
provenance.git_state = lambda: {"commit": "0123456789abcdef", "dirty": True}
sys.argv = sys.argv[2:]
sys.path.insert(0, str(Path(script).parent))
runpy.run_path(script, run_name="__main__")
"""


def _refused(script: str, args: list[str], says: str, tmp_path: Path | None = None, dirty: bool = False) -> None:
    """``script`` (under the project root) run with ``args`` ends with exit status 2 and one line that says ``says``,
    before any play; ``{tmp}`` in an argument is ``tmp_path``, which holds ``bad.json`` (not JSON) and
    ``list.json`` (JSON, but not an object).  ``dirty``: run as if ``tmp_path`` were the package's checkout, with
    uncommitted changes, and the benchmarks a copy in it (so a script that failed to refuse writes nothing here)."""
    import shutil
    import subprocess

    if tmp_path is not None:
        (tmp_path / "bad.json").write_text("not json")
        (tmp_path / "list.json").write_text("[1, 2]")
        args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    path = str(BENCHMARKS.parent / script)
    command = [sys.executable, path]
    if dirty:
        assert tmp_path is not None
        if script.startswith("benchmarks/"):
            shutil.copytree(BENCHMARKS, tmp_path / "benchmarks")
            path = str(tmp_path / script)
        command = [sys.executable, "-c", DIRTY_CHECKOUT, str(tmp_path), path]
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert says in error_lines(done.stderr.strip())[-1]


@pytest.mark.parametrize(
    "args, says",
    [
        (["--panel", "nosuch"], "unknown policy 'nosuch'"),
        (["--deal-sets", "0"], "--deal-sets and --rounds must be at least 1"),
        (["--players", "99"], "players must be 2..8"),
    ],
)
def test_the_tuning_tool_refuses_a_wrong_game_or_panel_in_one_line_before_any_play(args, says):
    _refused("tools/tune_expert.py", args, says)


@pytest.mark.parametrize(
    "script, args, says",
    [
        ("research/duplicate-deals/measure.py", ["--matches", "0"], "--matches must be 1..10,000,000, not 0"),
        ("research/duplicate-deals/measure.py", ["--seeds", "1,a"], "--seeds '1,a': give whole numbers"),
        ("research/duplicate-deals/measure.py", ["--out", "{tmp}/no/such.json"], "does not exist"),
        ("research/expert-weights/measure.py", ["--workers", "0"], "--workers must be 1..1,024, not 0"),
        ("research/expert-weights/measure.py", ["--out", "{tmp}"], "is a folder"),
        ("research/lead-choice/measure.py", ["--matches", "-1"], "--matches must be 1..10,000,000, not -1"),
        ("research/lead-choice/measure.py", ["--out", "x.txt"], "unknown file type '.txt'; use .json"),
        ("research/partner-model/measure.py", ["--matches", "0"], "--matches must be 1..100,000,000,000, not 0"),
        ("research/partner-model/measure.py", ["--seed", "-1"], "seed must be 0..18,446,744,073,709,551,615, not -1"),
        ("research/match-value/measure.py", ["--out", "{tmp}/no/such.json"], "does not exist"),
        ("research/luck-adjustment/measure.py", ["--policies", "greedy"], "give two policies"),
        ("research/luck-adjustment/measure.py", ["--policies", "nosuch,random"], "unknown policy 'nosuch'"),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--players", "3", "--partnerships"],
            "partnerships need 4, 6 or 8 players",
        ),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--matches", "119"],
            "--matches must be 120..10,000,000",
        ),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--rollouts", "0"],
            "--rollouts must be 1..10,000",
        ),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--model", "expert=greedy"],
            "luck model 'expert': not one of the compared policies (greedy, random)",
        ),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--model", "greedy=ismcts"],
            "luck model greedy=ismcts: the play-outs can play random, first",
        ),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--model", "greedy=pimc:worlds=0"],
            "luck model greedy=pimc:worlds=0: policy 'pimc:worlds=0': worlds must be a whole number in 1..100000",
        ),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--workers", "0"],
            "--workers must be 1..256",
        ),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--model", "greedy"],
            "give NAME=MODEL",
        ),
        (
            "research/luck-adjustment/measure.py",
            ["--policies", "greedy,random", "--out", "{tmp}/bad.json"],
            "cannot read it as JSON",
        ),
        (
            "research/luck-adjustment/replicate.py",
            ["--policies", "greedy", "--out", "{tmp}/r.json"],
            "give two policies",
        ),
        ("research/luck-adjustment/replicate.py", ["--policies", "a,b,c", "--out", "{tmp}/r.json"], "give two"),
        (
            "research/luck-adjustment/replicate.py",
            ["--policies", "expert,greedy", "--runs", "2", "--out", "{tmp}/r.json"],
            "--runs must be 3..10,000, not 2",
        ),
        (
            "research/luck-adjustment/replicate.py",
            ["--policies", "expert,pimc", "--truth", "{tmp}/no.parquet", "--out", "{tmp}/r.json"],
            "no.parquet",
        ),
        (
            "research/luck-adjustment/replicate.py",
            ["--policies", "expert,greedy", "--out", "{tmp}/bad.json"],
            "cannot read it as JSON",
        ),
        ("research/imitation/measure.py", ["--searcher", "nosuch"], "unknown policy 'nosuch'"),
        ("research/imitation/measure.py", ["--matches", "3"], "--matches must be 4..100,000"),
        ("research/imitation/measure.py", ["--out", "{tmp}/bad.json"], "cannot read it as JSON"),
        ("research/analyzer-engine/measure.py", ["--matches", "1"], "--matches must be 2..10,000"),
        ("research/analyzer-engine/measure.py", ["--worlds", "0"], "--worlds must be 2..1,000,000"),
        ("research/analyzer-engine/measure.py", ["--player", "ismcts"], "give two --player values or more"),
        ("research/analyzer-engine/measure.py", ["--player", "expert"], "invalid choice: 'expert'"),
        ("research/analyzer-engine/measure.py", ["--out", "{tmp}/x.txt"], ".json"),
        ("research/clairvoyance/measure.py", ["--opponent", "nosuch"], "unknown policy 'nosuch'"),
        ("research/clairvoyance/measure.py", ["--deal-sets", "1"], "--deal-sets must be 2..100,000"),
        ("research/clairvoyance/measure.py", ["--worlds", "0"], "--worlds must be 1..100,000"),
        ("research/clairvoyance/measure.py", ["--out", "{tmp}/bad.json"], "cannot read it as JSON"),
        ("research/search-strength/measure.py", ["--scale", "nan"], "--scale nan: give a number above 0"),
        ("research/search-strength/measure.py", ["--scale", "0"], "--scale 0.0: give a number above 0"),
        ("research/search-strength/measure.py", ["--out", "{tmp}/list.json"], "holds no 'games' of this tool"),
        ("tools/compare_trees.py", ["--old", "{tmp}", "--out", "{tmp}/out"], "not a bergen-sim source tree"),
        (
            "tools/compare_trees.py",
            ["--old", str(BENCHMARKS.parent), "--out", "{tmp}/out", "--only", "nosuch"],
            "no such configuration",
        ),
        ("tools/doc_examples.py", ["nosuch"], "no example 'nosuch'; choose from compare, analyze"),
        ("benchmarks/run.py", ["--workers", "0", "--no-save"], "argument --workers: must be 1..1,024, not 0"),
        ("benchmarks/sets.py", ["--repeats", "0", "--no-save"], "argument --repeats: must be 1 or more, not 0"),
        ("benchmarks/c_anchor.py", ["--repeats", "0", "--no-save"], "argument --repeats: must be 1 or more, not 0"),
        ("benchmarks/c_anchor.py", ["--old", "nosuch", "--no-save"], "'nosuch' has no benchmarks/c_loop/bergen_loop.c"),
        ("benchmarks/sets.py", ["--seconds", "nan", "--no-save"], "argument --seconds: nan is not a number of seconds"),
        ("benchmarks/sizes.py", ["--min", "1000", "--max", "10", "--no-save"], "--min 1,000 is above --max 10"),
        ("benchmarks/sizes.py", ["--views", "nosuch", "--no-save"], "--views nosuch: give command, api or command,api"),
        ("benchmarks/startup_times.py", ["--old", "{tmp}", "--no-save"], "not a bergen-sim source tree"),
        ("benchmarks/startup_times.py", ["--rounds", "0", "--no-save"], "argument --rounds: must be 1 or more, not 0"),
        ("benchmarks/trees.py", ["--old", "{tmp}"], "not a bergen-sim source tree"),
        ("benchmarks/trees.py", ["--old", str(BENCHMARKS.parent), "--game", "players=99"], "players must be 2..8"),
        (
            "benchmarks/trees.py",
            ["--old", str(BENCHMARKS.parent), "--policies", "random,nosuch"],
            "unknown policy 'nosuch'",
        ),
        ("benchmarks/search_cost.py", ["--set", "colour=red"], "unknown setting 'colour'"),
        ("benchmarks/search_cost.py", ["--policy", "nosuch"], "unknown policy 'nosuch'"),
        ("benchmarks/search_cost.py", ["--out", "{tmp}/bad.json"], "cannot read it as JSON"),
        ("benchmarks/world_cost.py", ["--domino-set", "nosuch"], "domino_set must be one of"),
        ("benchmarks/world_cost.py", ["--samples", "0"], "argument --samples: must be 1 or more, not 0"),
        ("benchmarks/profile_kernel.py", ["--policy", "nosuch"], "unknown policy 'nosuch'"),
        ("benchmarks/profile_kernel.py", ["--listing", "{tmp}"], "is a folder"),
    ],
)
def test_the_developer_scripts_refuse_a_wrong_argument_in_one_line_before_any_play(script, args, says, tmp_path):
    """A wrong count, game, policy, tree or --out is exit status 2 and one line, never a traceback after minutes of
    play, a run of nothing, a docs rewrite for a misspelt --check, or figures lost when --out cannot be written."""
    _refused(script, args, says, tmp_path)


@pytest.mark.parametrize(
    "script, args",
    [
        ("research/analyzer-engine/measure.py", ["--out", "{tmp}/r.json"]),
        ("research/clairvoyance/measure.py", ["--out", "{tmp}/r.json"]),
        ("research/duplicate-deals/measure.py", ["--out", "{tmp}/r.json"]),
        ("research/expert-weights/measure.py", ["--out", "{tmp}/r.json"]),
        ("research/imitation/measure.py", ["--out", "{tmp}/r.json"]),
        ("research/lead-choice/measure.py", ["--out", "{tmp}/r.json"]),
        ("research/luck-adjustment/measure.py", ["--policies", "greedy,random", "--out", "{tmp}/r.json"]),
        ("research/luck-adjustment/replicate.py", ["--policies", "greedy,random", "--out", "{tmp}/r.json"]),
        ("research/match-value/measure.py", ["--out", "{tmp}/r.json"]),
        ("research/partner-model/measure.py", ["--out", "{tmp}/r.json"]),
        ("research/search-strength/measure.py", ["--out", "{tmp}/r.json"]),
        ("benchmarks/search_cost.py", ["--out", "{tmp}/r.json"]),
        ("benchmarks/run.py", []),
        ("benchmarks/sets.py", []),
        ("benchmarks/c_anchor.py", []),
        ("benchmarks/first_runs.py", []),
        ("benchmarks/search_compile.py", []),
        ("benchmarks/sizes.py", []),
        ("benchmarks/startup_times.py", []),
        ("benchmarks/trees.py", ["--old", str(BENCHMARKS.parent), "--save", "a change"]),
    ],
)
def test_a_result_into_a_checkout_with_uncommitted_changes_is_refused_in_one_line_before_any_play(
    script, args, tmp_path
):
    """Every script that writes a result file into the checkout refuses, before it plays or times anything, while
    the checkout has uncommitted changes: its file would name a commit that did not make it (--allow-dirty runs
    anyway, and the file's provenance says dirty)."""
    _refused(script, args, "has uncommitted changes: commit them first, or pass --allow-dirty", tmp_path, dirty=True)


def test_allow_dirty_lets_a_script_past_the_check(tmp_path):
    """--allow-dirty: the dirty checkout is no longer refused; the next check (one analyzer is no comparison) is."""
    args = ["--allow-dirty", "--player", "ismcts", "--out", "{tmp}/r.json"]
    _refused("research/analyzer-engine/measure.py", args, "give two --player values or more", tmp_path, dirty=True)


def test_the_search_compile_table_gives_each_first_run_and_the_ratio_of_the_trees():
    """benchmarks/search_compile.py's saved section as results.md shows it, and as feedback's note describes it."""
    import json

    from bergen_sim.core import feedback

    search_compile = _load("search_compile")
    section = json.loads((BENCHMARKS / "results.json").read_text())["search_compile"]
    text = search_compile.report(section)
    assert text in (BENCHMARKS / "results.md").read_text()
    for name, row in section["commands"].items():
        assert f"| {name} | {row['new']['wall_s']:.0f} s, {row['new']['cpu_s']:.0f} s |" in text
    # the note a first compile of a search player is announced with: a minute or two, as measured
    waits = [row["new"]["wall_s"] for row in section["commands"].values()]
    assert 60 <= min(waits) and max(waits) <= 180 and "a minute or two" in feedback.SEARCH_COMPILE_NOTE


def test_the_first_runs_table_shows_each_run_and_judges_the_goals_on_what_it_measured():
    """benchmarks/first_runs.py's saved section as results.md shows it; a goal is met only below its limit."""
    import json

    first_runs = _load("first_runs")
    section = json.loads((BENCHMARKS / "results.json").read_text())["first_runs"]
    text = first_runs.report(section)
    assert text in (BENCHMARKS / "results.md").read_text()
    runs = section["runs"]
    assert f"| Run it, total | {runs['run_it']['wall_s']:.1f} s | {runs['run_it']['cpu_s']:.1f} s |" in text
    assert section["goals"] == first_runs.goals(section)
    slower = {**section, "runs": {**runs, "second": {"wall_s": first_runs.GOAL_SECOND_S, "cpu_s": 1.0}}}
    assert [goal["met"] for goal in first_runs.goals(slower)][0] is False


def test_a_benchmark_run_says_how_fast_the_host_was():
    """Every run records the speed probe (a fixed Python loop), the uptime and the steal share beside its figures,
    and its header says them in words; an older results file without them says the probe was not recorded."""
    bench = _load("run")
    state = bench.host_state()
    assert state["speed_probe_ms"] > 0
    assert set(state) <= {"speed_probe_ms", "uptime_hours", "steal_share_since_boot"}
    line = bench.host_line({**state, "speed_probe_ms": 45.1, "speed_probe_ms_at_end": 90.2, "uptime_hours": 3.5})
    assert "45.1 ms at the start, 90.2 ms at the end" in line and "up 3.5 h" in line
    assert bench.host_line({"date": "d"}) == "speed probe not recorded"
    assert "probe (a fixed Python loop; lower is faster) 45.1 ms, up" in bench.host_line(
        {**state, "speed_probe_ms": 45.1}
    )


def test_the_probe_alone_prints_how_fast_the_host_is_and_measures_nothing_else():
    import subprocess

    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "run.py"), "--probe"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("speed probe (a fixed Python loop; lower is faster) ") and " ms, up " in done.stdout
    assert len(done.stdout.splitlines()) == 1


def test_the_c_anchor_divides_by_the_faster_of_its_own_builds():
    """Every ratio divides by the faster build of the anchor's own source in the run, never by a faster loop that
    plays other deals (the experiment); the goals and the page name that build, and a saved section without
    ``anchor_build`` (an older run) is read against its first variant."""
    c_anchor = _load("c_anchor")

    def variant(label, speed, same=True):
        return {
            "variant": label,
            "hands_per_s": speed,
            "hands_per_cpu_s": speed,
            "same_matches_as_anchor": same,
            "built": f"built {label}",
            "matches": 10,
            "hands": 40,
            "runs_s": [1.0],
        }

    pgo, plain = variant("anchor", 2.7e6), variant("anchor, no PGO", 2.9e6)
    experiment = variant("experiment: xoshiro256**, Lemire, lazy shuffle", 3.2e6, same=False)
    assert c_anchor.fastest_build([pgo, plain, experiment]) is plain
    assert c_anchor.fastest_build([{**pgo, "hands_per_s": 3.0e6}, plain, experiment])["variant"] == "anchor"
    section = {
        "variants": [pgo, plain, experiment],
        "anchor_build": "anchor, no PGO",
        "rows": [
            {
                "row": "2 players, random",
                "ratio": 0.6,
                "cpu_ratio": 0.6,
                "matches": 10,
                "hands": 40,
                "hands_per_s": 1.74e6,
                "hands_per_cpu_s": 1.74e6,
                "same_totals_as_anchor": True,
            }
        ],
        "machine": {"date": "d", "cpu": "c", "commit": "x"},
        "load_average_before": [0],
        "load_average_after": [0],
        "repeats": 3,
        "seed": 1,
        "seconds": 2.0,
    }
    section["goals"] = c_anchor.goals(section)
    assert section["goals"][0]["measured"].startswith("2,900,000 hands/s")
    page = c_anchor.report(section)
    assert "| anchor, no PGO (the anchor) | 2,900,000 |" in page and "built anchor, no PGO (the faster" in page
    del section["anchor_build"]
    assert c_anchor.goals(section)[0]["measured"].startswith("2,700,000 hands/s")


def test_the_numba_loop_plays_the_engines_matches_and_is_never_the_anchor():
    """benchmarks/numba_loop.py, the anchor's loop in Numba, plays exactly the engine's matches (every total the
    C loop reports agrees), and however fast it runs the ratios never divide by it."""
    numba_loop = _load("numba_loop")
    from bergen_sim.engine import layout as L
    from bergen_sim.model.rules import Rules
    from bergen_sim.services.execution.jobs import engine_for

    mine = numba_loop.run(2_000, 7)
    totals = (
        engine_for(Rules.make(players=2), ("random", "random"))
        .play(seed=7, first_match=0, n_matches=2_000, match_rows=False)
        .totals
    )
    for name in ("matches", "hands", "plays", "double_headers", "triple_headers"):
        assert mine[name] == totals[getattr(L, "S_" + name.upper())], name
    assert mine["wins"] == [int(totals[L.S_MATCH_WINS]), int(totals[L.S_MATCH_WINS + 1])]
    assert mine["hands"] > 2_000 and mine["seconds"] > 0
    c_anchor = _load("c_anchor")
    fast = {"variant": c_anchor.NUMBA_LOOP, "hands_per_s": 9e9, "same_matches_as_anchor": True}
    plain = {"variant": "anchor, no PGO", "hands_per_s": 2.9e6, "same_matches_as_anchor": True}
    assert c_anchor.fastest_build([fast, plain]) is plain
