"""``bergen-sim trace``: write matches as bergen-trace/2 JSON Lines."""

from __future__ import annotations

import click

from bergen_sim.cli.bounds import SEED, SEED_HELP, Bounded
from bergen_sim.cli.options import policy_option, with_rules
from bergen_sim.core import feedback
from bergen_sim.core.errors import one_line
from bergen_sim.core.limits import MAX_TRACE_MATCHES
from bergen_sim.runtime.runner import Engine
from bergen_sim.services.files.trace import check_trace_path, iter_events, write_jsonl


@click.command("trace")
@with_rules
@policy_option
@click.option("--matches", type=Bounded(1, MAX_TRACE_MATCHES), default=1, show_default=True, help="Matches to trace.")
@click.option("--seed", type=SEED, default=0, show_default=True, help=SEED_HELP)
@click.option(
    "-o",
    "--out",
    required=True,
    metavar="FILE",
    help="Output .jsonl file (- for standard output; streamed, so any number of matches fits).",
)
def command(rules, policies, matches, seed, out):
    """Play MATCHES matches with the compiled engine and write every event."""
    target = check_trace_path(out)  # before compiling or playing anything
    count = write_jsonl(iter_events(Engine(rules, policies), seed, 0, matches), target)
    if target.to_stdout:  # the events are the result; this line is a note on standard error (none with --quiet)
        feedback.info(f"wrote {count:,} events of {matches:,} match(es) to standard output")
    else:
        click.echo(one_line(f"wrote {count:,} events of {matches:,} match(es) to {out}"))
