"""The compile cache: keyed by what machine code depends on, and no side effect on import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bergen_sim.core import compile_cache

PACKAGE = Path(compile_cache.__file__).resolve().parents[1]  # bergen_sim/


def test_cache_key_reads_only_the_compiled_packages(monkeypatch):
    """Editing a command's help text or a report cannot change the key, so nothing recompiles."""
    read: list[Path] = []
    original = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self) or original(self))
    compile_cache.source_digest.cache_clear()
    try:
        compile_cache.source_digest()
    finally:
        compile_cache.source_digest.cache_clear()
    folders = {p.resolve().relative_to(PACKAGE).parts[0] for p in read}
    assert folders == set(compile_cache.COMPILED_PACKAGES)
    assert any(p.name == "hand.py" for p in read) and not any(p.parts[-2] == "cli" for p in read)


def test_locator_applies_to_package_files_and_kernels_only(tmp_path, monkeypatch):
    monkeypatch.setenv("BERGEN_SIM_CACHE_DIR", str(tmp_path))
    assert compile_cache._is_ours(str(PACKAGE / "engine" / "hand.py"))
    assert compile_cache._is_ours(str(tmp_path / "kernels" / "kernel_abc.py"))
    assert not compile_cache._is_ours(str(tmp_path / "elsewhere.py"))


def test_the_locator_checks_a_cache_folder_by_writing_to_it_once(tmp_path, monkeypatch):
    """Every compiled function asks the locator when its module is imported; Numba's check that the folder takes
    files (a file written and deleted) runs once per folder, not once per function."""
    from numba.core import caching

    monkeypatch.setenv("BERGEN_SIM_CACHE_DIR", str(tmp_path))
    written = []
    temporary_file = caching.tempfile.TemporaryFile
    monkeypatch.setattr(
        caching.tempfile, "TemporaryFile", lambda **kw: written.append(kw["dir"]) or temporary_file(**kw)
    )
    compile_cache.install_cache_locator()
    locator = caching.CacheImpl._locator_classes[0]
    kernel = tmp_path / "kernels" / "kernel_probe.py"
    kernel.parent.mkdir()
    kernel.write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    space: dict = {}
    exec(compile(kernel.read_text(), str(kernel), "exec"), space)
    found = [locator.from_function(space[name], str(kernel)) for name in ("f", "g", "f")]
    assert all(found) and len({f.get_cache_path() for f in found}) == 1
    assert len(written) == 1


def test_importing_the_package_leaves_the_environment_alone():
    code = "import os, bergen_sim, bergen_sim.engine.hand; print(os.environ.get('NUMBA_CACHE_DIR'))"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "None"


def test_a_warm_kernel_loads_without_numbas_compiler_tables():
    """Start-up: a kernel found in the disk cache loads without Numba registering all it can compile."""
    code = (
        "import sys; from bergen_sim.services.execution.jobs import engine_for; from bergen_sim.model.rules import Rules; "
        "engine = engine_for(Rules.make(players=2), ('first',)); engine_for(Rules.make(players=2), ('first',)); "
        "print(int(engine.play(3, 0, 50).totals[0]), 'numba.typed.typeddict' in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)  # fills the cache
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["50", "False"]


def test_a_failed_light_load_is_repeated_with_numbas_full_refresh():
    from numba.core.registry import cpu_target

    from bergen_sim.runtime import runner

    calls = []

    def load():
        calls.append("refresh" in vars(cpu_target.target_context))  # light: the method is shadowed
        if len(calls) == 1:
            raise RuntimeError("needed a compile after all")

    runner._load_cached(load)
    assert calls == [True, False] and "refresh" not in vars(cpu_target.target_context)


def test_in_disk_cache_answers_for_the_call_about_to_be_made(tmp_path):
    """An index entry for one argument type says nothing about another: a kernel compiled for one-word
    tile sets (int64) must not be taken as cached for three-word sets (a tuple), or the light load that
    follows compiles without Numba's tables and fails (a double-six run, then a double-twelve one)."""
    module = tmp_path / "cached_probe.py"
    module.write_text("from numba import njit\n\n@njit(cache=True)\ndef f(x):\n    return x\n")
    code = (
        "import sys, numpy as np; sys.path.insert(0, sys.argv[1]); import cached_probe as m; "
        "from bergen_sim.core.compile_cache import in_disk_cache as c; "
        "one, three = (np.int64(1),), ((np.int64(1), np.int64(2), np.int64(3)),); "
        "before = c(m.f, one); m.f(*one); "
        "print(before, c(m.f, one), c(m.f, three), c(m.f))"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    first = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env, check=True
    )
    assert first.stdout.split() == ["False", "True", "False", "True"]
    again = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env, check=True
    )
    assert again.stdout.split() == ["True", "True", "False", "True"]  # read from the disk in a new process


