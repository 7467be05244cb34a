"""The recipe: schema → populate → tools → tasks → package, written once.

Every entry runs :func:`run_recipe`: ``generate`` with and without Prefect, ``batch``, ``scenario``,
``scenario batch`` and the curriculum's regeneration. They differ only in what they pass:

* the :class:`Steps`: the plain functions of :mod:`pipeline.jobs.steps` (``steps.PLAIN``), or a
  flow's Prefect tasks wrapping those same functions (caching, retries, names in the UI);
* where populate writes (a directory, or a batch's durable ``Workdir`` whose token keys the cache),
  asked for only once the schema step has passed, so a world that cannot be built leaves nothing;
* an optional :class:`Refine` between tasks and package (a scenario's LLM passes), whose lineage
  the manifest records.

Each step is timed and reported to the active :data:`reporter` (the CLI's progress display).
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, Protocol, TypeVar, overload

from pipeline.bundle.format import Bundle
from pipeline.data.populate import PopulateResult
from pipeline.tasks.model import TaskSet
from pipeline.tools.specs import Toolset
from pipeline.world.schema import Schema

if TYPE_CHECKING:  # steps.py builds on this module; the inputs are only named here
    from pipeline.jobs.steps import Inputs

P = ParamSpec("P")
T = TypeVar("T")
W = TypeVar("W")
"""Where populate writes: a ``Path``, or a batch's ``Workdir`` (its token is part of the cache key)."""

Reporter = Callable[[str, "float | None"], None]
"""Called with (step, None) when a step starts and (step, seconds) when it ends."""

reporter: ContextVar[Reporter | None] = ContextVar("synthenv_step_reporter", default=None)


BUILD_GC_THRESHOLD = (100_000, 20, 10)
"""The cyclic collector's thresholds while a world is built. A build keeps millions of objects for a
whole step (the held rows of every table, the values the state is written from), and at Python's
default (700, 10, 10) the collector walked them again and again: at a million rows of online_store
it spent 8.7 of 122 CPU s, ten full passes of about 0.7 s each. At these thresholds the same build
took 101 CPU s (no full pass) with the same peak RSS (1.99 GB against 2.01 GB) and the same bundle."""


class _Pacing:
    """How many builds run under :func:`build_collection` now, and the thresholds the first found."""

    lock = threading.Lock()
    builds = 0
    found: tuple[int, ...] = ()


@contextmanager
def build_collection() -> Iterator[None]:
    """Collect young objects less often while a build runs (see :data:`BUILD_GC_THRESHOLD`); the
    thresholds found before the first build come back when the last one ends. The thresholds are
    the process's, so builds in several threads count in and out together: each restoring what it
    found would leave the pacing on when two of them end in the other order than they began."""
    with _Pacing.lock:
        if _Pacing.builds == 0:
            _Pacing.found = gc.get_threshold()
            gc.set_threshold(*BUILD_GC_THRESHOLD)
        _Pacing.builds += 1
    try:
        yield
    finally:
        with _Pacing.lock:
            _Pacing.builds -= 1
            if _Pacing.builds == 0:
                gc.set_threshold(*_Pacing.found)


@dataclass
class Timings:
    """Times each step and tells the active reporter (the CLI's progress display)."""

    seconds: dict[str, float] = field(default_factory=dict)

    def run(self, name: str, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        report = reporter.get()
        if report is not None:
            report(name, None)
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            self.seconds[name] = round(time.perf_counter() - start, 3)
            if report is not None:
                report(name, self.seconds[name])


@dataclass(frozen=True)
class Steps(Generic[W]):
    """One callable per step, each taking the products of the ones before.

    ``steps.PLAIN`` holds the plain functions; a flow passes the same functions as Prefect tasks
    (``Steps(schema=task(schema_step, ...), ...)``), so the chain itself is never rewritten.
    """

    schema: Callable[[Inputs], Schema]
    populate: Callable[[Inputs, Schema, W], PopulateResult]
    """Writes the state database under the directory ``W`` names."""
    tools: Callable[[Schema, Path | None, str], Toolset]
    """(schema, state database, frozen clock): the tools, probed on the state."""
    tasks: Callable[[Inputs, Schema, Toolset, Path], TaskSet]
    """(inputs, schema, tools, state database): the proven tasks."""
    package: Callable[[Inputs, Path, Schema, PopulateResult, Toolset, TaskSet, dict[str, Any] | None], Bundle]
    """(inputs, out, …, tasks, LLM lineage or None): the bundle written under ``out``."""


class Refined(Protocol):
    """What a refine step returns: at least the task set that is packaged."""

    @property
    def taskset(self) -> TaskSet: ...


R = TypeVar("R", bound=Refined)


@dataclass(frozen=True)
class Refine(Generic[R]):
    """A step between tasks and package, timed as ``refine`` (a scenario's paraphrases and proposals)."""

    step: Callable[[Inputs, Schema, Toolset, Path, TaskSet], R]
    """(inputs, schema, tools, state database, tasks) → a product carrying the task set to package."""
    lineage: Callable[[R], dict[str, Any]]
    """What the manifest's ``lineage.llm`` records of that product."""


@dataclass(frozen=True)
class Result(Generic[R]):
    """The bundle, each step's seconds and, when a refine step ran, its product."""

    bundle: Bundle
    seconds: dict[str, float]
    refined: R | None = None


@overload
def run_recipe(
    steps: Steps[W],
    inputs: Inputs,
    out: Path,
    workdir: Callable[[], W],
    *,
    refine: None = None,
    timings: Timings | None = None,
) -> Result[Refined]: ...


@overload
def run_recipe(
    steps: Steps[W],
    inputs: Inputs,
    out: Path,
    workdir: Callable[[], W],
    *,
    refine: Refine[R],
    timings: Timings | None = None,
) -> Result[R]: ...


def run_recipe(
    steps: Steps[W],
    inputs: Inputs,
    out: Path,
    workdir: Callable[[], W],
    *,
    refine: Refine[R] | None = None,
    timings: Timings | None = None,
) -> Result[R]:
    """Run the five steps (and ``refine`` before package) and write the bundle under ``out``.

    ``workdir`` is called after the schema step, so an entry that prepares a directory (a batch's
    resumable work directory) does so only for a world that exists. ``timings`` lets an entry time
    its own steps (design, publish) in the same record. A step's exception propagates unchanged.
    """
    t = timings if timings is not None else Timings()
    with build_collection():
        schema = t.run("schema", steps.schema, inputs)
        populated = t.run("populate", steps.populate, inputs, schema, workdir())
        toolset = t.run("tools", steps.tools, schema, populated.path, inputs.clock)
        taskset = t.run("tasks", steps.tasks, inputs, schema, toolset, populated.path)
        refined: R | None = None
        llm: dict[str, Any] | None = None
        if refine is not None:
            refined = t.run("refine", refine.step, inputs, schema, toolset, populated.path, taskset)
            taskset, llm = refined.taskset, refine.lineage(refined)
        bundle = t.run("package", steps.package, inputs, out, schema, populated, toolset, taskset, llm)
    return Result(bundle, t.seconds, refined)
