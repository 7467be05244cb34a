"""Infeasible request: the right behaviour is to refuse, naming the blocker, and change nothing.

Kinds: ``missing`` (the row the request names does not exist under a parent that does),
``forbidden`` (a business rule forbids the operation from the row's current status) and
``out_of_range`` (the change would push a value past its allowed range). The answer is
the structured refusal every instruction describes, ``{"cannot": "missing"|"status"|
"limit", "id": ..., "value": ...}``, with what only looking reveals: the id of the
record checked and its blocking status or current value. So a blind refusal, a refusal
for the wrong reason, a false claim of success or trying anyway all score 0.0; and a
request whose goal already holds (cancel what is cancelled, ship what was delivered) is
never asked, since "nothing to do" would be as right as a refusal. Likewise a change out of range
is asked only of a record no final status locks, so "limit" is the one reason.

The wording is the lookup and update families' own (and every task ends with the same
refusal sentence), so an instruction does not say which requests are infeasible.
"""

from __future__ import annotations

import json
import random
from typing import Any

from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import (
    change_phrase,
    editable,
    op_phrase,
    operations,
    settable,
)
from pipeline.tasks.feasibility import moves, reachable, refusal_is_sound
from pipeline.tasks.filters import Filter
from pipeline.tasks.locate import Found, find, named_parent
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import NUMERIC, column_words, field_words, relation_words
from pipeline.tools.specs import TransitionTool
from pipeline.world.schema import Table

NAME = "infeasible"
KNOBS = ("kind", "ids_given", "indirection", "distractors")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"kind": "forbidden", "mode": "label"},
    1: {"kind": "out_of_range", "mode": "label"},
    2: {"kind": "missing", "mode": "parent"},
    3: {"kind": "out_of_range", "mode": ("rank", "parent")},
    4: {"kind": "forbidden", "mode": ("partial_rank", "rank", "parent")},
}
"""A missing row is always missing *under a parent the user names*: the agent must find
that parent (its id is part of the answer). A missing top-level name would leave nothing
to discover, so a refusal naming it could be written without looking."""


def refusal(kind: str, record: int, value: Any = None) -> tuple[str, AnswerCheck]:
    """The gold answer (as an agent writes it) and its check."""
    expected = {"cannot": kind, "id": record, "value": value}
    return json.dumps(expected), AnswerCheck(kind="refuse", expected=expected)


def reachable_statuses(table: Table, column: str, start: str) -> set[str]:
    """Statuses a row can reach from ``start`` (``start`` included) along the blueprint's transitions."""
    return set(reachable(moves(table, column, ()), start))


def _blocked_ops(ctx: Context, table: Table, row: dict[str, Any]) -> list[TransitionTool]:
    """Operations the row's status forbids under every reading of the request: not those whose
    goal already holds (the row is at the target status or past it: refusing would be no more
    right than doing nothing), and not those whose goal some legal sequence of moves reaches
    ("close the claim" of a claim under review: deny it, then close it), which a user asking for
    the outcome would expect done (:func:`pipeline.tasks.feasibility.refusal_is_sound`)."""
    out = []
    for op in operations(ctx, table):
        column, status = str(op.status_column), row[str(op.status_column)]
        if status in op.allowed_from or status in reachable_statuses(table, column, str(op.to)):
            continue
        if refusal_is_sound(ctx.schema, table.name, column, str(status), str(op.to)) is not None:
            continue
        out.append(op)
    return out


def _request(ctx: Context, rng: random.Random, table: Table, subject: str, row: dict[str, Any] | None) -> str:
    """Ask for something about a row: its value, a change or an operation."""
    options = ["ask"] + (["change"] if settable(ctx, table) else []) + (["operation"] if operations(ctx, table) else [])
    kind = rng.choice(options)
    if kind == "ask":
        attrs = [c for c in ctx.attributes(table) if c.semantic != "timestamp"]
        if not attrs:
            raise Skip("no_attribute")
        question = ctx.phrases.render(rng, NAME, "ask", attribute=column_words(rng.choice(attrs)), subject=subject)
        return sentence(question) + " " + ctx.phrases.render(rng, "common", "answer_value")
    if kind == "change":
        column = rng.choice(settable(ctx, table))
        if column.values:
            shown = ctx.show(column, column.values[0])
        elif column.semantic in NUMERIC:
            shown = ctx.show(column, column.max if column.max is not None else 10)
        else:
            shown = "yes"
        action = ctx.phrases.render(rng, "writes", "set_column", column=field_words(column), value=shown)
        return sentence(ctx.phrases.render(rng, NAME, "change", subject=subject, action=action))
    op = rng.choice(operations(ctx, table))
    return sentence(ctx.phrases.render(rng, NAME, "operation", action=op_phrase(ctx, rng, op, table, subject)))


