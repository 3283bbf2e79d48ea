"""How results show themselves in a notebook: one short ``repr`` line and a small HTML card.

Result objects (``SimulationResult``, ``TournamentResult``, ``Analysis``,
``AnalysisResult``, ``Reports``) build their ``_repr_html_`` with
:func:`html_card`, so every card looks alike: a title, a few lines of
notes, and tables (pandas' own HTML, without the index).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from bergen_sim.core.estimate import Estimate


def ci(estimate: Estimate, percent: bool = True) -> str:
    """An estimate with its 95% interval, as a percentage (a probability or share) or a plain number.

    >>> ci(Estimate(0.5, 0.4, 0.6, 100, "share of matches won", "matches"))
    '50.0% [40.0, 60.0]'
    """
    value, lo, hi = estimate.value, estimate.low, estimate.high
    if percent:
        return f"{100 * value:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


def html_card(title: str, notes: Sequence[str] = (), tables: Mapping[str, Any] | None = None) -> str:
    """A title, notes (escaped) and captioned DataFrames as one HTML fragment."""
    parts = [f"<div><strong>{html.escape(title)}</strong>"]
    if notes:
        parts.append("<ul>" + "".join(f"<li>{html.escape(note)}</li>" for note in notes) + "</ul>")
    for caption, frame in (tables or {}).items():
        parts.append(f"<p><em>{html.escape(caption)}</em></p>" + frame.to_html(index=False, border=0))
    parts.append("</div>")
    return "".join(parts)
