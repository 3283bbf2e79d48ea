"""The ``bergen-sim`` command line: one module per command, registered here.

Errors caused by the user (unknown option, policy, preset or setting, a bad
value, a misbehaving plug-in) are printed as one line and exit with status 2;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import os
import pkgutil
import re
import sys
from pathlib import Path

import click

from bergen_sim._version import __version__
from bergen_sim.core import feedback, i18n, provenance
from bergen_sim.core.errors import BergenError, printable


class _LazyGroup(click.Group):
    """The commands are the modules of this package that define one; each is imported only when used.

    ``bergen-sim --help`` lists every command from the modules' source
    (:func:`_command_modules`) without importing them, so it does not load
    the engine, Numba, pandas or matplotlib; running a command, or asking for
    its own help, imports just that module.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_command_modules())

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = _module_named_for(name)
        if module is None:
            found = _command_modules().get(name)
            module = found[0] if found else None
        return _load_command(module) if module else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(map(len, names))
        # a bare Command with the same docstring gives exactly click's short help, without importing the module
        rows = [
            (name, click.Command(name, help=_command_modules()[name][1]).get_short_help_str(limit)) for name in names
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@functools.cache
def _command_modules() -> dict[str, tuple[str, str]]:
    """Command name -> (module, docstring) for every module here with ``@click.command("NAME") def command``."""
    found = {}
    for info in pkgutil.iter_modules(__path__):
        path = Path(__file__).with_name(f"{info.name}.py")
        if not path.is_file():
            continue
        for node in ast.parse(path.read_text()).body:
            if not (isinstance(node, ast.FunctionDef) and node.name == "command"):
                continue
            for deco in node.decorator_list:
                if (
                    isinstance(deco, ast.Call)
                    and getattr(deco.func, "attr", None) == "command"
                    and deco.args
                    and isinstance(deco.args[0], ast.Constant)
                    and isinstance(deco.args[0].value, str)
                ):
                    found[deco.args[0].value] = (f"{__name__}.{info.name}", ast.get_docstring(node) or "")
    return found


def _module_named_for(name: str) -> str | None:
    """The module of command ``name`` when it is the usual ``NAME.py`` declaring ``@click.command("NAME")``.

    Reading that one file spares running a command the parse of every
    command module (:func:`_command_modules`), a noticeable part of the time
    to a first result.
    """
    if not name.isidentifier():
        return None
    try:
        text = Path(__file__).with_name(f"{name}.py").read_text()
    except OSError:
        return None
    return f"{__name__}.{name}" if f'@click.command("{name}"' in text else None


@functools.cache
def _load_command(module_name: str) -> click.Command:
    """Import a command's module and give the command the options every command has."""
    command = importlib.import_module(module_name).command
    taken = {opt for param in command.params for opt in param.opts}
    # a command that declares one of these flags itself keeps its own (and should read bergen_sim.core.feedback)
    command.params.extend(option for option in (*feedback_options(), lang_option()) if not taken & set(option.opts))
    parse = command.parse_args

    def parse_args(ctx: click.Context, args: list[str]) -> list[str]:
        refuse_repeated_options(command, args, ctx)
        return parse(ctx, args)

    command.parse_args = parse_args
    return command


def refuse_repeated_options(command: click.Command, args: list[str], ctx: click.Context | None = None) -> None:
    """Refuse an option that takes one value given twice (``--matches 2 --matches 3``).

    Click keeps the last value without a word, so a command line edited by
    appending (or a script's default followed by a user's) ran with half of
    what it said.  Options that repeat by design (``multiple``: ``--set``,
    ``--policy``, ``--seat``) are not checked here; ``--set`` refuses a key
    given twice itself.
    """
    single = {
        name: option
        for option in command.params
        if isinstance(option, click.Option) and not option.multiple and not option.count
        for name in (*option.opts, *option.secondary_opts)
    }
    seen = set()
    for arg in args:
        if arg == "--":  # the rest are arguments
            break
        option = single.get(arg.split("=", 1)[0] if arg.startswith("--") else arg[:2] if arg.startswith("-") else "")
        if option is None:
            continue
        if option.name in seen:
            raise click.UsageError(f"{'/'.join(option.opts)} is given twice; give it once", ctx)
        seen.add(option.name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bergen-sim")
def cli() -> None:
    """Monte Carlo strategy analyzer for Bergen, a scoring domino game."""


def _set_feedback(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """--quiet / --verbose: set how much the run says on stderr (see bergen_sim.core.feedback)."""
    if not value:
        return
    chosen = ctx.meta.setdefault("bergen_sim.core.feedback", param.name)
    if chosen != param.name:
        raise click.UsageError("--quiet and --verbose cannot be used together", ctx)
    feedback.set_level(feedback.QUIET if param.name == "quiet" else feedback.VERBOSE)
    ctx.call_on_close(lambda: feedback.set_level(feedback.NORMAL))  # for this command only, however it ends


def feedback_options() -> list[click.Option]:
    """--quiet and --verbose, added to every command (so new commands get them too)."""
    return [
        click.Option(
            ["-q", "--quiet"],
            is_flag=True,
            expose_value=False,
            callback=_set_feedback,
            help="Print only results and errors (no progress, no notices).",
        ),
        click.Option(
            ["-v", "--verbose"],
            is_flag=True,
            expose_value=False,
            callback=_set_feedback,
            help="Also print notices when not on a terminal, and details (kernels, caches).",
        ),
    ]


def _set_language(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """--lang: the language of everything the command says (the locale's when not given), for this command only."""
    global _spoken
    _spoken = value or i18n.language_from_environment()  # main() words the command's errors in it after it closed
    ctx.call_on_close(i18n.activate(_spoken))


#: the language of the command running or last run by main() (its --lang, else the locale's)
_spoken = i18n.DEFAULT


def lang_option() -> click.Option:
    """--lang, added to every command (eager: the errors of the other options are worded in it too)."""
    return click.Option(
        ["--lang"],
        type=click.Choice(i18n.LANGUAGES),
        default=None,
        expose_value=False,
        is_eager=True,
        callback=_set_language,
        help="Language of the text you read: da or en (default: the locale's, LC_ALL, LC_MESSAGES "
        "or LANG; English when it is neither).  JSON, tables, traces and option names are "
        "the same in every language.",
    )


def error_prefix() -> str:
    """How every error line starts, in the language in force: ``bergen-sim: error: ``."""
    return "bergen-sim: " + i18n.tr("error") + ": "


def _usage_message(exc: click.UsageError) -> str:
    """A usage error's line in the command's language: a bad or missing value named as click names it."""
    if i18n.current() == i18n.DEFAULT:
        return exc.format_message()
    hint = None
    param, param_hint = (
        getattr(exc, "param", None),
        getattr(exc, "param_hint", None),
    )  # BadParameter's, not every usage error's
    if exc.ctx is not None and param is not None:
        hint = param.get_error_hint(exc.ctx)
    elif param_hint:
        hint = param_hint if isinstance(param_hint, str) else " / ".join(param_hint)
    if isinstance(exc, click.MissingParameter) and hint:
        return i18n.tr("missing {option}").format(option=hint)
    if isinstance(exc, click.BadParameter) and hint:
        message = exc.message
        if isinstance(getattr(exc.param, "type", None), click.Choice):  # click's own words: '{value}' is not one of ...
            found = re.fullmatch(r"(.*) is not (?:one of )?(.*?)\.?", message)
            if found:
                message = i18n.tr("{value} is not one of {choices}").format(value=found[1], choices=found[2])
        return i18n.tr("invalid value for {option}: {message}").format(option=hint, message=message)
    if isinstance(exc, click.NoSuchOption):
        text = i18n.tr("no such option: {option}").format(option=exc.option_name)
        if exc.possibilities:
            text += i18n.tr(" (did you mean {options}?)").format(options=", ".join(sorted(exc.possibilities)))
        return text
    return exc.format_message()


def _asked_language(args: list[str]) -> str | None:
    """The --lang a command line gives, read before click parses it: an error in parsing is worded in it too."""
    for k, arg in enumerate(args):
        if arg == "--":
            break
        value = (
            arg.partition("=")[2]
            if arg.startswith("--lang=")
            else args[k + 1]
            if arg == "--lang" and k + 1 < len(args)
            else None
        )
        if value in i18n.LANGUAGES:
            return value
    return None


#: what click (8.2 and later) raises for a command line with no command: its message is the whole help
NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _current_folder_gone() -> bool:
    """Whether the process's current folder was deleted (``os.getcwd()`` then fails)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    # the language in force before the command comes back after it, even when its options fail to parse (then
    # click never closes the command's context, which would have restored it)
    with i18n.use(i18n.current()):
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    global _spoken
    feedback.set_level(feedback.NORMAL)  # each call starts from the default (tests call main repeatedly)
    args = sys.argv[1:] if argv is None else list(argv)
    _spoken = _asked_language(args) or i18n.language_from_environment()  # until the command reads its --lang
    provenance.set_command(["bergen-sim", *args])
    if sys.stdout is None:  # started with standard output closed (>&-): every result would vanish without a word
        if sys.stderr is not None:
            click.echo(
                "bergen-sim: error: standard output is closed; results are printed there: run with it open "
                "(to a file, a pipe or /dev/null)",
                err=True,
            )
        return 2
    try:
        cli.main(args=argv, prog_name="bergen-sim", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort as exc:  # Ctrl-C; a run's interruption says what it kept and how to resume
        click.echo(f"bergen-sim: {str(exc.__cause__ or '') or 'interrupted'}", err=True)
        return 130
    except NO_ARGS_IS_HELP as exc:  # bare 'bergen-sim' or a group without its command: the help, as written
        click.echo(exc.format_message(), err=True)
        return 2
    except click.UsageError as exc:
        with i18n.use(_spoken):
            hint = (
                i18n.tr(" (see 'bergen-sim {command} --help')").format(command=exc.ctx.command_path.split(" ", 1)[1])
                if exc.ctx and " " in exc.ctx.command_path
                else ""
            )
            click.echo(error_prefix() + printable(_usage_message(exc) + hint), err=True)
        return 2
    except click.ClickException as exc:
        with i18n.use(_spoken):
            click.echo(error_prefix() + printable(exc.format_message()), err=True)
        return 2
    except BergenError as exc:  # its message was worded in the command's language when it was raised
        with i18n.use(_spoken):
            click.echo(error_prefix() + printable(str(exc)), err=True)
        return 2
    except OSError as exc:
        if _current_folder_gone():  # relative paths cannot be resolved: whatever failed, this is why
            click.echo(
                "bergen-sim: error: the current folder no longer exists (it was deleted or moved); "
                "change to a folder that exists and run again",
                err=True,
            )
            return 2
        if not _written_to_stdout(exc):
            raise
        _stdout_to_devnull()
        click.echo(
            f"bergen-sim: error: standard output cannot be written ({exc.strerror or exc}); nothing more was printed",
            err=True,
        )
        return 2
    return 0


def _written_to_stdout(exc: OSError) -> bool:
    """Whether ``exc`` arose writing to standard output (a full disk, ``> /dev/full``, a closed pipe).

    Read from the innermost frame, the Python code that called the failing
    write: ``click.echo`` holds the stream as ``file``, a rich ``Console`` as
    ``self.file``.
    """
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    streams = [s for s in (sys.stdout, getattr(sys.stdout, "buffer", None), sys.__stdout__) if s is not None]
    local = tb.tb_frame.f_locals
    held = (local.get("file"), getattr(local.get("self"), "file", None), local.get("self"))
    return any(any(h is s for s in streams) for h in held if h is not None)


def _stdout_to_devnull() -> None:
    """Point standard output at /dev/null, so that Python's own flush at exit prints no second error."""
    with contextlib.suppress(OSError, ValueError, AttributeError):  # no descriptor (a test's capture): nothing to do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
