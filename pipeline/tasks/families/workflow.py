"""Multi-step workflow over several entities: find a row, run its operation, follow up.

For example: find the customer's latest pending order, cancel it, record a note row for
it, and adjust the customer's balance. Knobs: how the row is found, and ``steps`` (the
writes, in order): ``op`` (a guarded operation), ``set`` (a field of the row),
``child`` (create a row referencing it, possibly with a value taken from it) and
``parent`` (a relative change to the row's parent).
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.runtime.task import ToolCall
from pipeline.tasks.context import Context
from pipeline.tasks.families._common import (
    change_phrase,
    editable,
    fresh_value,
    leaves_open,
    new_value,
    op_call,
    op_path,
    op_phrase,
    operations,
    path_phrase,
    relative_change,
    set_phrase,
    settable,
    update_call,
)
from pipeline.tasks.locate import Found, find
from pipeline.tasks.model import Candidate, Skip
from pipeline.tasks.phrasing import sentence
from pipeline.tasks.words import NUMERIC, column_words, field_words, relation_words
from pipeline.tools.specs import CreateTool
from pipeline.world.schema import Column, Table

NAME = "workflow"
KNOBS = ("steps", "ids_given", "indirection", "distractors")
LEVELS: dict[int, dict[str, Any]] = {
    0: {"mode": "label", "steps": ("op", "set")},
    1: {"mode": ("rank", "parent"), "steps": ("op", "set")},
    2: {"mode": ("rank", "parent"), "steps": ("op", "child")},
    3: {"mode": "parent", "steps": ("op", "child", "parent")},
    4: {"mode": ("partial_rank", "rank", "parent"), "steps": ("path", "child", "parent", "set", "set")},
}


def _child_table(ctx: Context, table: Table) -> tuple[Table, Column] | None:
    """A table whose rows reference ``table`` and whose other required references follow
    from the row itself (a fine for a loan is charged to that loan's member)."""
    own = {c.references for c in table.foreign_keys}
    for child, fk in ctx.children(table):
        tool = ctx.tool("create", child)
        if tool is None or child.name == table.name or fk.nullable:
            continue
        others = [c for c in child.foreign_keys if not c.nullable and c.name != fk.name]
        if all(c.references in own for c in others):
            return child, fk
    return None


def _parent_change(ctx: Context, table: Table, row: dict[str, Any]) -> tuple[Column, Table, Column] | None:
    """A parent of ``row`` and a field of it to change (a number if it has one)."""
    options: list[tuple[Column, Table, Column]] = []
    for fk in table.foreign_keys:
        if row[fk.name] is None or fk.references == table.name:
            continue
        parent = ctx.parent_of(fk)
        prow = ctx.row(parent, row[fk.name])
        if not editable(ctx, parent, prow):
            continue
        for c in settable(ctx, parent):
            if c.semantic not in NUMERIC or relative_change(random.Random(0), c, prow[c.name]):
                options.append((fk, parent, c))
    options.sort(key=lambda o: o[2].semantic not in NUMERIC)
    return options[0] if options else None


def _resolve(ctx: Context, steps: tuple[str, ...], table: Table, row: dict[str, Any]) -> tuple[str, ...] | None:
    """The steps this row allows; a ``child`` or ``parent`` step the domain cannot do
    becomes one more field change on the row (same number of writes), or None."""
    usable = [op for op in operations(ctx, table) if row[str(op.status_column)] in op.allowed_from]
    if not usable:
        return None
    if "path" in steps:
        path = op_path(ctx, table, row, random.Random(0))
        if path is None or ("set" in steps and not leaves_open(ctx, table, path[-1])):
            return None
    out = tuple(
        "set"
        if (s == "child" and _child_table(ctx, table) is None)
        or (s == "parent" and _parent_change(ctx, table, row) is None)
        else s
        for s in steps
    )
    if "set" in out and not any(leaves_open(ctx, table, op) for op in usable):
        return None
    return out if out.count("set") <= len(settable(ctx, table)) else None


def _seen(ctx: Context, calls: list[ToolCall], table: Table, row_id: int) -> bool:
    """Whether one of ``calls`` already returned this record (a search result carries whole rows)."""
    for call in calls:
        spec = ctx.toolset.get(call.tool)
        if spec.table != table.name or spec.mode != "read":
            continue
        result = ctx.call(call.tool, dict(call.arguments))
        rows = result.get("items", [result]) if isinstance(result, dict) else []
        if any(isinstance(r, dict) and r.get("id") == row_id for r in rows):
            return True
    return False


def _child_step(ctx: Context, rng: random.Random, found: Found) -> tuple[str, ToolCall]:
    child, fk = _child_table(ctx, found.table) or (None, None)
    if child is None or fk is None:
        raise Skip("domain_lacks_relation")
    args: dict[str, Any] = {fk.name: found.row["id"]}
    parts: list[str] = []
    for c in child.foreign_keys:
        if c.name != fk.name and not c.nullable:
            same = next(o for o in found.table.foreign_keys if o.references == c.references)
            if found.row[same.name] is None:
                raise Skip("no_subject")
            args[c.name] = found.row[same.name]
            parts.append(ctx.phrases.render(rng, NAME, "same_parent", relation=relation_words(same)))
    writable = set(ctx.toolset.get(ctx.need_tool("create", child), CreateTool).columns)
    derived_done = False
    for col in child.columns:
        if col.name not in writable or col.nullable or col.references:
            continue
        source = next(
            (
                c
                for c in found.table.columns
                if c.semantic == col.semantic
                and col.semantic in NUMERIC
                and not c.references
                and found.row[c.name] is not None
                and (col.min is None or found.row[c.name] >= col.min)
                and (col.max is None or found.row[c.name] <= col.max)
            ),
            None,
        )
        if source is not None and not derived_done:
            args[col.name] = found.row[source.name]
            parts.append(
                ctx.phrases.render(
                    rng,
                    NAME,
                    "derived",
                    column=column_words(col),
                    owner=ctx.noun(found.table),
                    source=column_words(source),
                )
            )
            derived_done = True
            continue
        taken = set(ctx.values(child, col.name)) if col.unique or col.name == child.label else set()
        value = fresh_value(ctx, child, col, rng, taken)
        args[col.name] = value
        shown = value if col.semantic in ("timestamp", "date") else ctx.show(col, value)
        parts.append(ctx.phrases.render(rng, "create", "value", column=field_words(col), value=shown))
    listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)
    text = ctx.phrases.render(rng, NAME, "create_child", entity=ctx.noun(child), values=listed)
    return text, ToolCall(tool=ctx.need_tool("create", child), arguments=args)


