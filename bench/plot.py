#!/usr/bin/env python3
"""Plot what a git-fabro checkpoint costs, from the raw results of bench/run.py --json.

Writes one SVG with two panels: the time of each checkpoint while one run grows
(growth_build.series), and checkpoint-10 against `git add -A && git commit` for each
repository size (the checkpoint-10 rows).

Usage: python3 bench/plot.py RESULTS.json OUT.svg
"""

import argparse
import json
import math
import statistics
import sys
from xml.sax.saxutils import escape

W, H = 960, 420
TOP, BOTTOM = 84, 344  # plot area, shared by both panels
LEFT_X, RIGHT_X = (70, 450), (560, 930)
INK, AXIS, GRID = "#24292f", "#57606a", "#e1e4e8"
DOT, MEDIAN = "#6baed6", "#08519c"
FABRO, GIT = "#1f6feb", "#d1242f"


def text(x, y, s, size=12, anchor="middle", **attrs):
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>{escape(s)}</text>'


def nice_top(v):
    """Smallest 1, 2, 2.5 or 5 x 10^k that is >= v, with its ticks from 0."""
    k = math.floor(math.log10(v)) if v > 0 else 0
    for m in (1, 2, 2.5, 5, 10):
        top = m * 10**k
        if top >= v * (1 - 1e-9):
            n = 4 if m == 2 else 5
            return top, [top * i / n for i in range(n + 1)]


def round_step(hi):
    """A 1, 2 or 5 x 10^k step giving at most 5 intervals over 0..hi (integers for ordinals)."""
    k = math.floor(math.log10(hi)) - 1
    while True:
        for m in (1, 2, 5):
            if hi / (m * 10**k) <= 5:
                return m * 10**k
        k += 1


def short(n):
    for div, suffix in ((10**6, "M"), (10**3, "k")):
        if n >= div:
            return f"{n / div:g}{suffix}"
    return f"{n:g}"


def marker(shape, x, y, colour):
    if shape == "square":
        return f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>'


def axes(out, x0, x1, xticks, yticks, title, xlabel, ylabel):
    """Grid, ticks and labels of one panel; ticks are (pixel, label) pairs."""
    for py, label in yticks:
        out.append(f'<line x1="{x0 - 4}" x2="{x1}" y1="{py:.1f}" y2="{py:.1f}" stroke="{GRID}"/>')
        out.append(text(x0 - 7, py + 4, label, anchor="end"))
    for px, label in xticks:
        out.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{TOP}" y2="{BOTTOM + 4}" stroke="{GRID}"/>')
        out.append(text(px, BOTTOM + 17, label))
    out.append(f'<path d="M{x0} {TOP}V{BOTTOM}H{x1}" fill="none" stroke="{AXIS}"/>')
    mid = (x0 + x1) / 2
    out.append(text(mid, 56, title, size=13, font_weight="bold"))
    out.append(text(mid, BOTTOM + 35, xlabel))
    ymid = (TOP + BOTTOM) / 2
    out.append(text(x0 - 44, ymid, ylabel, transform=f"rotate(-90 {x0 - 44} {ymid})"))


def legend(out, x, items):
    """One row of (swatch, label) between the panel title and the plot, so it never covers data."""
    for swatch, label in items:
        out.append(swatch(x + 8, TOP - 12))
        out.append(text(x + 20, TOP - 8, label, anchor="start"))
        x += 34 + 6.5 * len(label)  # rough width of 12 px sans-serif


