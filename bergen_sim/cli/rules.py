"""``bergen-sim rules``: the rules in force for the chosen settings, in a few lines (see docs/rules.md)."""

from __future__ import annotations

import click

from bergen_sim.cli.options import with_rules


@click.command("rules")
@with_rules
def command(rules) -> None:
    """Print a short summary of the rules in force: the table, the deal, the lead, scoring, settlement, target.

    The rule options are those of play and simulate (--players, --partnerships, --preset, --set KEY=VALUE);
    --lang da prints it in Danish.
    """
    from bergen_sim.model.rules import summary

    for line in summary(rules):
        click.echo(line)
