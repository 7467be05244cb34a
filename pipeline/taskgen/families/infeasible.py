"""Infeasible request: the right behaviour is to say it cannot be done and change nothing.

Kinds: ``missing`` (the named row does not exist; its name is a near miss of real
ones), ``forbidden`` (a business rule forbids the operation from the row's current
status) and ``out_of_range`` (the change would push a value past its allowed range).
The verifier asks for a refusal *and* an untouched state, so neither doing nothing
silently nor trying anyway scores; a refusal on any feasible task scores 0.0.
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.schema import Table
from pipeline.taskgen.context import NUMERIC, Context, Filter, column_words, relation_words, words
from pipeline.taskgen.families._common import change_phrase, op_phrase, operations, settable
from pipeline.taskgen.locate import Found, find, named_parent
from pipeline.taskgen.model import Candidate, Skip
from pipeline.taskgen.phrasing import sentence
from pipeline.verify import AnswerCheck

NAME = "infeasible"
KNOBS = ("kind", "ids_given", "indirection", "distractors")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"kind": "missing", "mode": "label"},
    1: {"kind": "forbidden", "mode": "label"},
    2: {"kind": "out_of_range", "mode": "label"},
    3: {"kind": "missing", "mode": "parent"},
    4: {"kind": "forbidden", "mode": ("rank", "parent")},
    5: {"kind": "forbidden", "mode": ("grandparent", "parent")},
}
REFUSE = AnswerCheck(kind="refuse")


def _near_miss(ctx: Context, rng: random.Random, table: Table) -> Any:
    """A label no row has, made from real ones (a distractor-rich near miss)."""
    labels = [r[table.label] for r in ctx.rows(table) if isinstance(r[table.label], str)]
    if not labels:
        return None
    taken = set(labels)
    for _ in range(30):
        a, b = rng.choice(labels), rng.choice(labels)
        if "-" in a and a.rsplit("-", 1)[1].isdigit():
            head, digits = a.rsplit("-", 1)
            candidate = f"{head}-{(int(digits) + rng.randint(1, 97)) % 10 ** len(digits):0{len(digits)}d}"
        elif " " in a and " " in b:
            candidate = a.split(" ", 1)[0] + " " + b.split(" ", 1)[1]
        else:
            candidate = a + " " + rng.choice(("II", "Plus", "Annex", "North"))
        if candidate not in taken:
            return candidate
    return None


def _request(ctx: Context, rng: random.Random, table: Table, subject: str, row: dict[str, Any] | None) -> str:
    """Ask for something about a row: its value, a change or an operation."""
    options = ["ask"] + (["change"] if settable(ctx, table) else []) + (["operation"] if operations(ctx, table) else [])
    kind = rng.choice(options)
    if kind == "ask":
        attrs = [c for c in ctx.attributes(table) if c.semantic != "timestamp"]
        if not attrs:
            raise Skip("no_attribute")
        return ctx.phrases.render(rng, NAME, "ask", attribute=column_words(rng.choice(attrs)), subject=subject)
    if kind == "change":
        column = rng.choice(settable(ctx, table))
        if column.values:
            shown = ctx.show(column, column.values[0])
        elif column.semantic in NUMERIC:
            shown = ctx.show(column, column.max if column.max is not None else 10)
        else:
            shown = "yes"
        action = ctx.phrases.render(rng, "writes", "set_column", column=words(column.name), value=shown)
        return ctx.phrases.render(rng, NAME, "change", subject=subject, action=action)
    op = rng.choice(operations(ctx, table))
    return ctx.phrases.render(rng, NAME, "operation", action=op_phrase(ctx, rng, op, table, subject))


def _missing(ctx: Context, rng: random.Random, level: int, mode: str) -> Candidate:
    tables = [t for t in ctx.schema.tables if ctx.nameable(t)]
    if mode == "parent":
        tables = [t for t in tables if t.foreign_keys]
    if not tables:
        raise Skip("domain_lacks_subject")
    table = rng.choice(tables)
    if mode == "label":
        label = _near_miss(ctx, rng, table)
        if label is None:
            raise Skip("no_near_miss")
        args = {table.label: label}
        g = ctx.ground(table, args)
        if g.total != 0:
            raise Skip("no_near_miss")
        fake = ctx.label_text(table, {table.label: label})
        subject = ctx.phrases.render(rng, "common", "entity_named", name=f"{ctx.noun(table)} {fake}")
        text = _request(ctx, rng, table, subject, None)
        knobs = {"kind": "missing", "ids_given": False, "indirection": 1, "distractors": 0}
        answer = f"This cannot be done: there is no {ctx.noun(table)} {fake}."
        return Candidate(NAME, level, knobs, sentence(text), [ctx.list_call(table, args)], answer, REFUSE,
                         (table.name,), [g])
    fk, parent, children = named_parent(ctx, rng, table, 1)
    columns = [c for c in ctx.describers(table) if c.semantic != "timestamp"]
    for column in rng.sample(columns, len(columns)):
        present = {r[column.name] for r in children}
        others = [r[column.name] for r in ctx.rows(table)
                  if r[column.name] is not None and r[column.name] not in present]
        if not others:
            continue
        f = Filter.matching(column, rng.choice(sorted(others, key=str)))
        if f is None:
            continue
        args = {fk.name: parent.row["id"], **f.arguments()}
        g = ctx.ground(table, args)
        if g.total != 0:
            continue
        clause = ctx.condition(rng, f)
        subject = ctx.phrases.render(rng, "common", "entity_of_parent", entity=ctx.noun(table),
                                     relation=relation_words(fk), parent=parent.short, conditions=clause)
        text = _request(ctx, rng, table, subject, None)
        knobs = {"kind": "missing", "ids_given": False, "indirection": 3, "distractors": len(children)}
        answer = f"This cannot be done: {parent.phrase} has no such {ctx.noun(table)}."
        return Candidate(NAME, level, knobs, sentence(text), parent.locate + [ctx.list_call(table, args)], answer,
                         REFUSE, tuple(sorted(parent.tables | {table.name})), parent.grounding + [g])
    raise Skip("no_near_miss")


def _forbidden(ctx: Context, rng: random.Random, level: int, mode: str) -> Candidate:
    tables = [t for t in ctx.schema.tables if operations(ctx, t)]
    if not tables:
        raise Skip("domain_lacks_operations")

    def blocked(table: Table, row: dict[str, Any]) -> bool:
        return any(row[str(op.status_column)] not in op.allowed_from for op in operations(ctx, table))

    found: Found = find(ctx, rng, tables, mode, blocked)  # type: ignore[arg-type]
    op = rng.choice([o for o in operations(ctx, found.table) if found.row[str(o.status_column)] not in o.allowed_from])
    text = ctx.phrases.render(rng, NAME, "operation", action=op_phrase(ctx, rng, op, found.table, found.phrase))
    knobs = {**found.knobs, "kind": "forbidden"}
    status = found.row[str(op.status_column)]
    answer = (f"This cannot be done: {found.phrase} is {words(str(status))}, and {words(op.name)} is not allowed "
              "from that status.")
    return Candidate(NAME, level, knobs, sentence(text), found.read(ctx), answer, REFUSE, tuple(sorted(found.tables)),
                     found.grounding)


def _out_of_range(ctx: Context, rng: random.Random, level: int, mode: str) -> Candidate:
    def bounded(table: Table, row: dict[str, Any]) -> bool:
        return any(row[c.name] is not None and c.min is not None for c in settable(ctx, table) if c.semantic in NUMERIC)

    tables = [t for t in ctx.schema.tables
              if any(c.semantic in NUMERIC and c.min is not None for c in settable(ctx, t))]
    if not tables:
        raise Skip("domain_lacks_bounds")
    found = find(ctx, rng, tables, mode, bounded)  # type: ignore[arg-type]
    column = rng.choice([c for c in settable(ctx, found.table) if c.semantic in NUMERIC and c.min is not None
                         and found.row[c.name] is not None])
    current = found.row[column.name]
    low = column.min if column.min is not None else 0
    delta = -(current - low + (1 if column.sql_type == "INTEGER" else 10.0) + rng.randint(0, 20))
    if column.sql_type == "INTEGER":
        delta, low = int(delta), int(low)
    action = change_phrase(ctx, rng, column, delta)
    text = ctx.phrases.render(rng, NAME, "change", subject=found.phrase, action=action)
    knobs = {**found.knobs, "kind": "out_of_range"}
    answer = (f"This cannot be done: the {words(column.name)} is {ctx.show(column, current)} and cannot go below "
              f"{ctx.show(column, low)}.")
    return Candidate(NAME, level, knobs, sentence(text), found.read(ctx), answer, REFUSE, tuple(sorted(found.tables)),
                     found.grounding)


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    if spec["kind"] == "missing":
        return _missing(ctx, rng, level, spec["mode"])
    if spec["kind"] == "forbidden":
        return _forbidden(ctx, rng, level, spec["mode"])
    return _out_of_range(ctx, rng, level, spec["mode"])