@pytest.mark.slow
def test_a_wide_game_after_a_narrow_one_on_the_same_kernel(tmp_path):
    """The bug the test above pins, end to end: the standard game, then double-twelve, same policy, two processes."""
    env = {**os.environ, "BERGEN_SIM_CACHE_DIR": str(tmp_path)}
    for game in ("--players 2", "--players 6 --set domino_set=double-twelve"):
        code = "import sys; from bergen_sim.cli import main; sys.exit(main())"
        args = ["simulate", "--policy", "first", "--matches", "20", "--workers", "1", "--json", *game.split()]
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("where", ["/dev/null", "{tmp}/a-file", "{tmp}/a-file/below", "/proc/bergen-sim-cache"])
def test_a_cache_folder_that_cannot_be_used_gives_way_to_a_temporary_one(tmp_path, where):
    """BERGEN_SIM_CACHE_DIR at a file, a device or /proc: one notice naming it, and the command works."""
    (tmp_path / "a-file").write_text("")
    env = {**os.environ, "BERGEN_SIM_CACHE_DIR": where.format(tmp=tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from bergen_sim.cli import main; sys.exit(main())", "simulate", "--help"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stderr.count("\n") == 1, done.stderr
    assert "BERGEN_SIM_CACHE_DIR" in done.stderr and "cannot be used" in done.stderr and "instead" in done.stderr
    assert "Usage:" in done.stdout


def test_one_builder_makes_a_second_builder_wait(tmp_path, monkeypatch):
    """Two builders of one name never hold the lock together; builders of other names do not wait."""
    import threading

    pytest.importorskip("fcntl")  # without it (Windows) there is no lock, by design
    monkeypatch.setenv("BERGEN_SIM_CACHE_DIR", str(tmp_path))
    inside, release, entered = threading.Event(), threading.Event(), threading.Event()

    def first():
        with compile_cache.one_builder("kernel A"):
            inside.set()
            release.wait(30)

    def second():
        with compile_cache.one_builder("kernel A"):
            entered.set()

    holder = threading.Thread(target=first, daemon=True)
    holder.start()
    assert inside.wait(30)
    with compile_cache.one_builder("kernel B"):  # another name: no wait
        pass
    waiter = threading.Thread(target=second, daemon=True)
    waiter.start()
    assert not entered.wait(0.5)  # held by the first builder
    release.set()
    assert entered.wait(30)  # and free once it is done
    holder.join()
    waiter.join()


def test_without_a_lock_file_a_failed_build_keeps_its_own_error(tmp_path, monkeypatch):
    """No lock can be made (the cache folder is a file here): the block still runs, once, and an error it
    raises is not chained to the lock's failure (a failed compile's message is made from its context)."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("BERGEN_SIM_CACHE_DIR", str(blocker))
    with pytest.raises(RuntimeError, match="compile failed") as raised:
        with compile_cache.one_builder("kernel A"):
            raise RuntimeError("compile failed")
    assert raised.value.__context__ is None


# --- the cache heals itself ---------------------------------------------------------------------------------------


def _command(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import sys; from bergen_sim.cli import main; sys.exit(main())", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("args", [["--help"], ["simulate", "--help"], ["review", "--help"], ["policies"]])
def test_an_unusable_default_cache_falls_back_to_a_temporary_one_with_one_notice(tmp_path, args):
    """The default cache folder's parent is a file (as a read-only home is unusable): help and listings work."""
    (tmp_path / "file").write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("BERGEN_SIM_CACHE_DIR", "NUMBA_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "file")
    done = _command(args, env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("\n") <= 1 and "Traceback" not in done.stderr
    if done.stderr:
        assert "cannot be used" in done.stderr and "BERGEN_SIM_CACHE_DIR" in done.stderr


def test_the_temporary_cache_is_private(tmp_path, monkeypatch):
    """A temporary cache folder another user could write (its kernels are imported) is not used."""
    monkeypatch.setattr(compile_cache.tempfile, "gettempdir", lambda: str(tmp_path))
    shared = tmp_path / f"bergen-sim-cache-{os.getuid()}"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    chosen = compile_cache._private_temporary_folder()
    assert chosen != shared and chosen.is_dir() and not chosen.stat().st_mode & 0o077
    shared.chmod(0o700)
    assert compile_cache._private_temporary_folder() == shared


def test_a_file_in_place_of_a_cache_subfolder_is_replaced_with_a_notice(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BERGEN_SIM_CACHE_DIR", str(tmp_path))
    (tmp_path / "kernels").write_text("a file where the kernels folder belongs")
    folder = compile_cache.subfolder("kernels", "arrays")
    assert folder.is_dir() and "was not a folder" in capsys.readouterr().err
    assert compile_cache.subfolder("kernels", "arrays") == folder and capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "damage", [lambda b: b[: len(b) // 2], lambda b: b"", lambda b: bytes(len(b)), lambda b: b[:-1] + b"0"]
)
def test_a_checked_file_that_was_damaged_reads_as_missing_with_a_notice(tmp_path, capsys, damage):
    path = tmp_path / "table.npy"
    compile_cache.write_checked(path, b"some table bytes" * 100)
    assert compile_cache.read_checked(path) == b"some table bytes" * 100
    path.write_bytes(damage(path.read_bytes()))
    assert compile_cache.read_checked(path) is None
    assert capsys.readouterr().err.count("is damaged") == 1
    assert compile_cache.read_checked(tmp_path / "absent.npy") is None and capsys.readouterr().err == ""


@pytest.mark.parametrize("damage", [lambda b: b[:100], lambda b: b"", lambda b: bytes(len(b))])
def test_a_damaged_generated_kernel_file_is_written_again(tmp_path, capsys, damage):
    """A kernel's file name is the hash of its source: a file holding anything else is rewritten, once."""
    from bergen_sim.runtime import kernel_build

    source = b"# generated\n" + b"x = 1\n" * 500
    path = kernel_build._written(tmp_path / "kernel_abc.py", source)
    path.write_bytes(damage(source))
    assert kernel_build._written(path, source).read_bytes() == source
    assert capsys.readouterr().err.count("is damaged") == 1
    kernel_build._written(path, source)
    assert capsys.readouterr().err == ""
