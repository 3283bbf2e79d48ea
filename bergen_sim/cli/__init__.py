"""The ``bergen-sim`` command line: one module per command, registered here.

Errors caused by the user (unknown option, policy, preset or setting, a bad
value, a misbehaving plug-in) are printed as one line and exit with status 2;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from bergen_sim._version import __version__
from bergen_sim.errors import BergenError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bergen-sim")
def cli() -> None:
    """Monte Carlo strategy analyzer for Bergen, a scoring domino game."""


def _register_commands() -> None:
    """Add every module of this package that defines ``command`` (a click command)."""
    import bergen_sim.cli as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if isinstance(getattr(module, "command", None), click.Command):
            cli.add_command(module.command)


_register_commands()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    try:
        cli.main(args=argv, prog_name="bergen-sim", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort as exc:  # Ctrl-C; a run's interruption says what it kept and how to resume
        click.echo(f"bergen-sim: {str(exc.__cause__ or '') or 'interrupted'}", err=True)
        return 130
    except click.UsageError as exc:
        hint = f" (see 'bergen-sim {exc.ctx.command_path.split(' ', 1)[1]} --help')" if exc.ctx and " " in exc.ctx.command_path else ""
        click.echo(f"bergen-sim: error: {exc.format_message()}{hint}", err=True)
        return 2
    except click.ClickException as exc:
        click.echo(f"bergen-sim: error: {exc.format_message()}", err=True)
        return 2
    except BergenError as exc:
        click.echo(f"bergen-sim: error: {exc}", err=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
