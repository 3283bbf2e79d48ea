"""Matplotlib helpers for report figures: every estimate drawn with its 95% interval.

Figures are built headless (Agg backend) from the analyses' tables, which
follow the ``x`` / ``x_lo`` / ``x_hi`` column convention of
:mod:`bergen_sim.core.stats`.  Each carries a title, axis labels and a note
saying what the bars mean, so a reader needs no code; :func:`save` writes
PNG (for the Markdown) and SVG (for print) side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import PercentFormatter  # noqa: E402

from bergen_sim.core.stats import is_proportion  # noqa: E402

#: the note under every figure with intervals
CI_NOTE = "Error bars and bands: 95% confidence intervals."
DPI = 120


@dataclass
class Chart:
    """A finished figure, the file stem it is saved under and its caption for the report."""

    name: str
    figure: Figure
    caption: str


def panels(count: int, width: float = 4.2, height: float = 3.6, columns: int | None = None):
    """A figure with ``count`` side-by-side panels (wrapping after ``columns``); returns (figure, axes list)."""
    columns = min(count, columns or 4) or 1
    rows = -(-count // columns) if count else 1
    fig, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows + 0.9), squeeze=False)
    flat = list(axes.ravel())
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def _errors(frame: pd.DataFrame, value: str) -> np.ndarray:
    v = frame[value].to_numpy(float)
    return np.vstack([v - frame[f"{value}_lo"].to_numpy(float), frame[f"{value}_hi"].to_numpy(float) - v])


def grouped(
    ax,
    frame: pd.DataFrame,
    category: str,
    group: str,
    value: str,
    categories: Sequence | None = None,
    groups: Sequence | None = None,
    bars: bool = False,
) -> None:
    """``value`` per ``category`` (x axis), one colour per ``group``, with interval whiskers.

    Dots by default, so the axis may be zoomed onto small differences without
    misleading; ``bars=True`` for quantities read from zero (the axis then starts at 0).
    """
    categories = list(categories if categories is not None else pd.unique(frame[category]))
    groups = list(groups if groups is not None else pd.unique(frame[group]))
    width = 0.8 / max(len(groups), 1)
    x = np.arange(len(categories))
    for k, name in enumerate(groups):
        part = frame[frame[group] == name].set_index(category).reindex(categories)
        at = x + (k - (len(groups) - 1) / 2) * width
        if bars:
            ax.bar(
                at,
                part[value],
                width,
                label=str(name),
                yerr=_errors(part, value),
                capsize=3,
                error_kw={"elinewidth": 1},
            )
        else:
            ax.errorbar(at, part[value], yerr=_errors(part, value), fmt="o", capsize=3, label=str(name))
    _category_ticks(ax, x, [str(c) for c in categories])
    ax.grid(axis="y", alpha=0.3)
    _percent_axis(ax, value)


def lines(ax, frame: pd.DataFrame, x: str, value: str, group: str | None = None, marker: str = "o") -> None:
    """A line of ``value`` against ``x`` per ``group`` with a shaded interval band."""
    parts = frame.groupby(group, sort=False) if group else [(None, frame)]
    for name, part in parts:
        part = part.sort_values(x)
        (line,) = ax.plot(part[x], part[value], marker=marker, markersize=3, label=None if name is None else str(name))
        ax.fill_between(part[x], part[f"{value}_lo"], part[f"{value}_hi"], color=line.get_color(), alpha=0.25)
    _percent_axis(ax, value)


def differences(
    ax, frame: pd.DataFrame, category: str, value: str, categories: Sequence | None = None, group: str | None = None
) -> None:
    """A difference per ``category``: a dot, its 95% interval (thick) and its simultaneous interval (thin).

    For figures whose text is about a difference: the reader sees at once
    whether zero (the dashed line) lies inside.  A difference of proportions is
    drawn in percentage points.  ``group`` draws one colour per group.
    """
    scale = 100.0 if is_proportion(value) else 1.0
    categories = list(categories if categories is not None else pd.unique(frame[category]))
    groups = list(pd.unique(frame[group])) if group else [None]
    width = 0.8 / max(len(groups), 1)
    x = np.arange(len(categories))
    for k, name in enumerate(groups):
        part = frame if name is None else frame[frame[group] == name]
        part = part.set_index(category).reindex(categories)
        at = x + (k - (len(groups) - 1) / 2) * width
        v = part[value].to_numpy(float) * scale
        if f"{value}_adj_lo" in part:
            ax.errorbar(
                at,
                v,
                yerr=np.vstack(
                    [
                        v - part[f"{value}_adj_lo"].to_numpy(float) * scale,
                        part[f"{value}_adj_hi"].to_numpy(float) * scale - v,
                    ]
                ),
                fmt="none",
                ecolor="gray",
                elinewidth=0.8,
                capsize=4,
            )
        ax.errorbar(
            at,
            v,
            yerr=_errors(part, value) * scale,
            fmt="o",
            elinewidth=2.5,
            capsize=0,
            label=None if name is None else str(name),
        )
    ax.axhline(0.0, color="grey", linestyle="--", linewidth=1)
    _category_ticks(ax, x, [str(c) for c in categories])
    ax.grid(axis="y", alpha=0.3)


def points(ax, frame: pd.DataFrame, label: str, value: str, reference: float | None = None) -> None:
    """Horizontal dot-and-whisker rows of ``value`` per ``label`` (best at the top), with an optional reference line."""
    frame = frame.sort_values(value)
    y = np.arange(len(frame))
    ax.errorbar(frame[value], y, xerr=_errors(frame, value), fmt="o", capsize=3)
    ax.set_yticks(y, frame[label].astype(str))
    if reference is not None:
        ax.axvline(reference, color="grey", linestyle="--", linewidth=1)
    if is_proportion(value):
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))


def stacked_shares(ax, frame: pd.DataFrame, category: str, parts: Sequence[str], labels: Sequence[str]) -> None:
    """100% stacked bars: the share of each part (columns, with _lo/_hi) per category, interval whiskers on each segment."""
    x = np.arange(len(frame))
    bottom = np.zeros(len(frame))
    for column, label in zip(parts, labels):
        values = frame[column].to_numpy(float)
        ax.bar(x, values, 0.6, bottom=bottom, label=label)
        ax.errorbar(
            x, bottom + values, yerr=_errors(frame, column), fmt="none", ecolor="black", capsize=2, elinewidth=0.8
        )
        bottom += values
    _category_ticks(ax, x, frame[category].astype(str).tolist())
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylim(0, 1.05)


def empty_note(ax, text: str = "too few observations to draw") -> None:
    """Say on an empty panel why it is empty (rather than leaving a blank frame)."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", fontsize=8, color="dimgray", wrap=True)


