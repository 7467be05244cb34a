"""Task proposals in the declarative task form, kept only when replay proves them.

The model sees the tools and a few rows of every table and proposes tasks as data: an
instruction, the reference calls, the answer (with a JSON pointer into a call's result
saying where it comes from) and the row changes the calls should make. Nothing of a
proposal is trusted:

* its shape is checked by a strict model (unknown keys refused, sizes bounded);
* the calls are replayed through the one executor on a fresh copy (unknown tools and
  bad arguments fail there, as they would for an agent);
* the expected answer is read from the replayed result at the pointer, never taken from
  the model, and must equal the answer the model claimed;
* a refusal must be backed by a grounding search that finds nothing under a record the
  calls had to find (the named record does not exist under a parent that does): the
  answer is the structured refusal naming that parent's id, which only looking reveals;
  without such a blocker, refusing blindly would be the task's answer;
* the instruction gets the refusal sentence every task ends with;
* the row changes come from the replay (:func:`pipeline.tasks.generate.finalise`) and
  must agree with the changes the model claimed, table by table;
* the task then passes the same proof as every generated task (:func:`pipeline.tasks.proof.prove`).

A proposal failing any of these is dropped and counted by reason.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.llm.client import Client, Messages
from pipeline.llm.parse import ReplyError, canonical, load_object
from pipeline.llm.sanitize import Change, clean_at
from pipeline.llm.usage import Ledger
from pipeline.runtime.answers import normalise_text
from pipeline.runtime.session import Session
from pipeline.runtime.task import Grounding, Task, ToolCall
from pipeline.runtime.verify import AnswerCheck
from pipeline.tasks.generate import finalise
from pipeline.tasks.model import Candidate
from pipeline.tasks.phrasing import refusal_form
from pipeline.tasks.proof import prove
from pipeline.tools.executor import Executor, ToolError, open_copy
from pipeline.tools.specs import Toolset
from pipeline.world.schema import Schema

STEP = "proposals"
FAMILY = "proposed"
SAMPLE_ROWS = 3
MAX_PROPOSALS = 50
_POINTER = re.compile(r"^(/[A-Za-z0-9_*]{1,64}){1,8}$")


class ProposedCall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(max_length=80)
    arguments: dict[str, Any] = {}


class ProposedAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["number", "text", "set", "refuse"]
    expected: Any = None
    call: int | None = Field(default=None, ge=0, le=19)
    """Index of the call whose result holds the answer (default: the last)."""
    pointer: str | None = Field(default=None, max_length=300)
    """JSON pointer into that result; ``*`` maps over a list (``/items/*/title``)."""


class ProposedChange(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(max_length=80)
    op: Literal["insert", "update", "delete"]
    key: dict[str, Any] = {}
    values: dict[str, Any] = {}


class Proposal(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    instruction: str = Field(min_length=10, max_length=2000)
    level: int = Field(default=0, ge=0, le=5)
    calls: list[ProposedCall] = Field(default_factory=list, max_length=20)
    answer: ProposedAnswer | None = None
    changes: list[ProposedChange] = Field(default_factory=list, max_length=50)
    grounding: list[Grounding] = Field(default_factory=list, max_length=10)


@dataclass
class ProposalResult:
    tasks: list[Task] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    cleaned: list[str] = field(default_factory=list)
    """What cleaning changed in the kept tasks' instructions (``proposal <id> instruction: what``)."""


def sample_rows(schema: Schema, initial: bytes) -> dict[str, list[dict[str, Any]]]:
    """The first rows of every table: what the model needs to name real records."""
    conn = open_copy(initial)
    try:
        out = {}
        for t in schema.tables:
            cur = conn.execute(f'SELECT * FROM "{t.name}" ORDER BY id LIMIT {SAMPLE_ROWS}')
            names = [d[0] for d in cur.description]
            out[t.name] = [dict(zip(names, row)) for row in cur.fetchall()]
        return out
    finally:
        conn.close()


FORM = {
    "instruction": "what a user asks, naming records by their values (never by id unless the user would)",
    "level": "difficulty 0-5",
    "calls": [{"tool": "<tool name>", "arguments": {}}],
    "answer": {
        "kind": "number | text | set | refuse",
        "expected": "the answer (a list for set; null for refuse: a refusal names the record its "
        "grounding search found nothing under, e.g. a customer with no such order)",
        "call": "index of the call whose result holds the answer (default: the last)",
        "pointer": "JSON pointer into that result, '*' over a list: /total, /items/0/title, /items/*/title",
    },
    "changes": [{"table": "<table>", "op": "insert | update | delete", "key": {}, "values": {}}],
    "grounding": [{"tool": "<list tool>", "arguments": {}, "total": "rows it matches in the initial state"}],
}


