"""The realism check: a populated state against everything the schema promises, mostly in SQL.

SQLite's own checks come first: ``PRAGMA integrity_check`` (which re-validates every
NOT NULL and CHECK constraint and every UNIQUE index) and ``PRAGMA foreign_key_check``.
Then what SQL constraints cannot say, by kind:

* ``derived``: totals are sums of their lines, copied prices equal their source;
* ``rule``, ``timeline``, ``status``: the row checks of :mod:`pipeline.world.checks` (declared
  business rules; declared time order, children not before parents, status times after
  creation and in lifecycle order; a status time exists exactly when the history allows),
  plus nothing after the frozen clock;
* ``history``: a status-history table tells each record's story: moves chain from the
  initial status to the record's current one, in time order, after the record was created;
* ``vocabulary``: every value of a vocabulary column is one its vocabulary produces;
* ``settles``: payments add up (``settles:``): a settled parent's children sum to its total to the
  cent, an open one's to less, a parent that takes none has none, any other at most its total,
  and no parent has more than three;
* ``integrity``: the SQLite checks above and unique-together groups.

:func:`realism_check` counts violating rows per check; :func:`check_state` lists the failed
ones, one line each (empty means clean). The build runs it on every generated database and
fails on any violation.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from pipeline.data.settle import MAX_CHILDREN
from pipeline.data.vocab import load_vocab, outside
from pipeline.world.checks import row_checks
from pipeline.world.schema import Schema, Table
from pipeline.world.sqlnames import quote_ident as _q
from pipeline.world.sqlnames import quote_literal
from pipeline.world.timeline import anchor_column

TOLERANCE = 0.005
"""Money is rounded to cents; sums are compared to half a cent."""
KINDS = ("integrity", "derived", "rule", "timeline", "status", "history", "vocabulary", "settles")


class RealismFailure(ValueError):
    """A generated database broke a rule, a timeline, a status or a vocabulary; the message names each check."""


@dataclass(frozen=True)
class Finding:
    kind: str
    check: str
    rows: int
    """Violating rows (0: the check passed)."""
    detail: str = ""

    def __str__(self) -> str:
        extra = f" ({self.detail})" if self.detail else ""
        return f"{self.kind}: {self.check}: {self.rows} rows{extra}"


def _scalar(conn: sqlite3.Connection, sql: str, params: tuple = ()) -> int:
    return int(conn.execute(sql, params).fetchone()[0] or 0)


def _derived(conn: sqlite3.Connection, table: Table) -> list[Finding]:
    t, out = _q(table.name), []
    for c in table.columns:
        d = c.derived
        if d is None:
            continue
        col = _q(c.name)
        if d.kind == "sum":
            product = " * ".join(f"c.{_q(f)}" for f in d.factors) or "1"
            bad = _scalar(
                conn,
                f"SELECT count(*) FROM {t} p LEFT JOIN (SELECT c.{_q(d.via)} AS k, sum({product}) AS s "
                f"FROM {_q(str(d.table))} c GROUP BY c.{_q(d.via)}) x ON x.k = p.id "
                f"WHERE abs(p.{col} - coalesce(x.s, 0)) > {TOLERANCE}",
            )
            out.append(Finding("derived", f"{table.name}.{c.name} = sum over {d.table}", bad))
        else:
            parent = _q(str(table.column(d.via).references))
            product = " * ".join([f"p.{_q(str(d.column))}", *(f"r.{_q(f)}" for f in d.factors)])
            bad = _scalar(
                conn,
                f"SELECT count(*) FROM {t} r JOIN {parent} p ON p.id = r.{_q(d.via)} "
                f"WHERE abs(r.{col} - {product}) > {TOLERANCE}",
            )
            out.append(Finding("derived", f"{table.name}.{c.name} = {d.via} -> {d.column}", bad))
    return out


def _clock(conn: sqlite3.Connection, table: Table, clock: str) -> list[Finding]:
    out = []
    for c in table.columns:
        if c.semantic in ("timestamp", "date"):
            width = 19 if c.semantic == "timestamp" else 10
            bad = _scalar(conn, f"SELECT count(*) FROM {_q(table.name)} WHERE {_q(c.name)} > ?", (clock[:width],))
            out.append(Finding("timeline", f"{table.name}.{c.name} <= frozen clock", bad))
    return out


def _groups(conn: sqlite3.Connection, table: Table) -> list[Finding]:
    out = []
    for group in table.unique_together:
        cols = ", ".join(_q(g) for g in group)
        bad = _scalar(
            conn, f"SELECT count(*) FROM (SELECT 1 FROM {_q(table.name)} GROUP BY {cols} HAVING count(*) > 1)"
        )
        out.append(Finding("integrity", f"{table.name}: ({', '.join(group)}) unique together", bad))
    return out


def _history(conn: sqlite3.Connection, schema: Schema, table: Table) -> list[Finding]:
    """Each record's changes chain from its initial status to its current one, in time order."""
    h = table.history
    if h is None:
        return []
    subject = schema.table(h.of)
    initial = (subject.column(h.status).values or ("",))[0]
    via, src, dst, at = (_q(x) for x in (h.via, h.source, h.target, h.at))
    ordered = (
        f"SELECT {via} AS k, {src} AS src, {dst} AS dst, {at} AS at, "
        f"lag({dst}) OVER (PARTITION BY {via} ORDER BY {at}, id) AS prev, "
        f"row_number() OVER (PARTITION BY {via} ORDER BY {at} DESC, id DESC) AS back "
        f"FROM {_q(table.name)}"
    )
    broken = _scalar(
        conn,
        f"SELECT count(*) FROM ({ordered}) WHERE (prev IS NULL AND src != ?) OR (prev IS NOT NULL AND src != prev)",
        (initial,),
    )
    stale = _scalar(
        conn,
        f"SELECT count(*) FROM ({ordered}) x JOIN {_q(subject.name)} s ON s.id = x.k "
        f"WHERE x.back = 1 AND x.dst != s.{_q(h.status)}",
    )
    out = [
        Finding("history", f"{table.name}: moves chain from {initial!r}", broken),
        Finding("history", f"{table.name}: the latest move ends in {subject.name}.{h.status}", stale),
    ]
    anchor = anchor_column(subject)
    if anchor is not None:
        early = _scalar(
            conn,
            f"SELECT count(*) FROM {_q(table.name)} x JOIN {_q(subject.name)} s ON s.id = x.{via} "
            f"WHERE x.{at} < s.{_q(anchor.name)}",
        )
        out.append(Finding("history", f"{table.name}: no move before its {subject.noun} was created", early))
    return out


