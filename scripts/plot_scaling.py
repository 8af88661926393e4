#!/usr/bin/env python3
"""Draw bench/plots/scaling.svg from the scaling measurements, and print them as table rows.

Usage: plot_scaling.py [--note TEXT] [--out FILE]

Reads the criterion medians of `scaling_tools_{small,large}/N` and `scaling_sessions/S` under
bench/target/criterion and the heap counts `session_memory` wrote to
bench/target/scaling/memory.json (run `scripts/bench-scaling`, which runs both first). The SVG is
written by hand: only the standard library is needed.
"""
import json
import math
import pathlib
import sys
from xml.sax.saxutils import escape

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from criterion_report import human, median_ns  # noqa: E402

BENCH = REPO / "bench"
CRITERION = BENCH / "target" / "criterion"
MEMORY = BENCH / "target" / "scaling" / "memory.json"
TOOL_COUNTS = [1, 10, 100, 1000]
SESSION_COUNTS = [1, 10, 100, 1000, 10000]

# One colour and marker per series, readable in print and for colour-blind readers.
STYLE = {
    "small": ("#1f77b4", "circle"),
    "large": ("#d62728", "square"),
    "process small": ("#1f77b4", "none"),
    "process large": ("#d62728", "none"),
    "sessions": ("#2ca02c", "diamond"),
}


