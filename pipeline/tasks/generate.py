"""Step 4 driver: propose candidates per family and level, keep the proven ones.

For each family, candidate ``i`` is asked at level ``i mod levels``, with a seed derived
by a stable hash of (bundle seed, family, index, attempt), so adding a family never
shifts another's tasks. A candidate that a family cannot build, whose reference is
longer than the step budgets allow (:data:`~pipeline.tasks.model.MAX_REFERENCE_CALLS`), that repeats an
instruction, that reads unnaturally (``unnatural:<rule>``, :mod:`pipeline.tasks.naturalness`),
or that fails its proof (the exploit library included) is dropped with its reason counted;
the slot is then retried with the next attempt seed, a bounded number
of times.

Every instruction ends with the refusal form (``common.refusal_form``): the one way to
say a request cannot be done, naming the blocker. Feasible and infeasible tasks carry
the same sentence, so it tells an agent nothing about which one it faces.
"""

from __future__ import annotations

import random
import sqlite3
from contextlib import ExitStack, closing
from dataclasses import dataclass, field

from pipeline.data.columns import column_seed
from pipeline.policy.check import blocking_rule, breaking_call, forbidden_statuses
from pipeline.policy.derive import derive_policy
from pipeline.policy.model import Policy
from pipeline.progress import tick
from pipeline.runtime.answers import normalise_text
from pipeline.runtime.task import Task
from pipeline.runtime.verify import RowChange, Verifier
from pipeline.tasks.consistency import contradicts, remember
from pipeline.tasks.context import Context
from pipeline.tasks.families import FAMILIES, Family
from pipeline.tasks.model import MAX_REFERENCE_CALLS, Candidate, Skip, TaskSet
from pipeline.tasks.naturalness import World, violations
from pipeline.tasks.phrasing import Phrasebook, refusal_form
from pipeline.tasks.proof import expected_changes, prove, replay_key
from pipeline.tasks.replay import Replayer, replay_executor
from pipeline.tools.executor import Executor, ToolError, open_copy, open_reading
from pipeline.tools.specs import Toolset
from pipeline.world.schema import Schema

ATTEMPTS = 3


def finalise(
    c: Candidate, task_id: str, schema: Schema, initial: bytes, executor: Executor, replayer: Replayer | None = None
) -> Task | str:
    """Replay the reference once to learn its diff; build the verifier from it."""
    rep = Replayer(initial, executor) if replayer is None else replayer
    try:
        rep.enter("strict:" + replay_key(c.solution), c.solution, required=None)
        changes, idle = expected_changes(rep.conn, rep.session.touched(), schema, rep.reference)
    except ToolError as exc:
        return f"reference_failed:{exc.code}"
    finally:
        rep.reset()
        if replayer is None:
            rep.close()
    if c.answer_check is None and not changes:
        return "no_effect"
    if idle:
        return "reference_rewrites_rows"
    verifier = Verifier(answer=c.answer_check, changes=changes)
    knobs = {
        "disambiguations": 0,
        "recoveries": 0,
        **c.knobs,
        "reference_calls": len(c.solution),
        "writes": sum(1 for call in c.solution if executor.spec(call.tool).mode == "write"),
        "entity_types": len({executor.spec(call.tool).table for call in c.solution}),
        "extra_pages": sum(1 for call in c.solution if call.arguments.get("offset")),
    }
    return Task(
        id=task_id,
        family=c.family,
        level=c.level,
        knobs=dict(sorted(knobs.items())),
        instruction=c.instruction,
        solution=tuple(c.solution),
        answer=c.answer,
        verifier=verifier,
        grounding=tuple(c.grounding),
    )


def goal_stamps(ctx: Context, task: Task) -> Task:
    """A task that names a status to reach, not the operations to get there, accepts every legal
    path: on each record whose status it changes, the time columns the table's operations stamp
    are free to hold the stamp or keep their value (approve then pay then close stamps a decision
    time that deny then close does not). An operation the policy forbids on that record is no
    legal path, so its stamp stays judged."""
    changes = []
    for change in task.verifier.changes:
        table = ctx.schema.table(change.table)
        ops = [o for o in ctx.schema.operations if o.table == table.name and o.sets_time]
        if change.op != "update" or not ops or not any(o.column in change.values for o in ops):
            changes.append(change)
            continue
        row_id = _row_id(ctx, change)
        stamps = {
            str(o.sets_time): ctx.clock[:10] if table.column(str(o.sets_time)).semantic == "date" else ctx.clock
            for o in ops
            if blocking_rule(ctx.policy, ctx.conn, table.name, o.to, row_id, owners=ctx.owners) is None
        }
        changes.append(change.model_copy(update={"stamps": stamps}) if stamps else change)
    verifier = task.verifier.model_copy(update={"changes": tuple(changes)})
    return task.model_copy(update={"verifier": verifier})


def policy_detours(ctx: Context, task: Task) -> Task:
    """Every record whose status a task changes must not pass through a status the policy forbids
    it to reach, on whatever path the agent takes: the verifier's ``avoid`` (read against the
    session's status history). The reference never does (``policy_forbids_reference``)."""
    changes, moved = [], False
    for change in task.verifier.changes:
        table = ctx.schema.table(change.table)
        statuses = {c.name for c in ctx.schema.status_columns(table)}
        touched = [c for c in sorted(statuses) if c in change.values]
        if change.op != "update" or not touched:
            changes.append(change)
            continue
        row_id = _row_id(ctx, change)
        avoid = {}
        for column in touched:
            end = str(change.values[column])
            found = forbidden_statuses(ctx.policy, ctx.conn, table.name, table.column(column).values or (), row_id, end)
            if found:
                avoid[column] = found
        moved |= bool(avoid)
        changes.append(change.model_copy(update={"avoid": avoid}) if avoid else change)
    if not moved:
        return task
    return task.model_copy(update={"verifier": task.verifier.model_copy(update={"changes": tuple(changes)})})


