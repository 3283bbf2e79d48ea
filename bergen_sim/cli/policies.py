"""``bergen-sim policies``: every policy a ``--policy`` name can select, one line each.

Built-ins come first (the first line of each module's docstring), then
plug-ins registered under the ``bergen_sim.policies`` entry-point group
(their function's first docstring line).  A plug-in that cannot be loaded is still listed, with the reason, so
that the listing itself never fails because of one broken package.
"""

from __future__ import annotations

import click

from bergen_sim.cli.output import print_json
from bergen_sim.core.errors import PolicyError
from bergen_sim.runtime.registry import BUILTINS, ENTRY_POINT_GROUP, available, resolve, settings_lines, shadowed


def _plugin_line(name: str) -> str:
    try:
        ref = resolve(name)
    except PolicyError as exc:
        return f"(cannot be loaded: {exc})"
    return f"{ref.module}:{ref.function}" + (f" - {ref.description}" if ref.description else "")


def policy_lines() -> list[tuple[str, str, str]]:
    """(name, kind, description) of every available policy: built-ins, then entry points."""
    lines = []
    for ref in available():
        if ref.name in BUILTINS:
            lines.append((ref.name, "built-in", ref.description))
        else:
            lines.append((ref.name, "plug-in", _plugin_line(ref.name)))
    for name, target in shadowed().items():  # announced, never silently dropped
        lines.append((name, "plug-in", f"{target} - hidden by the built-in {name!r}; select it as --policy {target}"))
    return lines


@click.command("policies")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of lines.")
@click.option(
    "--settings",
    "with_settings",
    is_flag=True,
    help="Also list each built-in's settings (NAME:KEY=VALUE), their values, defaults and meanings "
    "(loads the engine's modules: a second or two).",
)
def command(as_json, with_settings):
    """List the available policies: built-ins and installed plug-ins."""
    lines = policy_lines()
    settings = {name: settings_lines(name) for name, kind, _ in lines if kind == "built-in"} if with_settings else {}
    if as_json:
        print_json(
            {
                "policies": [
                    {
                        "name": name,
                        "kind": kind,
                        "description": description,
                        **({"settings": settings[name]} if name in settings else {}),
                    }
                    for name, kind, description in lines
                ]
            }
        )
        return
    width = max(len(name) for name, _, _ in lines)
    for name, kind, description in lines:
        click.echo(f"{name:<{width}}  {kind:<8}  {description}")
        for line in settings.get(name, []):
            click.echo(f"{'':<{width}}    {line}")
    if not any(kind == "plug-in" for _, kind, _ in lines):
        click.echo(f"(no plug-ins installed under the entry-point group {ENTRY_POINT_GROUP!r})")
    click.echo("Any @njit policy function also runs as --policy package.module:function (see docs/policies.md).")
