"""``bergen-sim trace``: write matches as bergen-trace/1 JSON Lines."""

from __future__ import annotations

import click

from bergen_sim.cli.bounds import SEED, SEED_HELP, Bounded
from bergen_sim.limits import MAX_TRACE_MATCHES
from bergen_sim.cli.options import policy_option, with_rules
from bergen_sim.engine.runner import Engine
from bergen_sim.trace import generate, write_jsonl


@click.command("trace")
@with_rules
@policy_option
@click.option("--matches", type=Bounded(1, MAX_TRACE_MATCHES), default=1, show_default=True, help="Matches to trace.")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False, writable=True), help="Output .jsonl file.")
def command(rules, policies, matches, seed, out):
    """Play MATCHES matches with the compiled engine and write every event."""
    events = generate(Engine(rules, policies), seed, 0, matches)
    write_jsonl(events, out)
    click.echo(f"wrote {len(events):,} events of {matches} match(es) to {out}")