def _row_id(ctx: Context, change: RowChange) -> int:
    row = change.row(ctx.conn)
    if row is None:
        raise ValueError(f"no row of {change.table} has {change.key}")
    return int(row["id"])


def generate_tasks(
    schema: Schema,
    toolset: Toolset,
    initial: bytes,
    executor: Executor,
    seed: int,
    clock: str,
    per_family: int = 6,
    families: tuple[str, ...] | None = None,
    policy: Policy | None = None,
) -> TaskSet:
    """``per_family`` proven tasks per family (fewer when candidates keep failing).

    Tasks are generated under the world's ``policy`` (derived from the state when not given):
    no reference may do what a staff rule forbids, and the judgment families build on it.
    """
    if per_family < 0:
        raise ValueError(f"per_family must be >= 0, got {per_family}")
    unknown = sorted(set(families or ()) - set(FAMILIES))
    if unknown:
        raise ValueError(f"unknown task families {unknown}; known: {sorted(FAMILIES)}")
    executor = replay_executor(executor)
    # Every connection is closed however this ends: deriving the policy or an attempt may raise.
    with ExitStack() as stack:
        # Read-only: a large state is read in place, not copied.
        conn = stack.enter_context(closing(open_reading(initial)))
        scratch = stack.enter_context(closing(open_copy(initial)))
        replayer = stack.enter_context(closing(Replayer(initial, executor, reference=conn)))
        if policy is None:
            policy = derive_policy(schema, conn, clock, seed)
        ctx = Context(schema, toolset, executor, conn, clock, seed, Phrasebook.load(), policy)
        build = _Build(ctx, initial, scratch, replayer, TaskSet(tasks=[], policy=policy))
        out = build.out
        chosen = [(n, f) for n, f in FAMILIES.items() if families is None or n in families]
        total, done = len(chosen) * per_family, 0
        for name, family in chosen:
            for i in range(per_family):
                level = family.level_of(i)
                # One tick per task slot (its proof and the exploit library included): the
                # slow part of a large world, where the display shows family and level.
                tick("tasks", done, total, f"{name} L{level}")
                done += 1
                slot = _Slot(name, family, i, level)
                for attempt in range(ATTEMPTS):
                    out.candidates += 1
                    reason = _attempt(build, slot, attempt)
                    if reason is None:
                        break
                    out.dropped[reason] += 1
        tick("tasks", total, total)
    return out


@dataclass
class _Build:
    """What every attempt of one :func:`generate_tasks` run shares: the state it reads, the
    proof machinery, and what it has kept so far (tasks, exploit counts, instructions seen)."""

    ctx: Context
    initial: bytes
    scratch: sqlite3.Connection
    replayer: Replayer
    out: TaskSet
    seen: set[str] = field(default_factory=set)
    """Normalised instructions already shipped: a repeat is dropped, whatever its family."""
    reached: set[tuple[str, int, str]] = field(default_factory=set)
    refused: set[tuple[str, int, str]] = field(default_factory=set)
    """(table, record, status) the kept tasks expect reached or refused: a task expecting the opposite
    of a kept one is dropped (``contradicts_task``), so one request on one record has one right outcome."""


@dataclass(frozen=True)
class _Slot:
    """One task slot: candidate ``index`` of ``family``, asked at ``level`` (fixes its id and seeds)."""

    name: str
    family: Family
    index: int
    level: int


def _attempt(build: _Build, slot: _Slot, attempt: int) -> str | None:
    """Try one seed for ``slot``: None when a proven task was kept, else the reason it was dropped."""
    ctx, out = build.ctx, build.out
    rng = random.Random(column_seed(ctx.seed, "task", f"{slot.name}/{slot.index}/{attempt}"))
    try:
        candidate = slot.family.generate(ctx, rng, slot.level)
    except Skip as skip:
        return skip.reason
    if len(candidate.solution) > MAX_REFERENCE_CALLS:
        return "reference_too_long"
    key = normalise_text(candidate.instruction)
    if key in build.seen:
        return "duplicate_instruction"
    if breaking_call(ctx.policy, ctx.specs, ctx.conn, candidate.solution, ctx.owners) is not None:
        return "policy_forbids_reference"
    world: World = ctx.memo.setdefault(("naturalness", "world"), World(ctx.schema, ctx.executor, ctx.conn))
    unnatural = violations(candidate.instruction, candidate.solution, slot.name, candidate.knobs, world, ctx.phrases)
    if unnatural:
        return f"unnatural:{unnatural[0].rule}"
    candidate.instruction += " " + refusal_form(rng, ctx.phrases)
    task_id = f"{slot.name}-{slot.index:03d}"
    result = finalise(candidate, task_id, ctx.schema, build.initial, ctx.executor, build.replayer)
    if isinstance(result, str):
        return result
    if result.knobs.get("recoveries"):
        result = goal_stamps(ctx, result)
    result = policy_detours(ctx, result)
    if contradicts(result, build.reached, build.refused, ctx.specs):
        return "contradicts_task"
    reason, run = prove(result, build.initial, ctx.executor, build.scratch, build.replayer)
    if reason is not None:
        return reason
    if run is not None:
        out.exploits.add(run)
    build.seen.add(key)
    remember(result, build.reached, build.refused, ctx.specs)
    out.tasks.append(result)
    return None
