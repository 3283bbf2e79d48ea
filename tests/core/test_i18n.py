"""The game in Danish as well as English: the catalog, the language setting, numbers, and each command as a
player meets it (``play`` start to end, a ``review`` report, a quick report), read for Danish words and for
English left behind."""

from __future__ import annotations

import configparser
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from bergen_sim.cli import cli, main
from bergen_sim.core import i18n
from bergen_sim.core.errors import BergenError
from tests.helpers import english_left

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "bergen_sim" / "locale" / "da" / "LC_MESSAGES" / "bergen_sim.po"


def catalog_entries():
    with PO.open("rb") as handle:
        return {(m.context, m.id if isinstance(m.id, str) else m.id[0]): m for m in read_po(handle) if m.id}


def extracted():
    """Every message marked in the code, extracted as setup.cfg says (babel.cfg's files, its keywords)."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    keywords = {}
    for spec in config["extract_messages"]["keywords"].split():
        name, _, args = spec.partition(":")
        keywords[name] = (
            tuple((int(a[:-1]), "c") if a.endswith("c") else int(a) for a in args.split(",")) if args else None
        )
    with (ROOT / "babel.cfg").open() as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    return [
        (context, message if isinstance(message, str) else message[0], filename)
        for filename, _, message, _, context in extract_from_dir(str(ROOT), method_map, options_map, keywords=keywords)
    ]


def test_every_marked_message_has_a_danish_entry_that_is_not_fuzzy():
    entries = catalog_entries()
    found = extracted()
    assert len(found) > 100  # the extraction itself works (the play, review, analyze and report texts)
    missing = [f"{file}: {message!r}" for context, message, file in found if (context, message) not in entries]
    assert not missing, "not in the Danish catalog (pybabel update, then translate):\n" + "\n".join(missing)
    for context, message, file in found:
        entry = entries[(context, message)]
        assert not entry.fuzzy, f"{file}: the Danish of {message!r} is marked fuzzy"
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        assert all(strings), f"{file}: {message!r} has no Danish"
        for string in strings:  # a placeholder the Danish drops or misspells would raise or lose a value
            assert set(re.findall(r"\{(\w*)", string)) <= set(re.findall(r"\{(\w*)", message)), (message, string)


def test_the_catalog_check_fails_on_a_missing_or_fuzzy_entry(tmp_path, monkeypatch):
    text = PO.read_text(encoding="utf-8")
    entry = '\nmsgid "you pass"\nmsgstr "du melder pas"\n'
    assert entry in text
    for broken in (text.replace(entry, "\n"), text.replace(entry, "\n#, fuzzy" + entry)):
        po = tmp_path / "bergen_sim.po"
        po.write_text(broken, encoding="utf-8")
        monkeypatch.setattr(f"{__name__}.PO", po)
        with pytest.raises(AssertionError):
            test_every_marked_message_has_a_danish_entry_that_is_not_fuzzy()


@pytest.mark.parametrize(
    "environ, lang",
    [
        ({"LANG": "da_DK.UTF-8"}, "da"),
        ({"LC_MESSAGES": "da_DK", "LANG": "en_GB.UTF-8"}, "da"),
        ({"LC_ALL": "en_US.UTF-8", "LANG": "da_DK.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
        ({"LC_ALL": "", "LANG": "da"}, "da"),
    ],
)
def test_the_default_language_follows_the_locale(environ, lang):
    assert i18n.language_from_environment(environ) == lang


def test_numbers_are_written_as_the_language_writes_them():
    assert (i18n.pct(59.23), i18n.num(1_234_567, ","), i18n.num(-0.25, ".2f")) == ("59.2%", "1,234,567", "-0.25")
    with i18n.use("da"):
        assert i18n.pct(59.23) == "59,2\xa0%"  # Babel's Danish percent: a no-break space before the sign
        assert (i18n.num(1_234_567, ","), i18n.num(-0.25, ".2f")) == ("1.234.567", "-0,25")
        assert i18n.interval(i18n.num(58.1, ".1f"), i18n.num(60.3, ".1f")) == "[58,1; 60,3]"
    assert i18n.current() == "en"


def test_plural_forms_come_from_the_catalog():
    with i18n.use("da"):
        one = i18n.trn(
            "taken back: your {move} and {n} move since; your move again",
            "taken back: your {move} and {n} moves since; your move again",
            1,
        )
        two = i18n.trn(
            "taken back: your {move} and {n} move since; your move again",
            "taken back: your {move} and {n} moves since; your move again",
            2,
        )
    assert one != two and "de {n} træk" in two


def test_an_unknown_language_is_one_line():
    with pytest.raises(BergenError) as caught:
        i18n.use("fr").__enter__()
    assert "lang must be one of en, da" in str(caught.value)


def test_every_command_takes_lang(capsys):
    ctx = cli.make_context("bergen-sim", ["policies"])
    for name in cli.list_commands(ctx):
        assert "--lang" in {opt for param in cli.get_command(ctx, name).params for opt in param.opts}, name
    assert main(["policies", "--lang", "fr"]) == 2
    assert "--lang" in capsys.readouterr().err


def test_a_bad_option_value_is_refused_in_danish(capsys):
    assert main(["play", "--lang", "da", "--seat", "9"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bergen-sim: fejl: ugyldig værdi for '--seat': 9 er ikke i 0..7") and err.count("\n") == 1
    assert main(["play", "--seat", "9"]) == 2
    assert capsys.readouterr().err.startswith("bergen-sim: error: Invalid value for '--seat': 9 is not in 0..7")


def test_the_locale_chooses_danish_and_lang_overrides_it(capsys, monkeypatch):
    monkeypatch.setenv("LC_ALL", "da_DK.UTF-8")
    assert main(["play", "--seat", "9"]) == 2
    assert capsys.readouterr().err.startswith("bergen-sim: fejl: ugyldig værdi")
    assert main(["play", "--seat", "9", "--lang", "en"]) == 2
    assert capsys.readouterr().err.startswith("bergen-sim: error: Invalid value")


@pytest.mark.parametrize(
    "argv, danish",
    [
        (["simulate", "--set", "target=abc"], "bergen-sim: fejl: indstillingen target tager et helt tal, ikke 'abc'"),
        (["simulate", "--set", "colour=red"], "bergen-sim: fejl: ukendt indstilling 'colour'; indstillingerne er "),
        (
            ["simulate", "--players", "6"],
            "spillere x 5 brikker + reserve 2 er flere end de 28 brikker i double-six: brug "
            "domino_set=double-nine eller hand_size <= 4",
        ),
        (["play", "-o", "/no/such/folder/game.jsonl"], "bergen-sim: fejl: -o /no/such/folder/game.jsonl: mappen "),
        (["review", "no-such-game.jsonl"], "bergen-sim: fejl: no-such-game.jsonl: kan ikke læse den: "),
        (
            ["simulate", "--preset", "foo"],
            "bergen-sim: fejl: ugyldig værdi for '--preset': 'foo' er ikke en af 'classic', "
            "'standard' (se 'bergen-sim simulate --help')",
        ),
        (["simulate", "--bogus"], "bergen-sim: fejl: ukendt tilvalg: --bogus (mente du --out, --verbose?)"),
    ],
)
def test_the_errors_a_player_meets_are_one_danish_line(capsys, argv, danish):
    assert main([*argv, "--lang", "da"]) == 2
    err = capsys.readouterr().err
    assert danish in err and err.count("\n") == 1, err
    assert i18n.current() == i18n.DEFAULT  # a refused command leaves the caller's language as it was


def test_no_marked_message_hides_inside_an_f_string():
    """Babel reads an f-string as one string: a ``tr("...")`` inside one is never extracted, so it would stay
    English (a ``tr(name)`` of a constant is fine: the constant is marked with ``N_`` where it is defined)."""
    hidden = []
    for folder in ("bergen_sim", "analyses"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"""\bf["']""", line) and re.search(r"""\{(?:i18n\.)?tr[np]?\(\s*["']""", line):
                    hidden.append(f"{path.relative_to(ROOT)}:{number}")
    assert not hidden, hidden