def reference_line(ax, value: float, label: str | None = None) -> None:
    """A dashed horizontal line (a fair share, a baseline)."""
    ax.axhline(value, color="grey", linestyle="--", linewidth=1, label=label)


def _category_ticks(ax, x: np.ndarray, labels: list[str]) -> None:
    """Category labels under the x axis, slanted when there are many or they are long."""
    slant = len(labels) > 4 or max(map(len, labels), default=0) * len(labels) > 40
    ax.set_xticks(x, labels, rotation=30 if slant else 0, ha="right" if slant else "center")


def _percent_axis(ax, value: str) -> None:
    if is_proportion(value):
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))


def finish(fig: Figure, title: str, note: str = CI_NOTE, legend_from=None, legend_title: str | None = None) -> Figure:
    """Title the figure, put one legend (from the axes ``legend_from``) and the note underneath, tighten."""
    fig.suptitle(title, fontsize=12, fontweight="bold")
    height = fig.get_size_inches()[1]
    bottom = 0.3  # inches kept free under the panels: the note, and the legend if any
    handles, labels = legend_from.get_legend_handles_labels() if legend_from is not None else ([], [])
    unique = dict(zip(labels, handles))
    if unique:  # a panel with nothing drawn (too small a sample) has no legend to show
        fig.legend(
            unique.values(),
            unique.keys(),
            loc="lower center",
            ncol=min(len(unique), 8),
            fontsize=8,
            title=legend_title,
            title_fontsize=8,
            bbox_to_anchor=(0.5, 0.25 / height),
            frameon=False,
        )
        bottom += 0.45 if legend_title is None else 0.6
    fig.text(0.01, 0.05 / height, note, fontsize=8, color="dimgray", ha="left", va="bottom")
    fig.tight_layout(rect=(0, bottom / height, 1, 1 - 0.35 / height))
    return fig


def path_of(chart: Chart, folder: str | Path, suffix: str = "png") -> Path:
    """Where :func:`save` writes ``chart`` as ``suffix`` (a page links to it before it is written)."""
    return Path(folder) / f"{chart.name}.{suffix}"


def save(chart: Chart, folder: str | Path) -> list[Path]:
    """Write ``NAME.png`` and ``NAME.svg`` into ``folder`` and close the figure; returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for suffix in ("png", "svg"):
        path = path_of(chart, folder, suffix)
        chart.figure.savefig(path, dpi=DPI, metadata={"Date": None} if suffix == "svg" else None)
        paths.append(path)
    plt.close(chart.figure)
    return paths
