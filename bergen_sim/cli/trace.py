"""``bergen-sim trace``: write matches as bergen-trace/1 JSON Lines."""

from __future__ import annotations

import click

from bergen_sim.cli.options import policy_option, with_rules
from bergen_sim.runtime.runner import Engine
from bergen_sim.trace import generate, write_jsonl


@click.command("trace")
@with_rules
@policy_option
@click.option("--matches", type=click.IntRange(min=1), default=1, show_default=True, help="Matches to trace.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the keyed random streams.")
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False, writable=True), help="Output .jsonl file.")
def command(rules, policies, matches, seed, out):
    """Play MATCHES matches with the compiled engine and write every event."""
    events = generate(Engine(rules, policies), seed, 0, matches)
    write_jsonl(events, out)
    click.echo(f"wrote {len(events):,} events of {matches} match(es) to {out}")