def _vocabularies(conn: sqlite3.Connection, table: Table) -> list[Finding]:
    """Values of a column with a named vocabulary, or a listed one (``vocabulary``), come from it."""
    out = []
    for c in table.columns:
        if not c.vocab and not c.vocabulary:
            continue
        rows = conn.execute(
            f"SELECT {_q(c.name)}, count(*) FROM {_q(table.name)} WHERE {_q(c.name)} IS NOT NULL GROUP BY 1"
        ).fetchall()
        counts = dict(rows)
        listed = set(c.initial or ())
        candidates = [v for v in counts if v not in listed]
        if c.vocab:
            strange = outside(load_vocab(c.vocab), candidates, numbered=c.unique)
        else:
            allowed = set(c.vocabulary or ())
            unnumbered = [re.sub(r" [0-9]+$", "", str(v)) if c.unique else v for v in candidates]
            strange = sorted(v for v, base in zip(candidates, unnumbered) if v not in allowed and base not in allowed)
        bad = sum(counts[v] for v in strange)
        sample = ", ".join(repr(v) for v in strange[:3])
        source = c.vocab or "its listed vocabulary"
        out.append(Finding("vocabulary", f"{table.name}.{c.name} from {source}", bad, sample))
    return out


def _settles(conn: sqlite3.Connection, table: Table) -> list[Finding]:
    """A settling table's amounts against its parents' totals, one check per group of statuses."""
    s = table.settles
    if s is None:
        return []
    parent = str(table.column(s.via).references)
    sums = (
        f"SELECT p.{_q(s.status)} AS status, p.{_q(s.total)} AS total, coalesce(x.s, 0) AS s, coalesce(x.n, 0) AS n "
        f"FROM {_q(parent)} p LEFT JOIN (SELECT {_q(s.via)} AS k, sum({_q(s.amount)}) AS s, count(*) AS n "
        f"FROM {_q(table.name)} GROUP BY {_q(s.via)}) x ON x.k = p.id WHERE p.{_q(s.total)} IS NOT NULL"
    )

    def inside(values: tuple[str, ...]) -> str:
        return "status IN (" + ", ".join(quote_literal(v) for v in values) + ")" if values else "0"

    listed = (*s.paid, *s.open, *s.none)
    checks = [
        (f"{inside(s.paid)} AND (n = 0 OR abs(s - total) > {TOLERANCE})", f"{s.paid} paid in full"),
        (f"{inside(s.open)} AND s > total - {TOLERANCE}", f"{s.open} paid in part"),
        (f"{inside(s.none)} AND n > 0", f"{s.none} not paid"),
        (f"NOT {inside(listed)} AND s > total + {TOLERANCE}", "others paid at most in full"),
        (f"n > {MAX_CHILDREN}", f"at most {MAX_CHILDREN} payments"),
    ]
    # One pass over the sums for every check: at a million payments each pass is a second.
    counts = conn.execute(f"SELECT {', '.join(f'sum({w})' for w, _ in checks)} FROM ({sums})").fetchone()
    return [
        Finding("settles", f"{table.name}.{s.amount} settles {parent}.{s.total}: {name}", int(bad or 0))
        for (_, name), bad in zip(checks, counts)
    ]


