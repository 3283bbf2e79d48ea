"""Plug-in policies end to end through the installed ``bergen-sim`` command, run from the project root.

Two kernels only (a cold compile costs 10-20 s): the example plug-in against
``random`` by ``package.module:function``, and the two misbehaving fixtures of
tests/plugins_bad.py, which are also how the entry-point path is exercised:
a temporary ``*.dist-info`` folder on PYTHONPATH registers them under the
``bergen_sim.policies`` group exactly as an installed package would.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bergen_sim.cli import cli
from bergen_sim.runtime import registry
from tests.helpers import error_lines

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "examples.cautious:choose"
#: a plug-in of the first interface (five arguments: it reads one-word hands)
EXAMPLE_FIVE = "tests.plugins_bad:illegal"


def bergen_sim(*args: str, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    """Run the console script from the project root, as a user would."""
    script = Path(sys.executable).with_name("bergen-sim")
    command = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from bergen_sim.cli import main; raise SystemExit(main())"]
    )
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), env.get("PYTHONPATH")]))
    return subprocess.run(command + list(args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def plugin_dist(tmp_path_factory) -> Path:
    """A folder holding a minimal installed distribution that registers four policies by entry point (one broken)."""
    folder = tmp_path_factory.mktemp("site")
    info = folder / "bergen_sim_test_plugins-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bergen-sim-test-plugins\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[bergen_sim.policies]\n"
        f"cautious = {EXAMPLE}\n"
        "bad-illegal = tests.plugins_bad:illegal\n"
        "bad-raises = tests.plugins_bad:raises\n"
        "broken = tests.no_such_module:choose\n"
    )
    return folder


@pytest.mark.slow
def test_example_plugin_runs_by_module_and_function():
    done = bergen_sim(
        "simulate", "--policy", EXAMPLE, "--policy", "random", "--matches", "3000", "--seed", "4", "--json"
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["matches"] == 3000 and summary["policies"] == [EXAMPLE, "random"]
    assert summary["policy_calls"] > 10_000
    wins = summary["match_win_rate"][0]
    assert wins["low"] > 0.5, "the example scores whenever it can, so it must beat random"


def test_policies_lists_builtins_and_entry_points(plugin_dist):
    done = bergen_sim("policies", pythonpath=plugin_dist)
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    for name in registry.BUILTINS:
        assert "built-in" in lines[name] and len(lines[name].split("built-in", 1)[1].strip()) > 10
    assert "plug-in" in lines["cautious"] and EXAMPLE in lines["cautious"]
    assert "Score if you can" in lines["cautious"]  # the function's docstring
    assert "plug-in" in lines["bad-illegal"]
    assert "cannot be loaded" in lines["broken"] and "no_such_module" in lines["broken"]


def test_entry_point_names_resolve_through_the_registry(plugin_dist, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin_dist))
    monkeypatch.syspath_prepend(str(ROOT))
    ref = registry.resolve("cautious")
    assert (ref.name, ref.module, ref.function) == ("cautious", "examples.cautious", "choose")
    assert Path(ref.source_file) == ROOT / "examples" / "cautious.py"
    assert "cautious" in [r.name for r in registry.available()]


@pytest.mark.parametrize(
    "seats, policy, what",
    [
        (("bad-illegal", "bad-raises"), "bad-illegal", "returned move 2, but only moves 0..1 are legal"),
        (("bad-raises", "bad-illegal"), "bad-raises", "raised ValueError: this plug-in always fails"),
    ],
)
@pytest.mark.slow
def test_a_misbehaving_plugin_stops_the_run_with_one_line(plugin_dist, tmp_path, seats, policy, what):
    """The same deals in both seat orders: the seat deciding first is the same, its policy's error differs."""
    out = tmp_path / "rows.parquet"
    done = bergen_sim(
        "simulate",
        "--policy",
        seats[0],
        "--policy",
        seats[1],
        "--matches",
        "50",
        "--seed",
        "1",
        "--out",
        str(out),
        pythonpath=plugin_dist,
    )
    assert done.returncode == 2
    lines = error_lines(done.stderr.strip())
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"bergen-sim: error: policy {policy!r} at seat 0 ")
    assert what in lines[0]
    assert "(match 0, hand " in lines[0] and ", ends L " in lines[0]  # the position
    assert ", U " not in lines[0], "the table's two open ends, not four empty slots"
    assert list(tmp_path.iterdir()) == [], "nothing may be left half-written"


def test_a_five_argument_plugin_is_refused_with_three_word_hands():
    """A plug-in written for one-word hands would read a third of a double-twelve hand: one line, no run."""
    done = bergen_sim(
        "simulate", "--policy", EXAMPLE_FIVE, "--players", "6", "--set", "domino_set=double-twelve", "--matches", "10"
    )
    assert done.returncode == 2
    lines = error_lines(done.stderr.strip())
    assert len(lines) == 1 and "takes 5 arguments" in lines[0] and "no_tiles" in lines[0], done.stderr


@pytest.mark.slow  # a plug-in kernel of its own under any-double: about 33 s of a cold default run
def test_a_plugin_without_choose_lead_leads_its_lowest_double(tmp_path):
    """lead = any-double asks the leader's policy; the example has no choose_lead, so it leads its lowest double."""
    out = tmp_path / "t.jsonl"
    done = bergen_sim(
        "trace",
        "--policy",
        EXAMPLE,
        "--policy",
        "random",
        "--preset",
        "classic",
        "--matches",
        "30",
        "--seed",
        "3",
        "-o",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in out.read_text().splitlines()]
    hands, checked = {}, 0
    for event in events:
        if event["type"] == "deal":
            hands = event["hands"]
        elif event["type"] == "lead" and event["seat"] == 0:
            doubles = [t for t in hands[0] if t.split("-")[0] == t.split("-")[1]]
            assert event["tile"] == min(doubles, key=lambda t: int(t.split("-")[0]))
            checked += 1
    assert checked >= 20