def generate(ctx: Context, rng: random.Random, level: int) -> Candidate:
    spec = LEVELS[level]
    steps: tuple[str, ...] = spec["steps"]
    tables = [t for t in ctx.schema.tables if operations(ctx, t)]
    if not tables:
        raise Skip("domain_lacks_operations")
    try:
        found = find(ctx, rng, tables, spec["mode"], lambda t, r: _resolve(ctx, steps, t, r) is not None)
    except Skip:
        if "path" not in steps:
            raise
        # No lifecycle detour in this domain: the plain operation instead.
        steps = tuple("op" if s == "path" else s for s in steps)
        found = find(ctx, rng, tables, spec["mode"], lambda t, r: _resolve(ctx, steps, t, r) is not None)
    table, row = found.table, found.row
    planned = _resolve(ctx, steps, table, row) or steps
    changed: set[str] = set()
    calls = list(found.locate)
    actions: list[str] = []
    recoveries = 0
    # Whether the last action was on a related record: the next one on the record itself names it
    # again ("back on the vendor bill, mark it archived"), so its "it" cannot be read as the other.
    away = False

    def on_record(text: str) -> str:
        nonlocal away
        if away:
            away = False
            return ctx.phrases.render(rng, NAME, "back_on", entity=ctx.noun(table), action=text)
        return text

    for step in planned:
        if step == "path":
            # The same route _resolve checked (seeded alike), reached by its goal alone.
            path = op_path(ctx, table, row, random.Random(0)) or []
            calls += [op_call(op, row["id"]) for op in path]
            actions.append(on_record(path_phrase(ctx, rng, table, path[-1])))
            recoveries += 1
        elif step == "op":
            usable = [o for o in operations(ctx, table) if row[str(o.status_column)] in o.allowed_from]
            if "set" in planned:
                # A field is set after the operation: a final status would lock the record first.
                usable = [o for o in usable if leaves_open(ctx, table, o)]
            op = rng.choice(usable)
            calls.append(op_call(op, row["id"]))
            actions.append(on_record(op_phrase(ctx, rng, op, table, "it")))
        elif step == "set":
            column = rng.choice(
                settable(ctx, table, exclude=found.used | changed) or settable(ctx, table, exclude=changed) or [None]
            )  # type: ignore[list-item]
            if column is None:
                raise Skip("domain_lacks_writes")
            changed.add(column.name)
            value = new_value(ctx, table, column, {row[column.name]}, rng)
            calls.append(update_call(ctx, table, row["id"], {column.name: value}))
            actions.append(on_record(set_phrase(ctx, rng, column, value)))
        elif step == "child":
            text, call = _child_step(ctx, rng, found)
            calls.append(call)
            actions.append(text)
            away = True
        else:
            fk, parent, column = _parent_change(ctx, table, row) or (None, None, None)
            if fk is None or parent is None or column is None:
                raise Skip("domain_lacks_relation")
            prow = ctx.row(parent, row[fk.name])
            change = relative_change(rng, column, prow[column.name]) if column.semantic in NUMERIC else None
            if change is not None and not _seen(ctx, calls, parent, prow["id"]):
                # A relative change needs the current value (unless a search already showed the record);
                # a plain set needs only the id the row holds.
                calls.append(ctx.read_call(parent, prow["id"]))
            if change is not None:
                delta, value = change
                action = change_phrase(ctx, rng, column, delta)
            else:
                value = new_value(ctx, parent, column, {prow[column.name]}, rng)
                action = set_phrase(ctx, rng, column, value)
            calls.append(update_call(ctx, parent, prow["id"], {column.name: value}))
            actions.append(ctx.phrases.render(rng, NAME, "parent_change", relation=relation_words(fk), action=action))
            away = True
    intro = ctx.phrases.render(rng, NAME, "intro", subject=found.phrase)
    if len(actions) == 1:
        rest = ctx.phrases.render(rng, NAME, "single_step", first=actions[0])
    else:
        rest = ctx.phrases.render(rng, NAME, "steps_joined", first=actions[0], rest=", then ".join(actions[1:]))
    knobs = {**found.knobs, "steps": "+".join(planned), "recoveries": recoveries}
    return Candidate(
        NAME,
        level,
        knobs,
        sentence(intro) + " " + sentence(rest),
        calls,
        grounding=found.grounding,
    )
