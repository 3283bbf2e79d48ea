"""What a wheel must carry: the analyses and the example plug-in inside the package, metadata, py.typed.

The CI script also builds the wheel and the sdist, installs the wheel in a
fresh environment and runs ``report all --quick`` and the example plug-in
from outside the source tree; these tests check the same things cheaply in
the installed (editable) package.
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from bergen_sim.cli import main
from bergen_sim.runtime import registry
from bergen_sim.services.analysis import reporting as analysis
from bergen_sim.services.execution import parallel

ROOT = Path(__file__).resolve().parents[2]


def test_analyses_are_found_through_the_package_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./analyses here
    shipped = Path(str(importlib.resources.files("bergen_sim.analyses")))
    assert analysis.PROJECT_ANALYSES == shipped
    found = analysis.discover()
    assert {"lead_advantage", "header_frequency", "settlement", "policy_table", "variants"} <= set(found)
    assert all(path.parent == shipped for path in found.values())
    assert "__init__" not in found


def test_example_plugin_resolves_through_the_package_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ref = registry.resolve("bergen_sim.examples.cautious:choose")
    assert Path(ref.source_file).name == "cautious.py"
    assert Path(ref.source_file).parent == Path(str(importlib.resources.files("bergen_sim.examples")))


def test_metadata_is_complete():
    meta = importlib.metadata.metadata("bergen-sim")
    assert meta["License-Expression"] == "MIT"
    assert "LICENSE" in (meta.get_all("License-File") or [])
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and any(c.startswith("Topic ::") for c in classifiers)
    assert "dominoes" in meta["Keywords"]
    assert set(meta.get_all("Provides-Extra")) >= {"dask", "test"}
    requires = meta.get_all("Requires-Dist")
    assert not any(r.startswith("dask") and "extra ==" not in r for r in requires), "Dask must be an extra"
    assert (Path(str(importlib.resources.files("bergen_sim"))) / "py.typed").is_file()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_sdist_manifest_carries_the_tests_and_their_data():
    manifest = (ROOT / "MANIFEST.in").read_text()
    assert "recursive-include tests *.py *.jsonl" in manifest
    assert any((ROOT / "tests" / "golden").glob("*.jsonl"))


def test_scheduler_without_dask_says_what_to_install(capsys, monkeypatch):
    monkeypatch.setattr(parallel, "dask_installed", lambda: False)
    status = main(["simulate", "--matches", "10", "--scheduler", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.strip().count("\n") == 0
    assert "pip install 'bergen-sim[dask]'" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "lead_advantage", "--quick", "--scheduler", "local"],
        ["compare", "--policy", "first,random", "--scheduler", "local"],
    ],
)
def test_every_command_with_scheduler_refuses_without_dask(capsys, monkeypatch, tmp_path, argv):
    monkeypatch.setattr(parallel, "dask_installed", lambda: False)
    assert main(argv + (["--out", str(tmp_path / "r")] if argv[0] == "report" else [])) == 2
    assert "bergen-sim[dask]" in capsys.readouterr().err


#: the optional extras the light `test` extra leaves out (their tests skip without them)
HEAVY = {"dask", "open-spiel", "gymnasium"}


def _needs(extras: dict[str, list[str]], name: str) -> set[str]:
    """The distributions an extra installs, its references to the project's own extras followed."""
    found = set()
    for text in extras[name]:
        requirement = Requirement(text)
        if requirement.name == "bergen-sim":
            for extra in requirement.extras:
                found |= _needs(extras, extra)
        else:
            found.add(requirement.name.replace("_", "-").lower())
    return found


def test_the_test_extra_is_light_and_test_full_adds_every_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert not _needs(extras, "test") & HEAVY
    assert _needs(extras, "test-full") >= _needs(extras, "test") | HEAVY


def test_ci_runs_the_readme_test_command_verbatim_first_then_every_extra():
    ci = ROOT / ".ci" / "run"
    if not ci.exists():
        pytest.skip("a source distribution carries no .ci/run")
    readme = (ROOT / "README.md").read_text()
    command = readme.split("**Test it**", 1)[1].split("```bash\n", 1)[1].split("\n```", 1)[0]
    lines = [line for line in ci.read_text().splitlines() if line.strip() and not line.startswith("#")]
    first = lines.index(command)
    assert not any("pip install" in line or "pytest" in line for line in lines[:first])
    full = lines.index('pip install -e ".[test-full]"')
    assert first < full < lines.index('python -m pytest -m "extras or slow"')


def test_ci_builds_the_docs_site_strictly_after_the_slow_tier():
    """The `docs` extra holds the site's generator and plug-ins, and .ci/run builds the site in strict mode (a broken
    link fails) after the slow tier, with that extra installed."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {"mkdocs", "mkdocs-material", "mkdocstrings", "mkdocs-click"} <= _needs(extras, "docs")
    config = (ROOT / "mkdocs.yml").read_text()
    assert "strict: true" in config and "not_found: warn" in config and "anchors: warn" in config
    ci = ROOT / ".ci" / "run"
    if not ci.exists():
        pytest.skip("a source distribution carries no .ci/run")
    lines = [line for line in ci.read_text().splitlines() if line.strip() and not line.startswith("#")]
    build = next(k for k, line in enumerate(lines) if line.startswith("mkdocs build --strict"))
    assert lines.index('python -m pytest -m "extras or slow"') < lines.index('pip install -e ".[docs]"') < build


def test_a_fast_test_that_needs_a_kernel_or_a_process_fails_saying_so():
    """This module is in the fast tier (tests/conftest.py): what would make it slow on a cold cache fails it."""
    from numba import njit

    @njit
    def twice(x):
        return 2 * x

    with pytest.raises(pytest.fail.Exception, match="fast tier .* needs the kernel .*twice"):
        twice(1)
    with pytest.raises(pytest.fail.Exception, match="fast tier .* starts a process"):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
