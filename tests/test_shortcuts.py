"""No shortcut at levels 3 and up: every call of a reference solution is needed.

For each task of level >= 3, each call is dropped in turn:

* a dropped write: the rest of the solution, replayed on a fresh copy with the gold
  answer, must not pass the verifier (or must fail to run);
* a dropped read: it must be the only source of something the task needs, namely an
  argument value of a later call that no earlier remaining call (nor the instruction)
  reveals, a value of the answer no other call reveals, or, when the answer is computed
  (a sum, an average, a count found in no single result), rows no other call reads.

A read passing none of these could be left out and the same answer given: a shortcut.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pipeline.bundle.format import serialise
from pipeline.jobs.steps import Inputs, populate_step, schema_step, tools_step
from pipeline.runtime.session import Session
from pipeline.runtime.task import Task
from pipeline.tasks.generate import generate_tasks
from pipeline.tools.executor import Executor, ToolError
from pipeline.world.schema import Schema
from pipeline.world.variants import pick_domain

PLUMBING = frozenset({"limit", "offset", "order_by", "descending", "table", "metric", "column", "group_by"})
"""Arguments that come from the tool's own vocabulary, never from what a read revealed."""


Key = tuple[str, Any]
"""A value as a later step would use it: ("<table>", id) for a record's id or a reference to it,
("v", value) for any other field, so an order's id 7 is never mistaken for a category's id 7."""


def _keys(schema: Schema, table: str, values: dict[str, Any]) -> set[Key]:
    t = schema.table(table)
    refs = {c.name: str(c.references) for c in t.foreign_keys}
    out: set[Key] = set()
    for name, value in values.items():
        if name in PLUMBING or value is None or isinstance(value, bool):
            continue
        if isinstance(value, dict):  # a report's 'where': the same fields as the table's
            out |= _keys(schema, table, value)
            continue
        items = value if isinstance(value, list) else [value]
        for v in items:
            if isinstance(v, dict | list) or v is None or isinstance(v, bool):
                continue
            out.add((table, v) if name == "id" else (refs[name], v) if name in refs else ("v", v))
    return out


def _revealed(schema: Schema, table: str, result: Any) -> set[Key]:
    if result is None:
        return set()
    if isinstance(result, dict) and isinstance(result.get("items"), list):
        keys = set().union(*(_keys(schema, table, r) for r in result["items"])) if result["items"] else set()
        return keys | {("v", result["total"])}
    if isinstance(result, dict) and isinstance(result.get("groups"), list):
        group_by = result.get("group_by")
        out: set[Key] = set()
        for g in result["groups"]:
            out |= _keys(schema, table, {group_by: g["key"]}) if group_by else set()
            out |= {("v", g["count"]), ("v", g["value"])}
        return out
    return _keys(schema, table, result) if isinstance(result, dict) else set()


def _rows(result: Any) -> set[Any]:
    """Ids of the records (or group keys) a result shows."""
    if isinstance(result, dict) and isinstance(result.get("items"), list):
        return {r.get("id") for r in result["items"]}
    if isinstance(result, dict) and isinstance(result.get("groups"), list):
        return {("group", g.get("key")) for g in result["groups"]}
    if isinstance(result, dict) and "id" in result:
        return {result["id"]}
    return set()


def _in_text(key: Key, text: str) -> bool:
    """Whether the instruction itself gives this value: a record id only as "id 12" or "#12"."""
    kind, value = key
    if kind != "v":
        return re.search(rf"(?:\bid |#){value}\b", text) is not None
    if isinstance(value, int | float):
        return re.search(rf"(?<![\w.]){re.escape(str(value))}(?![\w]|\.\d)", text) is not None
    return str(value).casefold() in text.casefold()


def _answer_keys(task: Task) -> set[Key]:
    check = task.verifier.answer
    if check is None:
        return set()
    if check.kind == "refuse":
        refusals = [check.expected] if isinstance(check.expected, dict) else list(check.expected)
        out: set[Key] = {("v", r.get("value")) for r in refusals} - {("v", None)}
        return out | {("id", r.get("id")) for r in refusals}
    values = task.answer if isinstance(task.answer, list) else [task.answer]
    return {("v", v) for v in values if v is not None and not isinstance(v, bool)}


def _holds(keys: set[Key], wanted: set[Key]) -> set[Key]:
    """The wanted keys these keys hold (a refusal's record id matches an id of any table)."""
    ids = {v for k, v in keys if k != "v"}
    return {w for w in wanted if w in keys or (w[0] == "id" and w[1] in ids)}