def realism_check(schema: Schema, path: Path, clock: str, sqlite_checks: bool = True) -> list[Finding]:
    """Every check of the schema over the state at ``path``, with its count of violating rows.

    ``sqlite_checks=False`` skips SQLite's own integrity and foreign-key passes, for a state
    :func:`pipeline.data.populate.populate` has just written: it inserted every row under
    CHECK, NOT NULL and UNIQUE and ran the foreign-key check itself, and at a million rows the
    two passes cost as much as everything else here.
    """
    # Not opened read-only: SQLite skips CHECK and NOT NULL in integrity_check on a read-only
    # connection. Nothing here writes.
    conn = sqlite3.connect(path)
    try:
        found: list[Finding] = []
        if sqlite_checks:
            found += [
                Finding("integrity", "PRAGMA integrity_check", 1, str(r[0]))
                for r in conn.execute("PRAGMA integrity_check").fetchall()
                if r[0] != "ok"
            ]
            found += [
                Finding("integrity", "PRAGMA foreign_key_check", 1, str(r))
                for r in conn.execute("PRAGMA foreign_key_check").fetchall()
            ]
        for check in row_checks(schema):
            bad = _scalar(conn, f"SELECT count(*) FROM {_q(check.table)} r WHERE {check.sql}")
            found.append(Finding(check.kind, check.name, bad))
        for table in schema.tables:
            found += _derived(conn, table) + _clock(conn, table, clock) + _groups(conn, table)
            found += _history(conn, schema, table) + _vocabularies(conn, table)
            found += _settles(conn, table)
        return found
    finally:
        conn.close()


def summary(findings: list[Finding]) -> dict[str, dict[str, int]]:
    """Per kind: checks run, checks failed, violating rows (the figures the report shows)."""
    out = {k: {"checks": 0, "failed": 0, "rows": 0} for k in KINDS}
    for f in findings:
        entry = out.setdefault(f.kind, {"checks": 0, "failed": 0, "rows": 0})
        entry["checks"] += 1
        entry["failed"] += f.rows > 0
        entry["rows"] += f.rows
    return out


def check_state(schema: Schema, path: Path, clock: str) -> list[str]:
    """The failed checks, one line each; an empty list means the state is clean."""
    return [str(f) for f in realism_check(schema, path, clock) if f.rows]
