"""Fuzzing every reader of a file a user is given: malformed input ends in the project's one-line error, nothing else.

Hypothesis damages valid files (traces, game records, positions, experiment
files, `run` cell files, checkpoint manifests): a value replaced by one of
another type, nested thousands deep, a number of thousands of digits, a huge
string, a line cut or repeated. Each reader runs in-process and must either
accept the file or raise a :class:`~bergen_sim.core.errors.BergenError` whose message
is one line: never another exception, never a hang (a deadline per example),
and a damaged cell file is never taken as played. Nothing here compiles: the
whole harness (6 x 150 examples) runs in about 10 s.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bergen_sim.core.errors import BergenError
from bergen_sim.services import experiment
from bergen_sim.services.files.record import drive, read_games

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FUZZ = settings(
    max_examples=150,
    deadline=timedelta(seconds=10),
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: JSON text that is valid but hostile: deep, huge, mistyped, or numbers JSON readers take too literally
JSON_FRAGMENTS = [
    "[" * 5000 + "]" * 5000,
    "9" * 5000,
    "-" + "9" * 30,
    '"' + "x" * 200_000 + '"',
    "NaN",
    "Infinity",
    "1e999",
    "-0",
    "0.5",
    "true",
    "false",
    "null",
    "[]",
    "{}",
    '""',
    '"\\u0000\\n\\u001b[2J"',
    '{"a": ' * 3000 + "1" + "}" * 3000,
    '"\\ud800"',
    "[[2]]",
    '{"": []}',
]
#: TOML values of the same kinds
TOML_FRAGMENTS = [
    "[" * 3000 + "]" * 3000,
    "9" * 5000,
    "-" + "9" * 30,
    '"' + "x" * 200_000 + '"',
    "nan",
    "inf",
    "1e999",
    "true",
    "false",
    "[]",
    "{}",
    '""',
    '"\\u0000\\n\\u001b[2J"',
    "1979-05-27T07:32:00Z",
    "[[2]]",
    "{ a = 1 }",
    "[1, 2]",
    '["a", 1]',
    "0x10",
    "1.5",
    '"4"',
    '"false"',
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
json_fragments = st.sampled_from(JSON_FRAGMENTS) | json_values.map(json.dumps)


def one_line_or_accepted(read, *args):
    """Call ``read``; a refusal must be the project's error with a one-line message."""
    try:
        return read(*args)
    except BergenError as exc:
        assert "\n" not in str(exc) and str(exc), repr(exc)
        return None


def _paths(value, prefix=()):
    """Every path to a value inside nested dicts and lists."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _replaced(document, path, fragment: str) -> str:
    """``document`` as JSON text with the value at ``path`` replaced by the text ``fragment``."""
    if not path:
        return fragment
    copy = json.loads(json.dumps(document))
    holder = copy
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = "\x00FUZZ\x00"
    return json.dumps(copy).replace(json.dumps("\x00FUZZ\x00"), fragment, 1)


def _json_damage(document):
    """A strategy of ``document`` as JSON text with one value replaced by a hostile one."""
    paths = list(_paths(document))
    return st.tuples(st.sampled_from(paths), json_fragments).map(lambda pf: _replaced(document, *pf))


TRACE = (GOLDEN / "2p-standard.jsonl").read_text().splitlines()
TRACE = TRACE[: next(k for k, line in enumerate(TRACE) if k and json.loads(line)["type"] == "match")]


@st.composite
def damaged_traces(draw) -> str:
    lines = list(TRACE)
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["value", "cut", "drop", "repeat", "raw"]))
        if how == "value" and lines[k] in TRACE:  # a line still as written (an earlier round may have damaged it)
            lines[k] = draw(_json_damage(json.loads(lines[k])))
        elif how == "cut":
            lines[k] = lines[k][: draw(st.integers(0, max(0, len(lines[k]) - 1)))]
        elif how == "drop":
            del lines[k]
        elif how == "repeat":
            lines.insert(k, lines[k])
        elif how == "raw":
            lines[k] = draw(json_fragments)
        if not lines:
            break
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def _written(text: str, suffix: str) -> Iterator[Path]:
    """A file holding ``text`` in a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="bergen-fuzz-") as folder:
        path = Path(folder) / f"file{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        yield path


def _review_checks(path: Path) -> None:
    """What review and analyze --game do before any analysis: read the file and replay every game whole."""
    for game in read_games(path):
        drive(game)


@FUZZ
@given(damaged_traces())
def test_damaged_traces(text):
    with _written(text, ".jsonl") as path:
        one_line_or_accepted(_review_checks, path)


RECORD_WORDS = [
    "bergen-record",
    "1",
    "2",
    "rules",
    "players=2",
    "players=1234567890",
    "players=" + "9" * 5000,
    "partnerships=maybe",
    "target=" + "9" * 5000,
    "names",
    "hand",
    "deal",
    "|",
    "0:",
    "1:",
    "lead",
    "draw",
    "pass",
    "0-0",
    "1-2",
    "6-6",
    "7-7",
    "L",
    "R",
    "U",
    "x" * 1000,
    "\x1b[2J",
    "#",
    "١",
    "=",
    ":",
]
RECORD = """bergen-record 1
rules players=2 hand_size=2 target=3
deal 1-1 1-2 | 2-3 4-4
1: draw 0-0 0-1
1: 0-1 L
"""


