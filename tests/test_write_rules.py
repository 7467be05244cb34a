"""Write tools keep the rules the data keeps: every write tool refuses a rule-breaking write.

For every domain (and several --random variants) and every declared numeric rule, an update
and a create that put the rule's left side just past its bound are refused with
``constraint_violation`` and leave the state byte for byte as it was; so are writes that break a
timeline. Records in a final status refuse generic updates; operations and status updates write
the status-history rows the schema declares.
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pipeline.data.populate import DEFAULT_CLOCK, populate
from pipeline.tools.executor import Executor, ToolError, open_copy
from pipeline.tools.guard import API_ACTOR
from pipeline.tools.specs import Toolset, build_toolset
from pipeline.world.blueprint import list_domains, load_blueprint
from pipeline.world.rules import rule_value_sql, split
from pipeline.world.schema import Schema, Table, build_schema
from pipeline.world.timeline import terminal
from pipeline.world.variants import random_schema

VARIANTS = (3, 5, 11, 1017)


def _world(schema: Schema, seed: int, tmp: Path) -> tuple[Toolset, Executor, bytes]:
    path = populate(schema, seed, tmp / f"{schema.name}.sqlite").path
    toolset = build_toolset(schema)
    return toolset, Executor(schema, toolset, DEFAULT_CLOCK), path.read_bytes()


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _open_statuses(table: Table) -> str:
    status = next((c for c in table.columns if c.semantic == "status" and c.transitions), None)
    if status is None:
        return "1"
    values = [v for v in status.values or () if not terminal(status, v)]
    return f"r.{_q(status.name)} IN ({', '.join(repr(v) for v in values) or 'NULL'})"


def _breaking(conn: sqlite3.Connection, schema: Schema, table: Table, rule: Any) -> tuple[int, str, Any] | None:
    """(row id, column, value) putting the rule's left side just past its bound, inside the column's range."""
    left, op, right = split(rule.check)
    column = table.column(left)
    step = 1 if column.sql_type == "INTEGER" else 0.01
    past = f"({rule_value_sql(schema, table, right)}) {'+' if op in ('<=', '<') else '-'} {step}"
    where = [f"{past} IS NOT NULL", _open_statuses(table)]
    where += [f"{past} >= {column.min}"] if column.min is not None else []
    where += [f"{past} <= {column.max}"] if column.max is not None else []
    if rule.when:
        from pipeline.world.rules import _Sql, parse

        where.append(_Sql(schema, table).condition(parse(rule.when, condition=True)))
    hit = conn.execute(
        f"SELECT r.id, {past} FROM {_q(table.name)} r WHERE {' AND '.join(where)} ORDER BY r.id LIMIT 1"
    ).fetchone()
    if hit is None:
        return None
    value = int(hit[1]) if column.sql_type == "INTEGER" else round(float(hit[1]), 2)
    return int(hit[0]), left, value


def _refused(executor: Executor, conn: sqlite3.Connection, tool: str, args: dict[str, Any], code: str) -> str:
    before = conn.serialize()
    with pytest.raises(ToolError) as exc:
        executor.call(conn, tool, args)
    assert exc.value.code == code, (tool, args, exc.value.message)
    assert conn.serialize() == before, f"{tool} changed the state although it was refused"
    return exc.value.message


def _row(conn: sqlite3.Connection, table: Table, row_id: int) -> dict[str, Any]:
    cur = conn.execute(f"SELECT * FROM {_q(table.name)} WHERE id = ?", (row_id,))
    return dict(zip([d[0] for d in cur.description], cur.fetchone()))


def _numeric_rules(schema: Schema) -> list[tuple[Table, Any]]:
    return [
        (t, r)
        for t in schema.tables
        for r in t.rules
        if t.column(split(r.check)[0]).sql_type in ("INTEGER", "REAL") and t.column(split(r.check)[0]).semantic
    ]


SCHEMAS = [pytest.param(d, id=d) for d in list_domains()] + [pytest.param(v, id=f"variant-{v}") for v in VARIANTS]


def _schema(which: str | int) -> Schema:
    return random_schema(which) if isinstance(which, int) else build_schema(load_blueprint(which))


@pytest.mark.parametrize("which", SCHEMAS)
def test_every_write_tool_refuses_a_rule_breaking_write(which: str | int, tmp_path: Path) -> None:
    schema = _schema(which)
    rules = _numeric_rules(schema)
    if not rules:
        pytest.skip(f"{schema.name} declares no numeric rule")
    toolset, executor, initial = _world(schema, 1, tmp_path)
    with closing(open_copy(initial)) as conn:
        tried = 0
        for table, rule in rules:
            update = next((t for t in toolset.tools if t.kind == "update" and t.table == table.name), None)
            create = next((t for t in toolset.tools if t.kind == "create" and t.table == table.name), None)
            found = _breaking(conn, schema, table, rule)
            if found is None:
                continue
            row_id, left, value = found
            if update is not None and left in update.columns:
                message = _refused(executor, conn, update.name, {"id": row_id, left: value}, "constraint_violation")
                assert rule.message in message
                tried += 1
            if create is not None and left in create.columns:
                row = _row(conn, table, row_id)
                args = {c: row[c] for c in create.columns if row.get(c) is not None}
                for c in table.columns:
                    if c.name in args and c.sql_type == "BOOLEAN":
                        args[c.name] = bool(args[c.name])
                    if c.name in args and c.unique and not c.references:
                        args[c.name] = f"{args[c.name]}-new" if isinstance(args[c.name], str) else args[c.name] + 10**6
                args[left] = value
                if not table.unique_together:
                    _refused(executor, conn, create.name, args, "constraint_violation")
                    tried += 1
        assert tried, f"no rule of {schema.name} could be tried"


@pytest.mark.parametrize("which", ["clinic_appointments", "museum_collections", 3])
def test_a_write_breaking_a_timeline_is_refused(which: str | int, tmp_path: Path) -> None:
    schema = _schema(which)
    toolset, executor, initial = _world(schema, 2, tmp_path)
    with closing(open_copy(initial)) as conn:
        tried = 0
        for table in schema.tables:
            update = next((t for t in toolset.tools if t.kind == "update" and t.table == table.name), None)
            if update is None:
                continue
            for c in table.columns:
                if c.after and c.name in update.columns:
                    hit = conn.execute(
                        f"SELECT r.id FROM {_q(table.name)} r "
                        f"WHERE r.{_q(c.after)} > '1991' AND {_open_statuses(table)} ORDER BY r.id LIMIT 1"
                    ).fetchone()
                    if hit is None:
                        continue
                    early = "1990-01-01" if c.semantic == "date" else "1990-01-01T00:00:00"
                    _refused(executor, conn, update.name, {"id": hit[0], c.name: early}, "constraint_violation")
                    tried += 1
        assert tried


def test_a_record_in_a_final_status_refuses_generic_updates(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("clinic_appointments"))
    _, executor, initial = _world(schema, 3, tmp_path)
    with closing(open_copy(initial)) as conn:
        void = conn.execute("SELECT id, amount FROM invoices WHERE status = 'void' ORDER BY id LIMIT 1").fetchone()
        message = _refused(executor, conn, "update_invoice", {"id": void[0], "amount": void[1]}, "conflict")
        assert "'void'" in message and "final" in message
        issued = conn.execute("SELECT id FROM invoices WHERE status = 'issued' ORDER BY id LIMIT 1").fetchone()[0]
        assert executor.call(conn, "update_invoice", {"id": issued, "amount": 99.0})["amount"] == 99.0


def _with_history() -> Schema:
    for seed in range(200):
        schema = random_schema(seed)
        for t in schema.tables:
            h = t.history
            if h is not None and any(op.table == h.of for op in schema.operations):
                return schema
    raise AssertionError("no variant with a status history and an operation on its subject")


def test_operations_write_the_status_history(tmp_path: Path) -> None:
    schema = _with_history()
    toolset, executor, initial = _world(schema, 4, tmp_path)
    with closing(open_copy(initial)) as conn:
        ops = {op.table for op in schema.operations}
        history = next(t for t in schema.tables if t.history and t.history.of in ops)
        h = history.history
        assert h is not None
        op = next(o for o in toolset.tools if o.kind == "transition" and o.table == h.of)
        marks = ", ".join("?" for _ in op.allowed_from)
        subject = conn.execute(
            f"SELECT id, {_q(str(op.status_column))} FROM {_q(h.of)} WHERE {_q(str(op.status_column))} IN ({marks}) "
            "ORDER BY id LIMIT 1",
            op.allowed_from,
        ).fetchone()
        assert subject is not None, "no record in a state the operation allows"
        before = conn.execute(f"SELECT count(*) FROM {_q(history.name)}").fetchone()[0]
        executor.call(conn, op.name, {"id": subject[0]})
        rows = conn.execute(
            f"SELECT * FROM {_q(history.name)} WHERE {_q(h.via)} = ? ORDER BY id DESC LIMIT 1", (subject[0],)
        )
        latest = dict(zip([d[0] for d in rows.description], rows.fetchone()))
        assert conn.execute(f"SELECT count(*) FROM {_q(history.name)}").fetchone()[0] == before + 1
        assert (latest[h.source], latest[h.target], latest[h.at]) == (subject[1], op.to, DEFAULT_CLOCK)
        assert API_ACTOR in latest.values()
        # The history's code names the record and its change number, whatever else happened before.
        code = next(v for k, v in latest.items() if isinstance(v, str) and v.count("-") == 2 and k != h.at)
        assert code.split("-")[1] == str(subject[0])


def test_tool_names_have_one_style_and_descriptions_no_identifiers() -> None:
    """Tool names are snake_case words; descriptions say tables and fields in words (argument names, which
    are the API, appear only where the description lists the required ones)."""
    for seed in range(20):
        schema = random_schema(seed)
        toolset = build_toolset(schema)
        styled = {t.name for t in schema.tables if t.name != t.noun.replace(" ", "_")}
        styled |= {c.name for t in schema.tables for c in t.columns if c.name != c.label.replace(" ", "_")}
        for tool in toolset.tools:
            assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", tool.name), tool.name
            prose = re.sub(r"Required: [^.]*\.", "", tool.description)
            for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", prose):
                assert word not in styled or word.lower() == word == word.replace("_", ""), (tool.name, word)
