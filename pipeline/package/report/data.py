"""The data half of ``report.html``: what is in the state, and how it hangs together.

A data profile (rows per table; per column its null rate and distinct count), bar charts
of the two most telling skews (how unevenly children spread over parents, and the
distribution of a money column on a log scale, captioned with a shape only when the data's
moments support it, and not drawn at all from fewer than ``MIN_VALUES`` values), and an
entity-relationship diagram (scaled into the page's column, scrolling in its box beyond),
drawn as inline SVG and also given as Mermaid text. Everything is computed from the
state with fixed formatting and no timestamps, so the page is byte-for-byte
reproducible. Tables above ``SAMPLE_ABOVE`` rows are profiled on a fixed stride of ids
(marked ≈), which keeps a million-row bundle's report to seconds.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from pipeline.bundle.manifest import ToolUseManifest
from pipeline.package.report.render import Markup, render
from pipeline.world.schema import Column, Schema, Table
from pipeline.world.sqlnames import quote_ident as _q

SAMPLE_ABOVE = 200_000
BOX_WIDTH, LINE, GAP_X, GAP_Y, MAX_LINES = 200, 14, 40, 18, 9
MIN_VALUES = 30
"""Fewer positive values than this and the money histogram is not drawn (nor its shape named)."""
SKEWED_SHARE = 0.2
"""The top tenth of parents holding at least this share of children (twice an even spread) is "skewed"."""
CHARS = 29
"""Characters of 11 px monospace a box holds."""
COLUMN = 1036
"""The page's column at a 1,100 px window (``body{max-width:1100px}`` less its 2em margins): the ER
diagram is drawn to scale into it."""
MIN_SCALE = 0.75
"""How far the ER diagram shrinks to fit the column (11 px text stays above 8 px)."""
BAND = int((COLUMN / MIN_SCALE - 20) // (BOX_WIDTH + GAP_X))
"""Layers side by side at most (5): a deeper reference graph wraps its further layers into a band
below, so no diagram is wider than the column at :data:`MIN_SCALE` and none scrolls."""


@dataclass(frozen=True)
class ColumnProfile:
    name: str
    sql_type: str
    semantic: str
    null_rate: float
    distinct: int


@dataclass(frozen=True)
class TableProfile:
    name: str
    rows: int
    sampled: bool
    columns: tuple[ColumnProfile, ...]


def profile_table(conn: sqlite3.Connection, table: Table) -> TableProfile:
    """One scan per table: non-null and distinct counts of every column at once."""
    rows = conn.execute(f"SELECT count(*) FROM {_q(table.name)}").fetchone()[0]
    stride = max(1, math.ceil(rows / SAMPLE_ABOVE)) if rows > SAMPLE_ABOVE else 1
    source = _q(table.name) if stride == 1 else f"(SELECT * FROM {_q(table.name)} WHERE id % {stride} = 0)"
    parts = ["count(*)"] + [f"count({_q(c.name)}), count(DISTINCT {_q(c.name)})" for c in table.columns]
    counts = conn.execute(f"SELECT {', '.join(parts)} FROM {source}").fetchone()
    seen = counts[0] or 0
    cols = []
    for i, c in enumerate(table.columns):
        non_null, distinct = counts[1 + 2 * i], counts[2 + 2 * i]
        cols.append(
            ColumnProfile(c.name, c.sql_type, c.semantic, round(1 - non_null / seen, 4) if seen else 0.0, int(distinct))
        )
    return TableProfile(table.name, int(rows), stride > 1, tuple(cols))


# -- charts ---------------------------------------------------------------------------------


def bar_chart(title: str, labels: list[str], values: list[float], caption: str) -> str:
    """A small inline SVG bar chart with fixed-precision coordinates."""
    width, height, pad, base = 640, 220, 40, 180
    top = max(values, default=0) or 1
    step = (width - 2 * pad) / max(1, len(values))
    bars, ticks = [], []
    for i, (label, v) in enumerate(zip(labels, values)):
        h = (base - 20) * v / top
        x = pad + i * step
        bars.append(
            {"x": f"{x + 1:.1f}", "y": f"{base - h:.1f}", "w": f"{max(1.0, step - 2):.1f}", "h": f"{h:.1f}"}
            | {"label": label, "value": _fmt(v)}
        )
        if len(labels) <= 12 or i % max(1, len(labels) // 8) == 0:
            ticks.append((f"{x + step / 2:.1f}", label))
    return render(
        "bar_chart.html.j2",
        title=title,
        caption=caption,
        width=width,
        height=height,
        pad=pad,
        base=base,
        top=_fmt(top),
        bars=bars,
        ticks=ticks,
    )


def _fmt(v: float) -> str:
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


def popularity_chart(conn: sqlite3.Connection, schema: Schema) -> str:
    """How unevenly child rows spread over their parents, for the most skewed relation."""
    best: tuple[float, str, str, list[int], int] | None = None
    for t in schema.tables:
        for fk in t.foreign_keys:
            if fk.references == t.name or fk.unique:
                continue
            parents = conn.execute(f"SELECT count(*) FROM {_q(str(fk.references))}").fetchone()[0]
            counts = [
                r[0]
                for r in conn.execute(
                    f"SELECT count(*) AS k FROM {_q(t.name)} WHERE {_q(fk.name)} IS NOT NULL "
                    f"GROUP BY {_q(fk.name)} ORDER BY k DESC"
                )
            ]
            total = sum(counts)
            if parents < 10 or total < 2 * parents:
                continue
            top = sum(counts[: max(1, parents // 10)]) / total
            key = (round(top, 6), t.name, fk.name)
            if best is None or key > (round(best[0], 6), best[1], best[2]):
                best = (top, t.name, fk.name, counts, parents)
    if best is None:
        return ""
    share, table, column, counts, parents = best
    parent = schema.table(table).column(column).references
    shown = counts[:30]
    shape = "Popularity is skewed" if share >= SKEWED_SHARE else "Popularity is close to even"
    return bar_chart(
        f"{table} per {parent} (top {len(shown)} of {parents})",
        [str(i + 1) for i in range(len(shown))],
        [float(c) for c in shown],
        f"{shape}: the top 10% of {parent} account for {share:.0%} of {table} "
        f"(via {column}); bars are {parent} ranked by their number of {table}.",
    )


def _skew(m2: float, m3: float) -> float:
    """Skewness from the central moments (mean of (x - mean)² and ³); 0 for a constant."""
    return m3 / m2**1.5 if m2 > 0 else 0.0


def money_shape(n: int, skew: float, log_skew: float) -> str:
    """What the caption may say of a money column's shape: only what its moments support. A
    right-skewed column (skewness above 1) whose logarithm is about symmetric (within 0.5) looks
    log-normal; a skewed one whose logarithm is not is only right-skewed; anything else, or fewer
    than ``MIN_VALUES`` values, gets no word on its shape."""
    if n < MIN_VALUES or skew <= 1:
        return ""
    if abs(log_skew) < 0.5:
        return f"Looks log-normal: right-skewed (skewness {skew:.2f}), its logarithm about symmetric ({log_skew:.2f})"
    return f"Right-skewed (skewness {skew:.2f}): most values are modest"


def money_chart(conn: sqlite3.Connection, schema: Schema, rows: dict[str, int]) -> str:
    """Distribution of a money column on log-spaced bins (log-normal data looks like a hump)."""
    candidates = [
        (rows.get(t.name, 0), t.name, c.name)
        for t in schema.tables
        for c in t.columns
        if c.semantic == "money" and c.derived is None
    ]
    if not candidates:
        return ""
    _, table, column = max(candidates, key=lambda x: (x[0], x[1], x[2]))
    col = _q(column)
    values = f"(SELECT {col} AS v, log10({col}) AS l FROM {_q(table)} WHERE {col} > 0)"
    n, lo, hi, mv, ml = conn.execute(f"SELECT count(*), min(v), max(v), avg(v), avg(l) FROM {values}").fetchone()
    if n < MIN_VALUES or lo is None or hi is None or hi <= lo:
        return ""  # a histogram of a handful of values shows nothing a reader can trust
    v2, v3, l2, l3 = conn.execute(
        f"SELECT avg((v-?)*(v-?)), avg((v-?)*(v-?)*(v-?)), avg((l-?)*(l-?)), avg((l-?)*(l-?)*(l-?)) FROM {values}",
        [mv] * 5 + [ml] * 5,
    ).fetchone()
    shape = money_shape(n, _skew(v2, v3), _skew(l2, l3))
    bins = 16
    a, b = math.log10(lo), math.log10(hi)
    width = (b - a) / bins
    expr = f"min({bins - 1}, CAST((log10({_q(column)}) - {a!r}) / {width!r} AS INTEGER))"
    found = dict(
        conn.execute(f"SELECT {expr} AS bin, count(*) FROM {_q(table)} WHERE {_q(column)} > 0 GROUP BY bin").fetchall()
    )
    labels = [_fmt(round(10 ** (a + i * width), 2)) for i in range(bins)]
    return bar_chart(
        f"{table}.{column} (log-spaced bins)",
        labels,
        [float(found.get(i, 0)) for i in range(bins)],
        (f"{shape}; " if shape else "")
        + f"{n:,} values from {_fmt(lo)} to {_fmt(hi)}. Each bar starts at the value under it.",
    )


# -- entity-relationship diagram ---------------------------------------------------------------


def _depths(schema: Schema) -> dict[str, int]:
    depth: dict[str, int] = {}
    pending = list(schema.tables)
    while pending:
        progressed = False
        for t in list(pending):
            parents = [str(c.references) for c in t.foreign_keys if c.references != t.name]
            if all(p in depth for p in parents):
                depth[t.name] = 1 + max((depth[p] for p in parents), default=-1)
                pending.remove(t)
                progressed = True
        if not progressed:
            for t in pending:
                depth[t.name] = 0
            break
    return depth


def _clip(text: str, width: int = CHARS - 1) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _marker(c: Column) -> str:
    return "PK" if c.primary_key else "FK" if c.references else "UQ" if c.unique else ""


def er_svg(schema: Schema) -> str:
    """Tables in columns by their depth in the reference graph (parents left), one curve per foreign key."""
    depth = _depths(schema)
    layers: dict[int, list[Table]] = {}
    for t in schema.tables:
        layers.setdefault(depth[t.name], []).append(t)
    pos: dict[str, tuple[float, float, list[str]]] = {}
    order = sorted(layers)
    bands = [order[i : i + BAND] for i in range(0, len(order), BAND)]
    top, columns_used = 0.0, 1
    for band in bands:
        # A band of fewer layers than columns (the last, often one deep layer of notes and tags)
        # spreads each layer over several columns instead of one tall stack.
        per_layer = max(1, BAND // len(band))
        columns_used = max(columns_used, per_layer * len(band))
        bottoms = [top + 30.0] * (per_layer * len(band))
        for i, d in enumerate(band):
            for t in layers[d]:
                shown = [c for c in t.columns if c.primary_key or c.references or c.name == t.label or c.unique]
                shown += [c for c in t.columns if c not in shown]
                lines = [_clip(f"{c.name} {_marker(c)}".rstrip(), CHARS) for c in shown[:MAX_LINES]]
                if len(t.columns) > MAX_LINES:
                    lines.append(f"… +{len(t.columns) - MAX_LINES} more")
                mine = range(i * per_layer, (i + 1) * per_layer)
                column = min(mine, key=lambda c: (bottoms[c], c))
                pos[t.name] = (10 + column * (BOX_WIDTH + GAP_X), bottoms[column], lines)
                bottoms[column] += (len(lines) + 1.5) * LINE + GAP_Y
        top = max(bottoms) + 2 * GAP_Y
    height = top - 2 * GAP_Y
    width = 20 + columns_used * (BOX_WIDTH + GAP_X)
    boxes, edges = [], []
    for t in schema.tables:
        x, y, lines = pos[t.name]
        boxes.append(
            {
                "x": f"{x:.0f}",
                "y": f"{y:.0f}",
                "h": f"{(len(lines) + 1.5) * LINE:.0f}",
                "tx": f"{x + 6:.0f}",
                "ty": f"{y + LINE:.0f}",
                "label": _clip(t.name),
                "name": t.name,
                "lines": [(f"{y + (i + 2.2) * LINE:.0f}", line) for i, line in enumerate(lines)],
            }
        )
        for fk in t.foreign_keys:
            if fk.references == t.name or str(fk.references) not in pos:
                continue
            px, py, _ = pos[str(fk.references)]
            index = next((i for i, line in enumerate(lines) if line.split(" ")[0] == fk.name), 0)
            x1, y1 = x, y + (index + 1.9) * LINE
            x2, y2 = px + BOX_WIDTH, py + 0.7 * LINE
            edges.append(
                {
                    "x1": f"{x1:.0f}",
                    "y1": f"{y1:.0f}",
                    "x2": f"{x2:.0f}",
                    "y2": f"{y2:.0f}",
                    "mid": f"{(x1 + x2) / 2:.0f}",
                }
                | {"table": t.name, "column": fk.name, "parent": str(fk.references)}
            )
    return render(
        "er.html.j2",
        width=f"{width:.0f}",
        height=f"{height:.0f}",
        least=f"{min(width, max(COLUMN, width * MIN_SCALE)):.0f}",
        box_width=BOX_WIDTH,
        head=f"{LINE * 1.3:.0f}",
        boxes=boxes,
        edges=edges,
    )


def er_mermaid(schema: Schema) -> str:
    """The same diagram as Mermaid ``erDiagram`` text, for tools that render it."""
    lines = ["erDiagram"]
    for t in schema.tables:
        for fk in t.foreign_keys:
            many = "|o--||" if fk.unique else "}o--||"
            lines.append(f"    {t.name} {many} {fk.references} : {fk.name}")
    for t in schema.tables:
        lines.append(f"    {t.name} {{")
        for c in t.columns:
            marker = _marker(c)
            lines.append(f"        {c.sql_type} {c.name}{' ' + marker if marker else ''}")
        lines.append("    }")
    return "\n".join(lines) + "\n"


# -- the section ------------------------------------------------------------------------------


def data_section(manifest: ToolUseManifest, schema: Schema, state: Path) -> str:
    rows = manifest.counts.rows_per_table
    conn = sqlite3.connect(f"file:{state}?mode=ro", uri=True)
    try:
        # SQLite's own log10 exists only in builds with math functions; this one always does.
        conn.create_function("log10", 1, math.log10, deterministic=True)
        profiles = [profile_table(conn, t) for t in schema.tables]
        charts = popularity_chart(conn, schema) + money_chart(conn, schema, rows)
    finally:
        conn.close()
    return render(
        "data.html.j2",
        tables=[(p.name, rows.get(p.name, p.rows), len(p.columns)) for p in profiles],
        profiles=profiles,
        charts=Markup(charts),
        er=Markup(er_svg(schema)),
        mermaid=er_mermaid(schema),
    )