def messages(schema: Schema, toolset: Toolset, rows: dict[str, list[dict[str, Any]]], n: int) -> Messages:
    tools = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in toolset.tools]
    system = (
        "You write tasks for a database application that a user could ask for, each with its reference solution. "
        f'Answer with one JSON object {{"tasks": [...]}} of {n} tasks and nothing else; each task has this form:\n'
        f"{canonical(FORM)}\n"
        "A question needs an answer and no changes; a request that writes lists every row change its calls make "
        "('answer' null). The calls are exactly the tool calls that solve the task from the initial state. "
        "Everything you write is data, never code."
    )
    user = (
        f"Application: {schema.title}: {schema.description}\n"
        f"Tools:\n{canonical(tools)}\n"
        f"Some rows of each table:\n{canonical(rows)}"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def resolve(value: Any, pointer: str) -> Any:
    """The value at ``pointer`` (JSON pointer; ``*`` maps over a list and returns a list)."""
    if not _POINTER.match(pointer):
        raise ValueError(f"not a pointer this form allows: {pointer[:80]!r}")
    values, many = [value], False
    for token in pointer.split("/")[1:]:
        step = []
        for v in values:
            if token == "*":
                if not isinstance(v, list):
                    raise ValueError("'*' needs a list")
                step.extend(v)
                many = True
            elif isinstance(v, list) and token.isdigit() and int(token) < len(v):
                step.append(v[int(token)])
            elif isinstance(v, dict) and token in v:
                step.append(v[token])
            else:
                raise ValueError(f"nothing at {token!r}")
        values = step
    return values if many else values[0]


def _same(kind: str, claimed: Any, derived: Any) -> bool:
    if kind == "number":
        ok = isinstance(claimed, (int, float)) and not isinstance(claimed, bool)
        return ok and isinstance(derived, (int, float)) and math.isclose(claimed, derived, abs_tol=0.01)
    if kind == "set":
        if not isinstance(claimed, list) or not isinstance(derived, list):
            return False
        return sorted(normalise_text(str(v)) for v in claimed) == sorted(normalise_text(str(v)) for v in derived)
    return normalise_text(str(claimed)) == normalise_text(str(derived))


def _found_ids(results: list[Any]) -> set[int]:
    """Ids of the records the replayed calls returned (a row, or the rows of a page)."""
    out: set[int] = set()
    for r in results:
        rows = r.get("items", [r]) if isinstance(r, dict) else []
        out |= {row["id"] for row in rows if isinstance(row, dict) and isinstance(row.get("id"), int)}
    return out


def _missing_under(p: Proposal, results: list[Any], executor: Executor) -> int | None:
    """The id of the record a grounding search found nothing under: a reference among the search's
    filters to a record the calls found (so it exists) and the instruction does not give away."""
    found = _found_ids(results)
    for g in p.grounding:
        if g.total != 0:
            continue
        try:
            spec = executor.spec(g.tool)
        except ToolError:
            continue
        refs = {c.name for c in executor.schema.table(spec.table).foreign_keys} if spec.table else set()
        for name, value in g.arguments.items():
            is_id = name in refs and isinstance(value, int) and not isinstance(value, bool) and value in found
            if is_id and not re.search(rf"(?<!\d){value}(?!\d)", p.instruction):
                return int(value)
    return None


def _answer(p: Proposal, results: list[Any], executor: Executor) -> tuple[Any, AnswerCheck | None] | str:
    """The expected answer read from the replay, and its check; or why there is none."""
    a = p.answer
    if a is None:
        return None, None
    if a.kind == "refuse":
        # A refusal is right only where the state shows the request cannot be met (a search that finds
        # nothing) and names what only looking reveals (the record it found nothing under). Without that
        # evidence a blanket refusal would be the task's answer.
        if not any(g.total == 0 for g in p.grounding):
            return "refusal_unproven"
        parent = _missing_under(p, results, executor)
        if parent is None:
            return "refusal_without_blocker"
        expected = {"cannot": "missing", "id": parent, "value": None}
        return json.dumps(expected), AnswerCheck(kind="refuse", expected=expected)
    if a.pointer is None or not results:
        return "answer_unsourced"
    index = len(results) - 1 if a.call is None else a.call
    if index >= len(results):
        return "answer_unsourced"
    try:
        derived = resolve(results[index], a.pointer)
    except ValueError:
        return "answer_unsourced"
    if a.kind == "number" and (isinstance(derived, bool) or not isinstance(derived, (int, float))):
        return "answer_mismatch"
    if not _same(a.kind, a.expected, derived):
        return "answer_mismatch"
    if a.kind == "number":
        integral = float(derived).is_integer()
        value = int(derived) if integral else round(float(derived), 4)
        return value, AnswerCheck(kind="number", expected=value, tolerance=0.0 if integral else 0.01)
    if a.kind == "set":
        return derived, AnswerCheck(kind="set", expected=list(derived))
    return derived, AnswerCheck(kind="text", expected=derived)


def _changes_agree(claimed: Sequence[ProposedChange], task: Task) -> bool:
    """Same number of changes per (table, op), and every claimed value among the replay's."""
    derived = list(task.verifier.changes)
    if Counter((c.table, c.op) for c in claimed) != Counter((c.table, c.op) for c in derived):
        return False
    pool = list(derived)
    for c in claimed:
        match = next(
            (d for d in pool if (d.table, d.op) == (c.table, c.op) and _values_within(c.values, d.values)), None
        )
        if match is None:
            return False
        pool.remove(match)
    return True


def _values_within(claimed: dict[str, Any], derived: dict[str, Any]) -> bool:
    for name, value in claimed.items():
        if name not in derived:
            return False
        other = derived[name]
        if isinstance(value, (int, float)) and isinstance(other, (int, float)):
            if not math.isclose(value, other, abs_tol=0.01):
                return False
        elif normalise_text(str(value)) != normalise_text(str(other)):
            return False
    return True


def _replay(p: Proposal, initial: bytes, executor: Executor) -> list[Any] | str:
    session = Session(initial, executor)
    try:
        return [session.call(c.tool, dict(c.arguments)) for c in p.calls]
    except ToolError as exc:
        return f"reference_failed:{exc.code}"
    finally:
        session.close()


def check_proposal(p: Proposal, task_id: str, schema: Schema, initial: bytes, executor: Executor) -> Task | str:
    """The proven task, or the reason the proposal is dropped."""
    results = _replay(p, initial, executor)
    if isinstance(results, str):
        return results
    answer = _answer(p, results, executor)
    if isinstance(answer, str):
        return answer
    value, check = answer
    candidate = Candidate(
        family=FAMILY,
        level=p.level,
        knobs={"source": "llm"},
        instruction=f"{p.instruction} {refusal_form(random.Random(task_id))}",
        solution=[ToolCall(tool=c.tool, arguments=dict(c.arguments)) for c in p.calls],
        answer=value,
        answer_check=check,
        grounding=list(p.grounding),
    )
    task = finalise(candidate, task_id, schema, initial, executor)
    if isinstance(task, str):
        return task
    if not _changes_agree(p.changes, task):
        return "changes_mismatch"
    reason, _ = prove(task, initial, executor)
    return task if reason is None else reason


def propose_tasks(
    n: int,
    existing: Sequence[Task],
    schema: Schema,
    toolset: Toolset,
    initial: bytes,
    executor: Executor,
    client: Client,
    ledger: Ledger,
) -> ProposalResult:
    """Ask for ``n`` proposals; keep the proven ones as tasks ``proposed-000``, ``proposed-001``…"""
    if not 1 <= n <= MAX_PROPOSALS:
        raise ValueError(f"proposals must be in 1..{MAX_PROPOSALS}, got {n}")
    result = ProposalResult()
    reply = client.complete(STEP, messages(schema, toolset, sample_rows(schema, initial), n), ledger)
    try:
        items = load_object(reply.text).get("tasks")
    except ReplyError:
        result.dropped["unreadable_reply"] += n
        return result
    if not isinstance(items, list):
        result.dropped["no_tasks_list"] += n
        return result
    seen = {normalise_text(t.instruction) for t in existing}
    for item in items[:n]:
        task_id = f"{FAMILY}-{len(result.tasks):03d}"
        changes: list[Change] = []
        if isinstance(item, dict) and isinstance(item.get("instruction"), str):
            item = {**item, "instruction": clean_at(item["instruction"], f"proposal {task_id} instruction", changes)}
        try:
            proposal = Proposal.model_validate(item)
        except ValidationError:
            result.dropped["invalid_proposal"] += 1
            continue
        if normalise_text(proposal.instruction) in seen:
            result.dropped["duplicate_instruction"] += 1
            continue
        outcome = check_proposal(proposal, task_id, schema, initial, executor)
        if isinstance(outcome, str):
            result.dropped[outcome] += 1
            continue
        seen.add(normalise_text(proposal.instruction))
        result.tasks.append(outcome)
        result.cleaned += [str(c) for c in changes]
    return result
