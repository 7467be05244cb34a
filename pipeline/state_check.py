"""Check a populated state against everything the schema promises, with SQL only.

SQLite's own checks come first: ``PRAGMA integrity_check`` (which re-validates every
NOT NULL and CHECK constraint and every UNIQUE index) and ``PRAGMA foreign_key_check``.
Then what SQL constraints cannot say: derived values agree with their rows (totals are
sums of lines, copied prices equal their source), a status's timestamp exists exactly
when the status has been reached, ordered times are in order and never after "now", no
row was created before the rows it references, a history row's new status is a legal
move from its old one. Returns the problems found,
one line each; an empty list means the state is clean.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pipeline.populate import anchor_column, is_birth
from pipeline.schema import Schema, Table

TOLERANCE = 0.005
"""Money is rounded to cents; sums are compared to half a cent."""


def _q(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _reachable(transitions: dict[str, tuple[str, ...]], start: str) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in transitions.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _scalar(conn: sqlite3.Connection, sql: str, params: tuple = ()) -> int:
    return int(conn.execute(sql, params).fetchone()[0] or 0)


def _table_problems(conn: sqlite3.Connection, schema: Schema, table: Table, clock: str) -> list[str]:
    t = _q(table.name)
    out = []
    for c in table.columns:
        col = _q(c.name)
        if c.semantic in ("timestamp", "date"):
            width = 19 if c.semantic == "timestamp" else 10
            if _scalar(conn, f"SELECT count(*) FROM {t} WHERE {col} > ?", (clock[:width],)):
                out.append(f"{table.name}.{c.name}: times after the frozen clock {clock}")
            if c.after:
                base = table.column(c.after)
                w = 10 if "date" in (c.semantic, base.semantic) else 19
                bad = _scalar(conn, f"SELECT count(*) FROM {t} WHERE substr({col}, 1, {w}) < substr({_q(c.after)}, 1, {w})")
                if bad:
                    out.append(f"{table.name}.{c.name}: {bad} rows precede {c.after}")
        if c.stamp is not None and c.nullable:
            status = table.column(c.stamp.column)
            past = sorted(_reachable(dict(status.transitions or {}), c.stamp.value))
            marks = ", ".join("?" for _ in past)
            bad = _scalar(conn, f"SELECT count(*) FROM {t} WHERE ({col} IS NOT NULL) != "
                                f"({_q(status.name)} IN ({marks}))", tuple(past))
            if bad:
                out.append(f"{table.name}.{c.name}: {bad} rows disagree with {status.name} (set from {c.stamp.value!r} on)")
        if c.follows and c.transitions is not None:
            for src, dst in conn.execute(f"SELECT DISTINCT {_q(c.follows)}, {col} FROM {t}").fetchall():
                if dst not in (c.transitions or {}).get(src, ()):
                    out.append(f"{table.name}.{c.name}: {src!r} -> {dst!r} is not a legal move")
        d = c.derived
        if d is None:
            continue
        if d.kind == "sum":
            product = " * ".join(f"c.{_q(f)}" for f in d.factors) or "1"
            bad = _scalar(conn, f"SELECT count(*) FROM {t} p LEFT JOIN (SELECT c.{_q(d.via)} AS k, sum({product}) AS s "
                                f"FROM {_q(str(d.table))} c GROUP BY c.{_q(d.via)}) x ON x.k = p.id "
                                f"WHERE abs(p.{col} - coalesce(x.s, 0)) > {TOLERANCE}")
            if bad:
                out.append(f"{table.name}.{c.name}: {bad} rows differ from the sum over {d.table}")
        else:
            parent = _q(str(table.column(d.via).references))
            product = " * ".join([f"p.{_q(str(d.column))}", *(f"r.{_q(f)}" for f in d.factors)])
            bad = _scalar(conn, f"SELECT count(*) FROM {t} r JOIN {parent} p ON p.id = r.{_q(d.via)} "
                                f"WHERE abs(r.{col} - {product}) > {TOLERANCE}")
            if bad:
                out.append(f"{table.name}.{c.name}: {bad} rows differ from {d.via} -> {d.column}")
    own = anchor_column(table)
    for fk in table.foreign_keys:
        parent = schema.table(str(fk.references))
        theirs = anchor_column(parent)
        if own is None or theirs is None or parent.name == table.name or is_birth(own):
            continue
        w = 10 if "date" in (own.semantic, theirs.semantic) else 19
        bad = _scalar(conn, f"SELECT count(*) FROM {t} r JOIN {_q(parent.name)} p ON p.id = r.{_q(fk.name)} "
                            f"WHERE substr(r.{_q(own.name)}, 1, {w}) < substr(p.{_q(theirs.name)}, 1, {w})")
        if bad:
            out.append(f"{table.name}.{own.name}: {bad} rows precede their {parent.name}.{theirs.name}")
    for group in table.unique_together:
        cols = ", ".join(_q(g) for g in group)
        bad = _scalar(conn, f"SELECT count(*) FROM (SELECT 1 FROM {t} GROUP BY {cols} HAVING count(*) > 1)")
        if bad:
            out.append(f"{table.name}: {bad} repeated ({', '.join(group)}) combinations")
    return out


def check_state(schema: Schema, path: Path, clock: str) -> list[str]:
    # Not opened read-only: SQLite skips CHECK and NOT NULL in integrity_check on a read-only
    # connection. Nothing here writes.
    conn = sqlite3.connect(path)
    try:
        problems = [f"integrity: {r[0]}" for r in conn.execute("PRAGMA integrity_check").fetchall() if r[0] != "ok"]
        problems += [f"foreign key: {r}" for r in conn.execute("PRAGMA foreign_key_check").fetchall()]
        for table in schema.tables:
            problems += _table_problems(conn, schema, table, clock)
        return problems
    finally:
        conn.close()
