"""Step 4 driver: propose candidates per family and level, keep the proven ones.

For each family, candidate ``i`` is asked at level ``i mod levels``, with a seed derived
by a stable hash of (bundle seed, family, index, attempt), so adding a family never
shifts another's tasks. A candidate that a family cannot build, that repeats an
instruction, or that fails its proof is dropped with its reason counted; the slot is
then retried with the next attempt seed, a bounded number of times.
"""

from __future__ import annotations

import random

from pipeline.populate import column_seed
from pipeline.runtime.executor import Executor, ToolError
from pipeline.runtime.session import Session, open_copy
from pipeline.schema import Schema
from pipeline.taskgen.context import Context
from pipeline.taskgen.families import FAMILIES
from pipeline.taskgen.model import Candidate, Skip, Task, TaskSet
from pipeline.taskgen.phrasing import Phrasebook
from pipeline.taskgen.proof import expected_changes, prove, replay
from pipeline.tools import Toolset
from pipeline.verify import Verifier, normalise_text

ATTEMPTS = 3


def finalise(c: Candidate, task_id: str, schema: Schema, initial: bytes, executor: Executor) -> Task | str:
    """Replay the reference once to learn its diff; build the verifier from it."""
    session = Session(initial, executor)
    try:
        replay(session, c.solution)
        changes = expected_changes(session, schema, initial)
    except ToolError as exc:
        return f"reference_failed:{exc.code}"
    finally:
        session.close()
    if c.answer_check is None and not changes:
        return "no_effect"
    order = [t.name for t in schema.tables]
    watched = set(c.watch) | {ch.table for ch in changes}
    verifier = Verifier(answer=c.answer_check, changes=changes, watch=tuple(t for t in order if t in watched))
    knobs = {**c.knobs, "reference_calls": len(c.solution),
             "writes": sum(1 for call in c.solution if executor.spec(call.tool).mode == "write")}
    return Task(id=task_id, family=c.family, level=c.level, knobs=dict(sorted(knobs.items())),
                instruction=c.instruction, solution=tuple(c.solution), answer=c.answer, verifier=verifier,
                grounding=tuple(c.grounding))


def generate_tasks(
    schema: Schema, toolset: Toolset, initial: bytes, executor: Executor, seed: int, clock: str,
    per_family: int = 6, families: tuple[str, ...] | None = None,
) -> TaskSet:
    """``per_family`` proven tasks per family (fewer when candidates keep failing)."""
    if per_family < 0:
        raise ValueError(f"per_family must be >= 0, got {per_family}")
    unknown = sorted(set(families or ()) - set(FAMILIES))
    if unknown:
        raise ValueError(f"unknown task families {unknown}; known: {sorted(FAMILIES)}")
    conn = open_copy(initial)
    conn.execute("PRAGMA query_only = ON")
    ctx = Context(schema, toolset, executor, conn, clock, seed, Phrasebook.load())
    out = TaskSet(tasks=[])
    seen: set[str] = set()
    try:
        for name, family in FAMILIES.items():
            if families is not None and name not in families:
                continue
            for i in range(per_family):
                level = i % len(family.levels)
                for attempt in range(ATTEMPTS):
                    out.candidates += 1
                    reason = _attempt(ctx, out, seen, name, family.generate, i, level, attempt, initial, executor)
                    if reason is None:
                        break
                    out.dropped[reason] += 1
    finally:
        conn.close()
    return out


def _attempt(ctx: Context, out: TaskSet, seen: set[str], name: str, make, i: int, level: int, attempt: int,
             initial: bytes, executor: Executor) -> str | None:
    rng = random.Random(column_seed(ctx.seed, "task", f"{name}/{i}/{attempt}"))
    try:
        candidate = make(ctx, rng, level)
    except Skip as skip:
        return skip.reason
    key = normalise_text(candidate.instruction)
    if key in seen:
        return "duplicate_instruction"
    result = finalise(candidate, f"{name}-{i:03d}", ctx.schema, initial, executor)
    if isinstance(result, str):
        return result
    reason = prove(result, initial, executor)
    if reason is not None:
        return reason
    seen.add(key)
    out.tasks.append(result)
    return None