def test_a_quick_report_in_danish(tmp_path, capsys):
    """The smallest quick report, as a Danish player reads it: title, headings and key findings in Danish, numbers
    with a decimal comma; its tables are the same as in English."""
    assert (
        main(
            [
                "report",
                "going_first",
                "--quick",
                "--matches",
                "200",
                "--out",
                str(tmp_path),
                "--lang",
                "da",
                "--workers",
                "1",
            ]
        )
        == 0
    )
    page = (tmp_path / "going_first.md").read_text(encoding="utf-8")
    headings = [line for line in page.splitlines() if line.startswith("#") and not line.startswith("### ")]
    assert headings == [
        "# Hvad det er værd at spille ud: udspillets point og tempoet",
        "## Hovedresultater",
        "## Resultater",
        "## Figurer",
        "## Tabeller",
        "## Metode",
    ]
    key = page.split("## Hovedresultater\n", 1)[1].split("\n## ", 1)[0]
    for words in (
        "2 spillere, spil med expert: siden, der spiller ud i en runde",
        "4 i makkerpar, spil med random",
        "den udspillede dobbeltbrik",
        "point pr. runde",
        "95 %-KI",
        "simultant 95 %-KI over 8 sammenligninger",
    ):
        assert words in key, words
    assert re.search(r"\d,\d+ \(95 %-KI \d,\d+–\d,\d+\)", key)  # decimal commas
    assert not english_left("\n".join(headings) + key, allowed=("expert", "random")), english_left(key)
    index = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "# Bergen: simuleringsrapporter" in index and "## Hovedresultater" in index
    danish_table = (tmp_path / "going_first" / "tables" / "per_hand.parquet").read_bytes()
    assert (
        main(["report", "going_first", "--quick", "--matches", "200", "--out", str(tmp_path / "en"), "--workers", "1"])
        == 0
    )
    assert "## Key findings" in (tmp_path / "en" / "going_first.md").read_text(encoding="utf-8")
    from bergen_sim.services.analysis.reporting import read_table

    assert read_table(tmp_path / "going_first" / "tables" / "per_hand.parquet")[0].equals(
        read_table(tmp_path / "en" / "going_first" / "tables" / "per_hand.parquet")[0]
    )
    assert danish_table  # written


def test_a_position_file_that_is_not_json_is_refused_in_danish(tmp_path, capsys):
    path = tmp_path / "stilling.json"
    path.write_text("[1")
    assert main(["analyze", "--position", str(path), "--lang", "da"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bergen-sim: fejl: {path}: ikke gyldig JSON: ") and err.count("\n") == 1