def nice_bytes(value: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if value >= size:
            return f"{value / size:g} {unit}"
    return f"{value:g} B"


def nice_time(ns: float) -> str:
    for unit, size in (("ms", 1e6), ("µs", 1e3)):
        if ns >= size:
            return f"{ns / size:g} {unit}"
    return f"{ns:g} ns"


def nice_count(value: float) -> str:
    return f"{value:,.0f}"


class LogPanel:
    """One log-log chart in a box of the SVG."""

    def __init__(self, x, y, width, height, title, xlabel, ylabel, xfmt, yfmt):
        self.x, self.y, self.w, self.h = x, y, width, height
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.xfmt, self.yfmt = xfmt, yfmt
        self.series = []  # (label, points, dashed)
        # Plot area inside the box, leaving room for the axis labels.
        self.left, self.right = x + 78, x + width - 30
        self.top, self.bottom = y + 40, y + height - 52

    def add(self, label, points, dashed=False):
        self.series.append((label, [(px, py) for px, py in points if py > 0], dashed))

    def _range(self, values):
        low = 10 ** math.floor(math.log10(min(values)))
        high = 10 ** math.ceil(math.log10(max(values)))
        if high == low:
            high = low * 10
        return low, high

    def render(self) -> list[str]:
        xs = [px for _, pts, _ in self.series for px, _ in pts]
        ys = [py for _, pts, _ in self.series for _, py in pts]
        x0, x1 = self._range(xs)
        y0, y1 = self._range(ys)

        def sx(v):
            return self.left + (math.log10(v) - math.log10(x0)) / (
                math.log10(x1) - math.log10(x0)
            ) * (self.right - self.left)

        def sy(v):
            return self.bottom - (math.log10(v) - math.log10(y0)) / (
                math.log10(y1) - math.log10(y0)
            ) * (self.bottom - self.top)

        out = [
            f'<text x="{self.x + self.w / 2}" y="{self.y + 22}" class="title">'
            f"{escape(self.title)}</text>",
            f'<rect x="{self.left}" y="{self.top}" width="{self.right - self.left}" '
            f'height="{self.bottom - self.top}" class="frame"/>',
        ]
        decade = x0
        while decade <= x1 * 1.0001:
            px = sx(decade)
            out.append(f'<line x1="{px:.1f}" y1="{self.top}" x2="{px:.1f}" y2="{self.bottom}" class="grid"/>')
            out.append(f'<text x="{px:.1f}" y="{self.bottom + 16}" class="tick" text-anchor="middle">{escape(self.xfmt(decade))}</text>')
            decade *= 10
        # A range of one decade gets ticks at 2 and 5 too, or it would have only two labels.
        steps = (1, 2, 5) if y1 / y0 <= 10.0001 else (1,)
        decade = y0
        while decade <= y1 * 1.0001:
            for step in steps:
                value = decade * step
                if value > y1 * 1.0001:
                    break
                py = sy(value)
                out.append(f'<line x1="{self.left}" y1="{py:.1f}" x2="{self.right}" y2="{py:.1f}" class="grid"/>')
                out.append(f'<text x="{self.left - 6}" y="{py + 4:.1f}" class="tick" text-anchor="end">{escape(self.yfmt(value))}</text>')
            decade *= 10
        out.append(
            f'<text x="{(self.left + self.right) / 2}" y="{self.bottom + 36}" class="label" '
            f'text-anchor="middle">{escape(self.xlabel)}</text>'
        )
        cy = (self.top + self.bottom) / 2
        out.append(
            f'<text x="{self.x + 14}" y="{cy}" class="label" text-anchor="middle" '
            f'transform="rotate(-90 {self.x + 14} {cy})">{escape(self.ylabel)}</text>'
        )
        for label, pts, dashed in self.series:
            colour, marker = STYLE[label.split(":")[0]]
            path = " ".join(f"{sx(px):.1f},{sy(py):.1f}" for px, py in pts)
            dash = ' stroke-dasharray="6 4"' if dashed else ""
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
            for px, py in pts:
                out.append(marker_svg(marker, sx(px), sy(py), colour))
        # Legend in the top-left corner of the plot area.
        for i, (label, _, dashed) in enumerate(self.series):
            colour, marker = STYLE[label.split(":")[0]]
            ly = self.top + 16 + i * 17
            dash = ' stroke-dasharray="6 4"' if dashed else ""
            out.append(
                f'<line x1="{self.left + 10}" y1="{ly - 4}" x2="{self.left + 34}" y2="{ly - 4}" '
                f'stroke="{colour}" stroke-width="2"{dash}/>'
            )
            out.append(marker_svg(marker, self.left + 22, ly - 4, colour))
            text = label.split(":", 1)[-1].strip()
            out.append(f'<text x="{self.left + 40}" y="{ly}" class="legend">{escape(text)}</text>')
        return out


def marker_svg(kind: str, x: float, y: float, colour: str) -> str:
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'
    if kind == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="none" stroke="{colour}" stroke-width="2"/>'
    if kind == "diamond":
        return (
            f'<polygon points="{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} '
            f'{x - 5:.1f},{y:.1f}" fill="{colour}"/>'
        )
    return ""


def main(argv: list[str]) -> None:
    note, out = "", BENCH / "plots" / "scaling.svg"
    while argv:
        flag = argv.pop(0)
        if flag == "--note" and argv:
            note = argv.pop(0)
        elif flag == "--out" and argv:
            out = pathlib.Path(argv.pop(0))
        else:
            sys.exit(__doc__)
    if not MEMORY.exists():
        sys.exit(f"no heap counts at {MEMORY}; run `cargo bench --bench session_memory` in bench/")
    memory = json.loads(MEMORY.read_text())

    bind = {
        size: [(n, median_ns(f"scaling_tools_{size}/{n}", CRITERION)) for n in TOOL_COUNTS]
        for size in ("small", "large")
    }
    sessions = [(s, median_ns(f"scaling_sessions/{s}", CRITERION) / s) for s in SESSION_COUNTS]
    mem_tools = {
        size: [(p["tools"], p["bytes_per_session"]) for p in memory["tools"] if p["schema"] == size]
        for size in ("small", "large")
    }
    process = {
        size: [(p["tools"], p["process_bytes"]) for p in memory["tools"] if p["schema"] == size]
        for size in ("small", "large")
    }
    mem_sessions = [(p["sessions"], p["bytes_per_session"]) for p in memory["sessions"]]

    panels = [
        LogPanel(0, 30, 480, 330, "Binding one session: time", "tools in the toolset",
                 "median time per session", nice_count, nice_time),
        LogPanel(480, 30, 480, 330, "Binding one session: heap", "tools in the toolset",
                 "bytes", nice_count, nice_bytes),
        LogPanel(0, 360, 480, 330, "Many sessions: time per session (16 tools)",
                 "live sessions", "median time per session", nice_count, nice_time),
        LogPanel(480, 360, 480, 330, "Many sessions: heap per session (16 tools)",
                 "live sessions", "bytes per session", nice_count, nice_bytes),
    ]
    panels[0].add("small: 2-property schemas", bind["small"])
    panels[0].add("large: 40-property schemas", bind["large"])
    panels[1].add("small: per session, small schemas", mem_tools["small"])
    panels[1].add("large: per session, large schemas", mem_tools["large"])
    panels[1].add("process small: process-wide, small schemas (paid once)", process["small"], dashed=True)
    panels[1].add("process large: process-wide, large schemas (paid once)", process["large"], dashed=True)
    panels[2].add("sessions: ToolRegistry::build", sessions)
    panels[3].add("sessions: bytes kept per session", mem_sessions)

    width, height = 960, 730
    body = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
        "<style>.title{font-size:15px;font-weight:bold;text-anchor:middle}"
        ".label{font-size:12px}.tick{font-size:11px;fill:#333}.legend{font-size:11px}"
        ".frame{fill:none;stroke:#444}.grid{stroke:#ddd}.note{font-size:11px;fill:#555}</style>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" class="title">cy-tools: binding cost as the toolset and '
        "the number of sessions grow (log scales)</text>",
    ]
    for panel in panels:
        body.extend(panel.render())
    if note:
        body.append(f'<text x="10" y="{height - 10}" class="note">{escape(note)}</text>')
    body.append("</svg>")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(body) + "\n")
    print(f"wrote {out.relative_to(REPO) if out.is_relative_to(REPO) else out}")

    print("\n| tools | bind, small schemas | bind, large schemas | per tool (small) | bytes per session, small | bytes per session, large |")
    print("|---|---|---|---|---|---|")
    for i, n in enumerate(TOOL_COUNTS):
        print(
            f"| {n} | {human(bind['small'][i][1])} | {human(bind['large'][i][1])} | "
            f"{human(bind['small'][i][1] / n)} | {mem_tools['small'][i][1]:.0f} B | "
            f"{mem_tools['large'][i][1]:.0f} B |"
        )
    print("\n| live sessions (16 tools each) | time per session | bytes per session |")
    print("|---|---|---|")
    for (s, t), (_, b) in zip(sessions, mem_sessions):
        print(f"| {s:,} | {human(t)} | {b:.0f} B |")


if __name__ == "__main__":
    main(sys.argv[1:])
