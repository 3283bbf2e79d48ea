"""The language bergen-sim speaks to its players: English or Danish, through gettext catalogs and Babel.

Every sentence a player reads is written in English in the code and marked
for translation: :func:`tr` for a sentence, :func:`trn` for one whose words
follow a count (the catalog's plural forms choose), :func:`N_` for a constant
that is translated where it is shown.  The Danish is in
``bergen_sim/locale/da/LC_MESSAGES/bergen_sim.po`` (extracted with Babel,
``babel.cfg``), compiled to a ``.mo`` when the wheel is built (``setup.py``);
a source checkout without a ``.mo``, or with a ``.po`` newer than it, reads
the ``.po`` itself on first use.

Numbers are formatted as the code always wrote them, then given the
language's symbols from Babel's locale data (:func:`localized`): every
language shows the same digits, English output is unchanged, and Danish
writes ``59,2 %`` and ``1.000.000``.  Only text for reading changes: JSON,
Parquet, traces, option names and setting values are the same in every
language.

The language in force is :func:`current`: English unless the command line's
``--lang`` (default: the locale, :func:`language_from_environment`) or a
function's ``lang=`` (:func:`use`) says otherwise.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import io
import os
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from pathlib import Path

#: the languages there are catalogs for (English is the text in the code)
LANGUAGES = ("en", "da")
DEFAULT = "en"
DOMAIN = "bergen_sim"
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"  # bergen_sim/locale, beside the layers

_active: ContextVar[str] = ContextVar("bergen_sim_language", default=DEFAULT)


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the locale asks for: the first of LC_ALL, LC_MESSAGES and LANG that is set, as POSIX reads
    them (``da_DK.UTF-8`` -> ``da``); English when that locale is neither Danish nor English, or none is set.

    >>> language_from_environment({"LANG": "da_DK.UTF-8"}), language_from_environment({"LANG": "fr_FR"})
    ('da', 'en')
    >>> language_from_environment({"LC_ALL": "C", "LANG": "da_DK"})
    'en'
    """
    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            code = value.split(".")[0].split("@")[0].split("_")[0].lower()
            return code if code in LANGUAGES else DEFAULT
    return DEFAULT


def check_language(lang: object) -> str:
    """``lang`` if it is a language there is a catalog for (``"en"``, ``"da"``); a one-line error otherwise."""
    if not isinstance(lang, str) or lang not in LANGUAGES:
        from bergen_sim.core.errors import BergenError  # errors' own messages are translated: it imports this module

        raise BergenError(
            tr("lang must be one of {languages}, not {value}").format(
                languages=", ".join(LANGUAGES), value=repr(lang)[:40]
            )
        )
    return lang


def current() -> str:
    """The language text is produced in now."""
    return _active.get()


def set_language(lang: str) -> None:
    """Produce text in ``lang`` from now on, in this thread (a context variable: other threads keep theirs)."""
    _active.set(check_language(lang))


def activate(lang: str) -> Callable[[], None]:
    """Produce text in ``lang`` until the function returned is called (which restores the language before)."""
    token = _active.set(check_language(lang))
    return lambda: _active.reset(token)


@contextlib.contextmanager
def use(lang: str | None) -> Iterator[str]:
    """Produce text in ``lang`` inside the block (``None``: the language already in force)."""
    if lang is None:
        yield current()
        return
    restore = activate(lang)
    try:
        yield lang
    finally:
        restore()


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The catalog of ``lang``: its compiled ``.mo``, or its ``.po`` compiled in memory when the ``.mo`` is
    absent or older (a source checkout); fuzzy entries are left out, so they read as English."""
    if lang == DEFAULT:
        return gettext.NullTranslations()
    mo = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
    po = mo.with_suffix(".po")
    if mo.is_file() and not (po.is_file() and po.stat().st_mtime > mo.stat().st_mtime):
        with mo.open("rb") as handle:
            return gettext.GNUTranslations(handle)
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle, locale=lang, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def tr(message: str) -> str:
    """``message`` in the language in force."""
    return translations(current()).gettext(message)


def trn(singular: str, plural: str, n: int) -> str:
    """The form of a message for a count of ``n`` (the catalog's plural rule chooses)."""
    return translations(current()).ngettext(singular, plural, n)


def trp(context: str, message: str) -> str:
    """``message`` in the language in force, as said in ``context`` (one English text that another language
    words differently by what it is about: ``trp("triple-header", " (+{points})")``)."""
    return translations(current()).pgettext(context, message)


def N_(message: str) -> str:
    """Mark a constant for the catalog without translating it here: it is translated with :func:`tr` where shown."""
    return message


@functools.cache
def _symbols(lang: str) -> tuple[dict[int, str], str]:
    """(the translation of ``,``, ``.`` and ``-`` in a formatted number, what follows a percentage), from
    Babel's data for ``lang``: Danish groups with ``.``, has a decimal comma and writes ``59,2 %``."""
    from babel import Locale
    from babel.numbers import get_decimal_symbol, get_group_symbol, get_minus_sign_symbol

    symbols = {
        ord(","): get_group_symbol(lang),
        ord("."): get_decimal_symbol(lang),
        ord("-"): get_minus_sign_symbol(lang),
    }
    pattern = Locale.parse(lang).percent_formats[None].pattern  # '#,##0 %' for Danish (a no-break space)
    return symbols, pattern[pattern.rindex("0") + 1 :]


def localized(number_text: str) -> str:
    """A number formatted the Python way (``1,234.5``, ``-0.3``) written as the language writes it.

    >>> with use("da"):
    ...     localized("1,234.5"), localized("-0.25")
    ('1.234,5', '-0,25')
    """
    lang = current()
    if lang == DEFAULT:
        return number_text
    return number_text.translate(_symbols(lang)[0])


def num(value: float, spec: str = "") -> str:
    """``format(value, spec)`` in the language's symbols: ``num(1234.5, ",.1f")`` is ``1.234,5`` in Danish, and
    ``num(0.5, ".0%")`` is ``50 %``."""
    text = format(value, spec)
    if spec.endswith("%"):
        return localized(text[:-1]) + percent_sign()
    return localized(text)


def percent_sign() -> str:
    """What follows a percentage: ``%`` in English, a no-break space and ``%`` in Danish."""
    lang = current()
    return "%" if lang == DEFAULT else _symbols(lang)[1]


def pct(value: float, spec: str = ".1f") -> str:
    """A percentage (``value`` already in percent): ``59.2%`` / ``59,2 %``."""
    return num(value, spec) + percent_sign()


def interval(low: str, high: str) -> str:
    """Two formatted bounds in brackets: ``[58.1, 60.3]``; in Danish ``[58,1; 60,3]`` (a comma is a decimal)."""
    return tr("[{low}, {high}]").format(low=low, high=high)