def test_builtins_read_from_source_are_exactly_the_imported_modules_with_name_and_choose():
    """The registry lists built-ins from their source (no Numba at start-up); importing them must agree."""
    import importlib
    import pkgutil

    imported = {}
    for package_name in registry.BUILTIN_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package_name}.{info.name}")
            if getattr(module, "NAME", None) and hasattr(module, "choose"):
                doc = module.__doc__.strip().splitlines()[0]
                imported[module.NAME] = (module.__name__, "choose", doc.split(":", 1)[-1].strip())
    assert registry.BUILTINS == imported
    assert {"random", "first", "greedy", "expert", "pimc"} <= set(imported)
    for name, (module_name, _, _) in registry.BUILTINS.items():
        assert registry.builtin_params(name) == getattr(importlib.import_module(module_name), "PARAMS", {})


def test_a_builtins_settings_are_declared_once_with_their_meaning():
    """PARAMS holds every setting's default, values and help; the module's docstring does not restate them."""
    from bergen_sim.policies.base import Setting

    with_settings = 0
    for name, (module_name, _, _) in registry.BUILTINS.items():
        module = importlib.import_module(module_name)
        params = getattr(module, "PARAMS", {})
        with_settings += bool(params)
        for key, setting in params.items():
            assert isinstance(setting, Setting) and setting.meaning.strip(), (
                f"{name}: {key} needs a Setting with a meaning"
            )
            assert setting.default == setting.allowed[setting.allowed.index(setting.default)], f"{name}: {key}"
            assert f"``{key}``: " not in module.__doc__, f"{name}'s docstring restates the setting {key}"
        assert "(settings:" not in module.__doc__
    assert with_settings >= 4


def test_policies_lists_each_setting_with_its_meaning():
    result = CliRunner().invoke(cli, ["policies", "--settings"])
    assert result.exit_code == 0, result.output
    for name in ("pimc", "reader", "ismcts", "expert"):
        for key, setting in registry.builtin_params(name).items():
            assert (
                f"{key}={registry.setting_values(setting)} (default {setting.default}): {setting.meaning}"
                in result.output
            )


def test_looking_up_one_builtin_finds_what_listing_them_all_finds():
    """A command resolving one policy parses only the modules that may declare it (start-up time); the answer is
    the full table's, and a name that is no built-in is not found either way."""
    every = registry._builtins()
    for name, entry in every.items():
        table = registry._BuiltinTable()
        assert table[name] == entry and table._every is None, name  # found without listing them all
    assert "nosuch" not in registry._BuiltinTable()
    assert registry._builtins(only="random") == {"random": every["random"]}


def test_a_module_declares_a_builtin_only_with_a_literal_name_and_a_choose(tmp_path):
    source = tmp_path / "m.py"
    cases = [
        ('"""Doc: one line."""\nNAME = "x"\ndef choose(): pass\n', ("x", "one line.")),
        ('NAME = "x"\nfrom a import f as choose\n', ("x", "")),
        ('NAME: str = "x"\ndef choose(): pass\n', ("x", "")),
        ('NAME = "x"\n', None),
        ('def f():\n    NAME = "x"\ndef choose(): pass\n', None),
        ("NAME = compute()\ndef choose(): pass\n", None),
        ("def choose(): pass\n", None),
        ("NAME = 'x'\nthis is not Python\n", None),
    ]
    for text, expected in cases:
        source.write_text(text)
        assert registry._declared_policy(str(source)) == expected, text


PROBE = """
open({marker!r}, "a").write("imported\\n")
from numba import njit


@njit
def choose(view, move_tiles, move_ends, n_moves, rng):
    return 0
"""


def test_a_plugin_named_in_the_current_folder_is_found_without_putting_the_folder_on_sys_path(tmp_path, monkeypatch):
    """`--policy cwdplug:choose` from its folder works; the folder itself never answers other imports."""
    import importlib
    import sys

    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "marker"
    (tmp_path / "cwdplug.py").write_text(PROBE.format(marker=str(marker)))
    (tmp_path / "cwdshadow.py").write_text(PROBE.format(marker=str(marker)))  # like a stray json.py or dask.py
    ref = registry.resolve("cwdplug:choose")
    assert Path(ref.source_file) == tmp_path / "cwdplug.py" and marker.read_text() == "imported\n"
    assert str(tmp_path) not in sys.path and "" not in sys.path[1:] and os.getcwd() not in sys.path
    with pytest.raises(ImportError):
        importlib.import_module("cwdshadow")
    assert marker.read_text() == "imported\n"
    monkeypatch.delitem(sys.modules, "cwdplug")


def test_a_module_named_in_a_file_is_refused_before_it_is_looked_up(tmp_path, monkeypatch):
    """A name read from a file: built-ins and entry points resolve, a module path is refused without a look-up."""
    import importlib.util

    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "marker"
    (tmp_path / "filemod.py").write_text(PROBE.format(marker=str(marker)))
    looked_up = []
    monkeypatch.setattr(importlib.util, "find_spec", lambda *a, **k: looked_up.append(a))
    with pytest.raises(registry.ModuleNotAllowed, match="--allow-plugins"):
        registry.resolve("filemod:choose", "--allow-plugins")
    with pytest.raises(registry.ModuleNotAllowed, match="--allow-plugins"):
        registry.resolve("os.path:join", "--allow-plugins")
    assert not marker.exists() and looked_up == []
    monkeypatch.undo()
    assert registry.resolve("greedy", "--allow-plugins").module == registry.BUILTINS["greedy"][0]
