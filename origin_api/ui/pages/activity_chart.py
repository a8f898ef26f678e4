"""Bar charts as SVG, drawn by the server: no chart library, nothing fetched, no script.

Why by hand: the UI's CSP allows no inline style and its pages load nothing from elsewhere; a
stacked bar chart is a few rectangles. Colours are classes (`act-s0`…), styled in ui.css with the
UI's CSS variables, so dark mode covers them; each bar has a `<title>` (the browser's tooltip,
read by screen readers), and the chart a title and a description (`role="img"`), beside the
figures as a table for those who would rather read them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from ...admin import Figures, day_label

#: The drawing's own units; the SVG scales to its box (viewBox), whatever the screen: about
#: one unit a pixel in a wide window, and in a narrow one ui.css makes the labels' font larger
#: in these units, so they stay readable when the drawing is scaled down.
WIDTH, HEIGHT = 1000, 240
LEFT, RIGHT, TOP, BOTTOM = 70, 10, 16, 44
#: Colour classes, one per series in turn (ui.css gives each a variable's colour).
SERIES_CLASSES = 6


@dataclass(frozen=True, slots=True)
class Series:
    """One stacked layer: its name and a value for each day."""

    name: str
    values: list[int]


def short(value: float) -> str:
    """1234 → 1.2k, 5600000 → 5.6M, 2.5 → 2.5: axis labels that fit."""
    for size, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if abs(value) >= size:
            return f"{value / size:.1f}".rstrip("0").rstrip(".") + unit
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _top(peak: int) -> int:
    """A round value at or above `peak` for the axis (1, 2 or 5 times a power of ten)."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if step * factor >= peak:
                return step * factor
        step *= 10


def stacked(chart_id: str, title: str, unit: str, first_day: int, series: list[Series]) -> Markup:
    """A stacked bar per day, one layer per series, with its axis and labels."""
    days = max((len(s.values) for s in series), default=0)
    totals = [sum(s.values[d] for s in series) for d in range(days)]
    peak = max(totals, default=0)
    top = _top(max(peak, 1))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(days, 1)
    bar = max(step * 0.8, 0.5)
    parts = [
        f'<svg class="act-chart" id="{chart_id}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="{chart_id}-t {chart_id}-d" preserveAspectRatio="xMidYMid meet">',
        f'<title id="{chart_id}-t">{escape(title)}</title>',
        f'<desc id="{chart_id}-d">{escape(_describe(unit, first_day, totals))}</desc>',
    ]
    for fraction in (0, 0.5, 1):
        y = TOP + plot_h * (1 - fraction)
        parts.append(
            f'<line class="act-grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="act-axis" x="{LEFT - 8}" y="{y:.1f}" text-anchor="end" '
            f'dominant-baseline="middle">{short(top * fraction)}</text>'
        )
    for day in range(days):
        x = LEFT + day * step + (step - bar) / 2
        base = float(TOP + plot_h)
        for index, layer in enumerate(series):
            value = layer.values[day]
            if value <= 0:
                continue
            height = plot_h * value / top
            base -= height
            label = f"{day_label(first_day + day)} · {layer.name}: {value:,} {unit}"
            parts.append(
                f'<rect class="act-s{index % SERIES_CLASSES}" x="{x:.2f}" y="{base:.2f}" '
                f'width="{bar:.2f}" height="{height:.2f}"><title>{escape(label)}</title></rect>'
            )
    for day, anchor in ((0, "start"), (days // 2, "middle"), (days - 1, "end")):
        if days > 0:
            x = LEFT + day * step + step / 2
            parts.append(
                f'<text class="act-axis" x="{x:.1f}" y="{HEIGHT - 8}" text-anchor="{anchor}">'
                f"{day_label(first_day + day)}</text>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))


def _describe(unit: str, first_day: int, totals: list[int]) -> str:
    """What the chart shows, in words (its `<desc>`)."""
    total = sum(totals)
    if not total:
        return f"No {unit} from {day_label(first_day)} to {day_label(first_day + len(totals) - 1)}."
    busiest = max(range(len(totals)), key=lambda d: totals[d])
    return (
        f"{total:,} {unit} in {len(totals)} days from {day_label(first_day)}; the busiest day "
        f"{day_label(first_day + busiest)} with {totals[busiest]:,}."
    )


def figures_table(first_day: int, per_day: Mapping[str, Sequence[Figures]]) -> Markup:
    """The charts' figures as a table, newest day first, days with events only: for those who
    would rather read them (and screen readers)."""
    rows = []
    days = max((len(r) for r in per_day.values()), default=0)
    for day in reversed(range(days)):
        label = day_label(first_day + day)
        for name, row in per_day.items():
            f = row[day]
            if f.events:
                rows.append(
                    f"<tr><td>{label}</td><td>{escape(name)}</td><td class=num>{f.events:,}</td>"
                    f"<td class=num>{f.sessions:,}</td><td class=num>{f.tokens_in:,}</td>"
                    f"<td class=num>{f.tokens_out:,}</td></tr>"
                )
    return Markup(
        '<details class="act-table"><summary>The figures as a table '
        f"({len(rows):,} rows: a day and an agent with events)</summary>"
        '<table class="counts"><thead><tr><th scope="col">Day</th><th scope="col">Agent</th>'
        '<th scope="col" class="num">Events</th><th scope="col" class="num">Sessions</th>'
        '<th scope="col" class="num">Tokens in</th><th scope="col" class="num">Tokens out</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></details>"
    )
