"""Where a result came from (bergen_sim/core/provenance.py): the checkout's state, and the refusal of a result
written into a checkout with uncommitted changes."""

from __future__ import annotations

import subprocess

import pytest

from bergen_sim.core import provenance


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A git repository with one commit, standing in for the package's checkout."""

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / ".gitignore").write_text("ignored/\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first")
    monkeypatch.setattr(provenance, "_SOURCE_ROOT", tmp_path)
    provenance.git_state.cache_clear()
    yield tmp_path
    provenance.git_state.cache_clear()  # the next test sees the real checkout again


def _state() -> dict:
    provenance.git_state.cache_clear()
    state = provenance.git_state()
    assert state is not None
    return state


def test_a_new_result_file_leaves_the_checkout_clean_and_a_changed_or_new_source_does_not(checkout):
    assert _state()["dirty"] is False
    (checkout / "result.json").write_text("{}")  # a run's own output, not yet committed
    (checkout / "ignored").mkdir()
    (checkout / "ignored" / "x.py").write_text("")  # ignored files are no part of the checkout
    assert _state()["dirty"] is False
    (checkout / "analyses").mkdir()
    (checkout / "analyses" / "new.py").write_text("")  # found by listing the folder: it changes what runs
    assert _state()["dirty"] is True
    (checkout / "analyses" / "new.py").unlink()
    (checkout / "pyproject.toml").write_text("[project]\nname = 'y'\n")
    assert _state() == {"commit": _state()["commit"], "dirty": True}


def test_a_result_into_a_dirty_checkout_is_refused_in_one_line_and_a_clean_one_passes(checkout):
    provenance.check_clean(checkout / "result.json", False)  # clean
    (checkout / "pyproject.toml").write_text("changed\n")
    provenance.git_state.cache_clear()
    with pytest.raises(provenance.UncommittedChanges) as refused:
        provenance.check_clean(checkout / "research" / "result.json", False)
    message = str(refused.value)
    assert "\n" not in message and "has uncommitted changes: commit them first, or pass --allow-dirty" in message
    assert _state()["commit"][:12] in message
    provenance.check_clean(checkout / "result.json", True)  # --allow-dirty
    provenance.check_clean(checkout.parent / "elsewhere" / "result.json", False)  # the user's own folder


def test_a_result_is_never_refused_where_there_is_no_checkout(monkeypatch, tmp_path):
    monkeypatch.setattr(provenance, "source_root", lambda: None)  # an installed package
    monkeypatch.setattr(provenance, "git_state", lambda: pytest.fail("asked git outside a checkout"))
    provenance.check_clean(tmp_path / "result.json", False)


def test_a_result_record_holds_commit_tree_version_command_time_and_environment():
    record = provenance.result_record()
    assert set(record) >= {"version", "command", "created_utc", "git", "versions", "cpus", "platform"}
    assert record["versions"]["python"] and record["versions"]["numpy"]