def _run(task: Task, initial: bytes, executor: Executor, skip: int | None) -> tuple[list[Any], bool, Any]:
    """Results of each call (None where skipped), whether every call ran, and the verdict with the gold answer."""
    session = Session(initial, executor)
    try:
        results: list[Any] = []
        ran = True
        for i, call in enumerate(task.solution):
            if i == skip:
                results.append(None)
                continue
            try:
                results.append(session.call(call.tool, dict(call.arguments)))
            except ToolError:
                results.append(None)
                ran = False
        return results, ran, session.verify(task.verifier, task.answer)
    finally:
        session.close()


def shortcuts(task: Task, initial: bytes, executor: Executor) -> list[str]:
    """The calls of ``task``'s reference that could be left out (empty when there is no shortcut)."""
    results, ran, verdict = _run(task, initial, executor, None)
    if not ran or verdict.status != "passed":
        return [f"reference does not pass: {verdict.status}"]
    schema = executor.schema
    tables = [executor.spec(c.tool).table for c in task.solution]
    revealed = [_revealed(schema, t, r) for t, r in zip(tables, results, strict=True)]
    rows = [{(t, r) for r in _rows(res)} for t, res in zip(tables, results, strict=True)]
    answer = _answer_keys(task)
    # An answer combined from several reads (a sum, a count over a fan-out, a ranking of groups,
    # a comparison of two records)
    # needs every distinct query: each one's rows, or its count, enter the result.
    combined = any(k in task.knobs for k in ("fanout", "grouped", "aggregation", "subjects"))
    computed = bool(answer) and (combined or not any(_holds(r, answer) for r in revealed))
    for i, call in enumerate(task.solution):
        if isinstance(results[i], dict) and ("total" in results[i] or "groups" in results[i]):
            rows[i].add(("query", repr(sorted(dict(call.arguments).items()))))
    decides = task.knobs.get("decides")
    out = []
    for i, call in enumerate(task.solution):
        if executor.spec(call.tool).mode == "write":
            _, still_ran, dropped = _run(task, initial, executor, i)
            if still_ran and dropped.status == "passed":
                out.append(f"{i}:{call.tool} (write)")
            continue
        # The read that settles a branch, or (judgment families) each read that settles a staff rule.
        needed = i == decides or (isinstance(decides, list) and i in decides)
        for j in range(i + 1, len(task.solution)):
            later = task.solution[j]
            wanted = _keys(schema, tables[j], dict(later.arguments)) & revealed[i]
            elsewhere = set().union(*(revealed[k] for k in range(j) if k != i))
            if any(v not in elsewhere and not _in_text(v, task.instruction) for v in wanted):
                needed = True
            # A written value the instruction does not give ("add 20 to its amount") is computed from
            # the record as read: the read is needed when no other earlier call shows that record.
            if executor.spec(later.tool).mode == "write" and "id" in later.arguments:
                record = (tables[j], later.arguments["id"])
                computed_value = any(
                    k != "id" and not _in_text(("v", v), task.instruction) for k, v in later.arguments.items()
                )
                seen_elsewhere = any(record in rows[k] for k in range(j) if k != i)
                if computed_value and record in rows[i] and not seen_elsewhere:
                    needed = True
        others = set().union(*(revealed[k] for k in range(len(results)) if k != i))
        if _holds(revealed[i], answer) - _holds(others, answer):
            needed = True
        if computed and rows[i] - set().union(*(rows[k] for k in range(len(results)) if k != i)):
            needed = True
        if not needed:
            out.append(f"{i}:{call.tool} (read)")
    return out


def _generate(domain: str, seed: int, variant: bool) -> tuple[list[Task], bytes, Executor]:
    """A bundle's tasks as ``synthenv generate`` makes them (``--random`` picks the domain by the seed)."""
    inputs = Inputs(domain=pick_domain(seed) if variant else domain, seed=seed, variant=variant)
    with tempfile.TemporaryDirectory() as work:
        schema = schema_step(inputs)
        populated = populate_step(inputs, schema, Path(work))
        toolset = tools_step(schema)
        initial = serialise(populated.path)
    executor = Executor(schema, toolset, inputs.clock)
    taskset = generate_tasks(schema, toolset, initial, executor, seed, inputs.clock, inputs.tasks_per_family)
    return taskset.tasks, initial, executor


def _check(domain: str, seed: int, variant: bool) -> None:
    tasks, initial, executor = _generate(domain, seed, variant)
    high = [t for t in tasks if t.level >= 3]
    assert high
    found = {t.id: s for t in high if (s := shortcuts(t, initial, executor))}
    assert not found, found


def test_no_shortcut_at_levels_three_and_up() -> None:
    _check("online_store", 7, False)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("domain", "seed", "variant"),
    [
        ("clinic_appointments", 7, False),
        ("museum_collections", 1, False),
        ("hotel_booking", 3, False),
        ("random", 1, True),
        ("random", 2, True),
        ("random", 5, True),
    ],
)
def test_no_shortcut_over_domains_and_variants(domain: str, seed: int, variant: bool) -> None:
    _check(domain, seed, variant)