def _missing(ctx: Context, rng: random.Random, level: int, mode: str) -> Candidate:
    tables = [t for t in ctx.schema.tables if ctx.nameable(t) and t.foreign_keys]
    if not tables:
        raise Skip("domain_lacks_subject")
    table = rng.choice(tables)
    fk, parent, children = named_parent(ctx, rng, table, 1)
    # Not by status: "cancel its order with status cancelled" would read as a request already met.
    columns = [c for c in ctx.describers(table) if c.semantic not in ("timestamp", "status")]
    for column in rng.sample(columns, len(columns)):
        present = {r[column.name] for r in children}
        others = [
            r[column.name] for r in ctx.rows(table) if r[column.name] is not None and r[column.name] not in present
        ]
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
        subject = ctx.phrases.render(
            rng,
            "common",
            "entity_of_parent",
            entity=ctx.noun(table),
            relation=relation_words(fk),
            parent=parent.short,
            conditions=clause,
        )
        text = _request(ctx, rng, table, subject, None)
        knobs = {"kind": "missing", "ids_given": False, "indirection": 3, "distractors": len(children)}
        answer, check = refusal("missing", parent.row["id"])
        return Candidate(
            NAME,
            level,
            knobs,
            text,
            [*parent.locate, ctx.list_call(table, args)],
            answer,
            check,
            grounding=[*parent.grounding, g],
        )
    raise Skip("no_near_miss")


def _forbidden(ctx: Context, rng: random.Random, level: int, mode: str) -> Candidate:
    tables = [t for t in ctx.schema.tables if operations(ctx, t)]
    if not tables:
        raise Skip("domain_lacks_operations")

    def blocked(table: Table, row: dict[str, Any]) -> bool:
        return bool(_blocked_ops(ctx, table, row))

    found: Found = find(ctx, rng, tables, mode, blocked)  # type: ignore[arg-type]
    op = rng.choice(_blocked_ops(ctx, found.table, found.row))
    text = ctx.phrases.render(rng, NAME, "operation", action=op_phrase(ctx, rng, op, found.table, found.phrase))
    knobs = {**found.knobs, "kind": "forbidden", "operation": op.name}
    answer, check = refusal("status", found.row["id"], found.row[str(op.status_column)])
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(text),
        found.read(ctx),
        answer,
        check,
        grounding=found.grounding,
    )


def _out_of_range(ctx: Context, rng: random.Random, level: int, mode: str) -> Candidate:
    def bounded(table: Table, row: dict[str, Any]) -> bool:
        # Only a record a change may reach: on one a final status locks (a checked-out stay), "status"
        # would be as right as "limit", and the task would have two answers.
        return editable(ctx, table, row) and any(
            row[c.name] is not None and c.min is not None for c in settable(ctx, table) if c.semantic in NUMERIC
        )

    tables = [
        t for t in ctx.schema.tables if any(c.semantic in NUMERIC and c.min is not None for c in settable(ctx, t))
    ]
    if not tables:
        raise Skip("domain_lacks_bounds")
    found = find(ctx, rng, tables, mode, bounded)  # type: ignore[arg-type]
    column = rng.choice(
        [
            c
            for c in settable(ctx, found.table)
            if c.semantic in NUMERIC and c.min is not None and found.row[c.name] is not None
        ]
    )
    current = found.row[column.name]
    low = column.min if column.min is not None else 0
    delta = -(current - low + (1 if column.sql_type == "INTEGER" else 10.0) + rng.randint(0, 20))
    if column.sql_type == "INTEGER":
        delta, low = int(delta), int(low)
    action = change_phrase(ctx, rng, column, delta)
    text = ctx.phrases.render(rng, NAME, "change", subject=found.phrase, action=action)
    knobs = {**found.knobs, "kind": "out_of_range"}
    answer, check = refusal("limit", found.row["id"], current)
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(text),
        found.read(ctx),
        answer,
        check,
        grounding=found.grounding,
    )


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    if spec["kind"] == "missing":
        return _missing(ctx, rng, level, spec["mode"])
    if spec["kind"] == "forbidden":
        return _forbidden(ctx, rng, level, spec["mode"])
    return _out_of_range(ctx, rng, level, spec["mode"])
