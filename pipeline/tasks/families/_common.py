"""Helpers several families share: answer checks, fresh values and write phrases."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from pipeline.data.columns import ISO, column_seed, generate_column
from pipeline.runtime.task import ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.context import Context, Where
from pipeline.tasks.filters import Rows
from pipeline.tasks.locate import Found, describe
from pipeline.tasks.model import Skip
from pipeline.tasks.words import NUMERIC, TIMES, column_words, field_words, words
from pipeline.tools.specs import TransitionTool, UpdateTool
from pipeline.world.schema import Column, Table
from pipeline.world.timeline import terminal

AMOUNT_TOLERANCE = 0.01
"""How far the aggregate tool's float sum may sit from the exact one (an agreement check only:
answers themselves are judged exactly, rounded as the instruction says)."""


def answer_for(ctx: Context, rng: random.Random, column: Column, value: Any) -> tuple[AnswerCheck, str]:
    """The check for one stored value, and the sentence asking for it in that form.

    A stored value is read, not computed, so numbers must match exactly (any way of
    writing them: ``12.5``, ``12.50``, ``$12.50``); a date may be written as the
    instructions write dates ("October 28, 2024") or as stored.
    """
    if column.sql_type == "REAL":
        return AnswerCheck(kind="number", expected=value), ctx.phrases.render(rng, "common", "answer_value")
    if column.sql_type == "INTEGER":
        return AnswerCheck(kind="number", expected=value), ctx.phrases.render(rng, "common", "answer_number")
    if column.semantic == "date":
        return AnswerCheck(kind="date", expected=str(value)[:10]), ctx.phrases.render(rng, "common", "answer_value")
    return AnswerCheck(kind="text", expected=value), ctx.phrases.render(rng, "common", "answer_value")


def fresh_value(ctx: Context, table: Table, column: Column, rng: random.Random, avoid: set[Any]) -> Any:
    """A plausible value for ``column`` that is not in ``avoid`` (drawn like populated data)."""
    now = datetime.strptime(ctx.clock, ISO)
    salt = rng.randrange(10**9)
    for attempt in range(20):
        seed = column_seed(ctx.seed, table.name, f"task/{salt}/{attempt}")
        for v in generate_column(table, column, 8, seed, now, {}, {}):
            if column.semantic == "timestamp" and v is not None:
                v = v[:16] + ":00"
            if column.sql_type == "BOOLEAN" and v is not None:
                v = bool(v)
            if v is not None and v not in avoid:
                return v
    raise Skip("no_fresh_value")


def settable(ctx: Context, table: Table, exclude: set[str] = frozenset()) -> list[Column]:  # type: ignore[assignment]
    """Columns the update tool writes that a user would plausibly ask to change."""
    tool = ctx.tool("update", table)
    if tool is None:
        return []
    writable = set(ctx.toolset.get(tool, UpdateTool).columns)
    return [
        c
        for c in table.columns
        if c.name in writable
        and c.name not in exclude
        and c.name != table.label
        and not c.references
        and c.semantic not in ("text", "url", "timestamp")
        and (c.values or c.semantic in NUMERIC or c.sql_type == "BOOLEAN" or c.semantic == "date")
    ]


def new_value(ctx: Context, table: Table, column: Column, current: set[Any], rng: random.Random) -> Any:
    """A value for ``column`` different from every value in ``current``."""
    if column.values:
        options = [v for v in column.values if v not in current]
        if not options:
            raise Skip("no_fresh_value")
        return rng.choice(options)
    if column.sql_type == "BOOLEAN":
        flags = {bool(v) for v in current}
        if len(flags) != 1:
            raise Skip("no_fresh_value")
        return not flags.pop()
    taken = set(current)
    if column.unique:
        taken |= set(ctx.values(table, column.name))
    return fresh_value(ctx, table, column, rng, taken)


def set_phrase(ctx: Context, rng: random.Random, column: Column, value: Any) -> str:
    """One field set, as a person asks for it: a yes/no field named "is ..." by what it says of the
    record ("mark it as archived"), a date or time by its name as a date ("its due date", not "its
    due on"), any other field by its name."""
    name = field_words(column)
    if column.sql_type == "BOOLEAN" and name.lower().startswith("is ") and len(name) > 3:
        return ctx.phrases.render(rng, "writes", "set_flag" if value else "set_flag_not", flag=name[3:])
    if column.semantic in TIMES:
        name = column_words(column)
    return ctx.phrases.render(rng, "writes", "set_column", column=name, value=ctx.show(column, value))


def editable(ctx: Context, table: Table, row: dict[str, Any]) -> bool:
    """A generic update may change the record: it is not in a final status (a paid invoice, a delivered order)."""
    return ctx.executor.guard.final_status(table, row) is None


def leaves_open(ctx: Context, table: Table, op: TransitionTool) -> bool:
    """After the operation the record can still be edited (its new status is not final)."""
    status = table.column(str(op.status_column))
    return not terminal(status, str(op.to))


def operations(ctx: Context, table: Table) -> list[TransitionTool]:
    return [t for t in ctx.toolset.tools if isinstance(t, TransitionTool) and t.table == table.name]


def op_phrase(ctx: Context, rng: random.Random, op: TransitionTool, table: Table, subject: str) -> str:
    """'cancel_order' on "the order ORD-1" -> "cancel the order ORD-1" (or a generic variant)."""
    entity = table.entity
    name = op.name
    status = field_words(table.column(op.status_column)) if op.status_column else "status"
    head, _, tail = name.partition(f"_{entity}")
    if name.endswith(f"_{entity}") or (head == "mark" and tail.startswith("_")):
        direct = " ".join(p for p in (words(head), subject, words(tail.lstrip("_"))) if p)
        return ctx.phrases.render(
            rng,
            "writes",
            "operation_direct",
            action=direct,
            subject=subject,
            to=words(str(op.to)),
            status=status,
            operation=words(name),
        )
    return ctx.phrases.render(
        rng, "writes", "operation_generic", subject=subject, to=words(str(op.to)), status=status, operation=words(name)
    )


def op_call(op: TransitionTool, row_id: int) -> ToolCall:
    return ToolCall(tool=op.name, arguments={"id": row_id})


def update_call(ctx: Context, table: Table, row_id: int, values: dict[str, Any]) -> ToolCall:
    return ToolCall(tool=ctx.need_tool("update", table), arguments={"id": row_id, **values})


def relative_change(rng: random.Random, column: Column, current: Any) -> tuple[Any, Any] | None:
    """(delta, new value) that keeps ``column`` inside its bounds, or None."""
    if current is None or column.semantic not in NUMERIC:
        return None
    low = column.min if column.min is not None else 0.0
    high = column.max if column.max is not None else max(float(current) * 2, 100.0)
    for _ in range(8):
        if column.sql_type == "INTEGER":
            delta: Any = rng.choice((-1, 1)) * rng.randint(1, max(1, int((high - low) // 10) or 1))
            new: Any = int(current) + delta
        else:
            delta = rng.choice((-1, 1)) * float(rng.choice((5, 10, 15, 20, 25, 50)))
            new = round(float(current) + delta, 2)
        if low <= new <= high and new != current:
            return delta, new
    return None


def change_phrase(ctx: Context, rng: random.Random, column: Column, delta: Any) -> str:
    amount = f"{abs(delta):.2f}" if column.sql_type == "REAL" else str(int(abs(delta)))
    form = "increase_column" if delta > 0 else "decrease_column"
    return ctx.phrases.render(rng, "writes", form, column=field_words(column), amount=amount)


def op_path(ctx: Context, table: Table, row: dict[str, Any], rng: random.Random) -> list[TransitionTool] | None:
    """Operations that bring ``row`` to a status no single operation reaches from where it is.

    The plausible first move, the operation named after the goal, is refused from the current
    status (``forbidden_transition``): the task is solvable only by the lifecycle's way round,
    the ``recoveries`` knob. The shortest such route of 2-3 operations, or None.
    """
    ops = operations(ctx, table)
    if not ops:
        return None
    column = str(ops[0].status_column)
    start = row[column]
    direct = {str(o.to) for o in ops if start in o.allowed_from}
    routes: dict[str, list[TransitionTool]] = {start: []}
    frontier = [start]
    for _ in range(3):
        nxt = []
        for status in frontier:
            for op in ops:
                if op.status_column == column and status in op.allowed_from and str(op.to) not in routes:
                    routes[str(op.to)] = [*routes[status], op]
                    nxt.append(str(op.to))
        frontier = nxt
    goals = [
        s
        for s, path in routes.items()
        if len(path) >= 2 and s not in direct and any(o.to == s and start not in o.allowed_from for o in ops)
    ]
    if not goals:
        return None
    return routes[rng.choice(sorted(goals))]


def path_phrase(ctx: Context, rng: random.Random, table: Table, op: TransitionTool) -> str:
    """The goal of a path, never its steps: "make sure it ends up delivered"."""
    status = field_words(table.column(str(op.status_column)))
    return ctx.phrases.render(rng, "writes", "reach_status", to=words(str(op.to)), status=status)


Chain = tuple[Table, Column, Table, Column]
"""(C, C's key to B, B, B's key to A): children of the children of A."""


def fanout_chains(ctx: Context) -> list[Chain]:
    """Every two-hop chain A -> B -> C whose keys the list tools filter on (A other than B and C)."""
    return [
        (c, fk_c, b, fk_b)
        for b in ctx.schema.tables
        for fk_b in b.foreign_keys
        for c, fk_c in ctx.children(b)
        if fk_c.name in ctx.filterable(c)
        and fk_b.name in ctx.filterable(b)
        and ctx.parent_of(fk_b).name not in (b.name, c.name)
        and c.name != b.name
    ]


def fanout_anchor(
    ctx: Context, rng: random.Random, chains: list[Chain]
) -> tuple[Chain, dict[str, Any], Rows, Found] | None:
    """One try at a fan-out subject: a chain, a described A row with 3-6 B rows (the chain, the A
    row, its B rows, the description), or None when this draw does not fit."""
    chain = rng.choice(chains)
    fk_b = chain[3]
    a = ctx.parent_of(fk_b)
    a_row = rng.choice(ctx.rows(a))
    middles = ctx.rows(chain[2], Where(fk_b.name, "=", a_row["id"]))
    if not 3 <= len(middles) <= 6:
        return None
    parent = describe(ctx, rng, a, a_row, "partial") or describe(ctx, rng, a, a_row, "label")
    return None if parent is None else (chain, a_row, middles, parent)