@FUZZ
@given(st.lists(st.lists(st.sampled_from(RECORD_WORDS), max_size=8), max_size=10), st.integers(0, 5), st.booleans())
def test_damaged_game_records(lines, at, keep_head):
    valid = RECORD.splitlines()
    body = valid[:at] + [" ".join(words) for words in lines] + valid[at:]
    text = "\n".join((["bergen-record 1"] if keep_head else []) + body) + "\n"
    with _written(text, ".txt") as path:
        one_line_or_accepted(_review_checks, path)


POSITION = {
    "rules": {"players": 2, "partnerships": False, "target": 15},
    "seat": 0,
    "hand": "3-5,1-3,5-6,4-4",
    "ends": "3,5",
    "played": "4-4,3-4,4-5",
    "counts": "4,4",
    "boneyard": 14,
    "scores": "0,0",
    "voids": {"1": [2]},
    "played_by": {"1": ["3-4"]},
}


def _read_position(path: Path) -> None:
    """What analyze --position does with a file before it analyses: read it, its rules and its position."""
    from bergen_sim.cli.analyze import _read_file, _refuse_foreign_digits, _rules_from_file
    from bergen_sim.search.position import Position

    data = _read_file(str(path))
    for key, value in data.items():
        _refuse_foreign_digits(value, key)
    if "rules" in data:
        _rules_from_file(data["rules"])
    Position.from_mapping(data)


@FUZZ
@given(_json_damage(POSITION))
def test_damaged_position_files(text):
    with _written(text, ".json") as path:
        one_line_or_accepted(_read_position, path)


EXPERIMENT = """kind = "simulate"
matches = 60
sizes = [2, "4 partnerships"]
seeds = [4]
chunk_size = 25
out = "o"
rows = false

[rules.short]
target = 8
reduced_headers = true

[policies]
first = ["first"]
duel = ["first", "pimc:worlds=8"]
"""


KEYS = ["sizes", "seeds", "kind", "out_dir", "x", '"\\u001b[2J"', "a.b.c"]


@st.composite
def damaged_experiments(draw) -> str:
    lines = EXPERIMENT.splitlines()
    k = draw(st.sampled_from([i for i, line in enumerate(lines) if " = " in line]))
    key = lines[k].split(" = ")[0]
    how = draw(st.sampled_from(["value", "key", "raw"]))
    if how == "value":
        lines[k] = f"{key} = {draw(st.sampled_from(TOML_FRAGMENTS))}"
    elif how == "key":
        lines[k] = f"{draw(st.sampled_from(KEYS))} = {lines[k].split(' = ', 1)[1]}"
    else:
        lines.insert(k, draw(st.sampled_from(TOML_FRAGMENTS + ["[policies]", "[rules]", "[[x]]", "= 1"])))
    return "\n".join(lines) + "\n"


@FUZZ
@given(damaged_experiments())
def test_damaged_experiment_files(text):
    with _written(text, ".toml") as path:
        one_line_or_accepted(experiment.load, path, path.parent / "out")


@pytest.fixture(scope="module")
def played_cell(tmp_path_factory):
    """An experiment with one cell whose file is saved (rows made up: nothing is played or compiled)."""
    plan = experiment.parse({"matches": 3, "policies": {"a": "first"}}, "fuzz")
    plan.out = tmp_path_factory.mktemp("cells")
    cell = plan.cells[0]
    rows = [{**cell.label(), "side": side, "match_wins": 1} for side in range(2)]
    experiment._write_json(plan.cell_file(cell), experiment._cell_record(plan, cell, rows))
    return plan, cell, json.loads(plan.cell_file(cell).read_text()), rows


@FUZZ
@given(data=st.data())
def test_damaged_cell_files_are_never_counted(played_cell, data):
    plan, cell, valid, rows = played_cell
    text = data.draw(_json_damage(valid) | st.sampled_from(JSON_FRAGMENTS))
    plan.cell_file(cell).write_text(text, encoding="utf-8", errors="surrogatepass")
    found = one_line_or_accepted(experiment.saved_rows, plan, cell)
    if found is not None and found[0] is not None:  # taken as played only when it is the cell's own rows
        assert found[0] == rows


MANIFEST = {
    "format": "bergen-sim-checkpoint/3",
    "rules": {"players": 2, "target": 15},
    "policies": ["random"],
    "seed": 0,
    "matches": 10,
    "chunk_size": 5,
    "match_rows": False,
}


@FUZZ
@given(_json_damage(MANIFEST))
def test_damaged_checkpoint_manifests(text):
    from bergen_sim.services.files.checkpoint import MANIFEST as NAME
    from bergen_sim.services.files.checkpoint import Checkpoint

    with _written(text, "") as path:
        path.rename(path.with_name(NAME))
        store = one_line_or_accepted(Checkpoint, path.parent, {k: v for k, v in MANIFEST.items() if k != "format"})
        if store is not None:
            store.close()