def growth_panel(out, series):
    xs = [p[0] for p in series]
    ys = [p[1] for p in series]
    x0, x1 = LEFT_X
    hi = max(xs) or 1
    step = round_step(hi)
    # Scale to the 99th percentile so a few slow outliers do not flatten the rest.
    top, yt = nice_top(sorted(ys)[int(0.99 * (len(ys) - 1))])

    def sx(v):
        return x0 + (x1 - x0) * v / hi

    def sy(v):
        return BOTTOM - (BOTTOM - TOP) * min(v, top) / top

    xticks = [(sx(i * step), f"{i * step:,g}") for i in range(int(hi / step) + 1)]
    axes(out, x0, x1, xticks, [(sy(t), f"{t:g}") for t in yt],
         "Checkpoint time vs earlier checkpoints in the run",
         "checkpoint number in the run", "milliseconds")
    # Each dot is a zero-length round-capped stroke: a tenth of the bytes of a <circle>.
    dots = "".join(f"M{sx(x):.1f} {sy(y):.1f}h0" for x, y in zip(xs, ys))
    out.append(f'<path d="{dots}" stroke="{DOT}" stroke-opacity="0.5" stroke-width="2" stroke-linecap="round"/>')
    half = min(101, max(1, len(ys) // 10)) // 2
    med = [statistics.median(ys[max(0, i - half):i + half + 1]) for i in range(len(ys))]
    pts = " ".join(f"{sx(x):.1f},{sy(m):.1f}" for x, m in zip(xs, med))
    out.append(f'<polyline points="{pts}" fill="none" stroke="{MEDIAN}" stroke-width="1.8"/>')
    legend(out, x0, [
        (lambda x, y: f'<circle cx="{x}" cy="{y}" r="2.5" fill="{DOT}"/>', "each checkpoint (1 file changed)"),
        (lambda x, y: f'<line x1="{x - 8}" x2="{x + 8}" y1="{y}" y2="{y}" stroke="{MEDIAN}" stroke-width="2"/>',
         "rolling median"),
    ])


def sizes_panel(out, rows):
    """rows: (number of files, fabro_ms, git_ms), sorted by number of files."""
    x0, x1 = RIGHT_X
    lo, hi = math.log10(rows[0][0]), math.log10(rows[-1][0])
    pad = max(0.3, (1 - (hi - lo)) / 2)  # at least one decade wide, points off the edges
    lo, hi = lo - pad, hi + pad
    top, yt = nice_top(max(max(f + g) for _, f, g in rows))

    def sx(n):
        return x0 + (x1 - x0) * (math.log10(n) - lo) / (hi - lo)

    def sy(v):
        return BOTTOM - (BOTTOM - TOP) * v / top

    xticks = [(sx(10**e), short(10**e)) for e in range(math.ceil(lo), math.floor(hi) + 1)]
    axes(out, x0, x1, xticks, [(sy(t), f"{t:g}") for t in yt],
         "Checkpoint with 10 files changed vs repository size",
         "files in the repository (log scale)", "milliseconds (median, bar = min–max)")
    series = [(GIT, "square", 2), (FABRO, "circle", 1)]  # git-fabro drawn last, on top
    for colour, shape, i in series:
        pts = [(sx(r[0]), statistics.median(r[i]), r[i]) for r in rows]
        out.append(f'<polyline points="{" ".join(f"{x:.1f},{sy(m):.1f}" for x, m, _ in pts)}" '
                   f'fill="none" stroke="{colour}" stroke-width="1.5"/>')
        for x, m, ms in pts:
            out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{sy(min(ms)):.1f}" y2="{sy(max(ms)):.1f}" '
                       f'stroke="{colour}" stroke-width="1.2"/>')
            out.append(marker(shape, x, sy(m), colour))
    for j, (n, f, g) in enumerate(rows):
        ratio = statistics.median(f) / statistics.median(g)
        x, y = sx(n), sy(statistics.median(f))
        # The axis padding left of the first point is free; further on both lines come in from
        # the left and rise to the right, so go right, on the side away from git's point.
        if j == 0:
            x, y, anchor = x - 7, y + 4, "end"
        else:
            x, y, anchor = x + 6, (y + 15 if ratio < 1 and y + 15 < BOTTOM - 2 else y - 7), "start"
        out.append(text(x, y, f"{ratio:.2f}×", size=11, anchor=anchor,
                        fill=FABRO, stroke="white", stroke_width=3, paint_order="stroke"))
    legend(out, x0, [
        (lambda x, y: marker("circle", x, y, FABRO), "git-fabro"),
        (lambda x, y: marker("square", x, y, GIT), "git add -A && git commit"),
    ])


def files(size):
    try:
        return int(str(size).split()[0].replace(",", ""))
    except (ValueError, IndexError):
        return None


def caption(facts):
    date = str(facts.get("date", "")).split(" ")[0]
    nproc = facts.get("nproc")
    cpus = f"{nproc} CPU{'' if nproc == 1 else 's'}" if nproc else None
    where = ", ".join(str(p) for p in (facts.get("cpu"), cpus, facts.get("git")) if p)
    return f"Measured{' ' + date if date else ''}{' on ' + where if where else ''}; bench/run.py"


def main():
    ap = argparse.ArgumentParser(description="Plot what a git-fabro checkpoint costs as an SVG.")
    ap.add_argument("results", metavar="RESULTS.json", help="raw results from bench/run.py --json")
    ap.add_argument("out", metavar="OUT.svg", help="SVG file to write")
    args = ap.parse_args()
    try:
        with open(args.results, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as e:
        sys.exit(f"plot.py: cannot read {args.results}: {e}")

    series = (data.get("growth_build") or {}).get("series")
    if not series:
        sys.exit(f"plot.py: {args.results} has no growth_build.series (needed for the left panel)")
    rows = sorted((files(r.get("size")), r["fabro_ms"], r["git_ms"]) for r in data.get("results") or []
                  if r.get("bench") == "checkpoint-10" and r.get("fabro_ms") and r.get("git_ms")
                  and files(r.get("size")))
    if not rows:
        sys.exit(f"plot.py: {args.results} has no checkpoint-10 result with fabro_ms and git_ms "
                 "(needed for the right panel)")

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'font-family="Helvetica, Arial, sans-serif" fill="{INK}">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           text(W / 2, 28, "What a git-fabro checkpoint costs", size=17, font_weight="bold")]
    growth_panel(out, series)
    sizes_panel(out, rows)
    out.append(text(W / 2, H - 12, caption(data.get("facts") or {}), size=11, fill=AXIS))
    out.append("</svg>\n")
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out))


if __name__ == "__main__":
    main()
