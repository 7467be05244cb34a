"""A batch of tool-use environments: plan it, build and publish each one, summarise.

Plain functions, so the batch logic is tested and usable without an orchestrator; each
environment runs the recipe (:func:`pipeline.jobs.recipe.run_recipe`) with :data:`STEPS`, then
publishes. The ``generate_batch`` flow (``flows/batch.py``) passes Prefect tasks in place of
the plain steps and the publish step and gets caching, retries and concurrency from them.

Resumability rests on three facts:

* every environment builds in its own deterministic work directory
  (``<work>/<name>-<inputs key>/``), so a cached step result that names a file names a
  file that still exists;
* that directory carries a random token which is part of the cache key of the step that
  writes files (populate): once the directory is deleted (after publishing), the old
  cached result can never be hit again and point at a file that is gone;
* before building, the registry is asked whether it already holds the bundle for the
  same inputs and code version (the key is recorded in the index entry's ``run``), and
  then the environment is skipped. A re-run after an interruption therefore redoes
  only what is missing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pipeline import __version__
from pipeline.data.populate import PopulateResult
from pipeline.jobs.recipe import Steps, Timings, run_recipe
from pipeline.jobs.steps import (
    Inputs,
    package_step,
    populate_step,
    schema_step,
    summary,
    tasks_step,
    tools_step,
)
from pipeline.progress import tick
from pipeline.world.schema import Schema

MAX_ENVIRONMENTS = 10_000
WORK_DIR = ".work"
TOKEN_FILE = ".token"
SUMMARY_FILE = "batch-summary.json"
STATUSES = ("published", "unchanged", "skipped", "failed")
"""published: built and newly published; unchanged: built, the registry already held the same bytes;
skipped: the registry already held it for the same inputs, nothing was built; failed: see ``error``."""


def code_version() -> str:
    """What a cached step result depends on besides its inputs and its own source."""
    import generators

    return f"synthenv {__version__}; generators {generators.GENERATOR_VERSION}"


def inputs_key(inputs: Inputs) -> str:
    """A stable hash of everything an environment is a function of: its inputs and the code version."""
    payload = json.dumps({"inputs": asdict(inputs), "code": code_version()}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


def plan_batch(
    n: int,
    domains: Sequence[str] | None = None,
    seed: int = 0,
    *,
    variant: bool = False,
    scale: float = 1.0,
    tasks_per_family: int = 6,
    rows: int | None = None,
    version: str = "1.0.0",
) -> list[Inputs]:
    """``n`` environments with seeds ``seed, seed+1, …``.

    Given ``domains``, environment ``i`` takes ``domains[i % len(domains)]``; otherwise
    each seed picks its domain the way ``synthenv generate --random`` does. Domain names
    are not checked here on purpose: an unknown one fails that environment alone.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_ENVIRONMENTS:
        raise ValueError(f"n must be an integer in 1..{MAX_ENVIRONMENTS}, got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if domains is not None:
        if isinstance(domains, str):
            raise ValueError("domains must be a list of names, not one string")
        domains = [d.strip() for d in domains]
        if not domains or not all(domains):
            raise ValueError("domains must be a non-empty list of non-empty names")
    plan = []
    for i in range(n):
        s = seed + i
        if domains is not None:
            domain = domains[i % len(domains)]
        else:
            from pipeline.world.variants import pick_domain

            domain = pick_domain(s)
        plan.append(
            Inputs(
                domain=domain,
                seed=s,
                scale=scale,
                tasks_per_family=tasks_per_family,
                rows=rows,
                variant=variant,
                version=version,
            )
        )
    return plan


def default_work_root(registry: str | None) -> Path:
    """``<registry>/.work`` for a local registry, else ``artifacts/.work`` on this machine.

    On a cluster the work root must be a directory every worker sees (a shared mount):
    the steps of one environment run in one task, but a resumed run may land elsewhere.
    """
    from pipeline.registry.registry import DEFAULT_REGISTRY, default_registry

    url = registry if registry is not None else default_registry()
    parts = urlsplit(url)
    if parts.scheme in ("", "file"):
        return Path(parts.path if parts.scheme == "file" else url) / WORK_DIR
    return Path(DEFAULT_REGISTRY) / WORK_DIR


@dataclass(frozen=True)
class Workdir:
    """An environment's durable work directory and the token that identifies this incarnation of it."""

    path: str
    token: str


def workdir_path(root: Path, inputs: Inputs) -> Path:
    """``<root>/<name>-<key12>/``: one directory per distinct inputs, so equal paths mean equal files."""
    return Path(root) / f"{inputs.name}-{inputs_key(inputs)[:12]}"


def prepare_workdir(root: Path, inputs: Inputs) -> Workdir:
    """Create (or reuse) the work directory and its token."""
    path = workdir_path(root, inputs)
    path.mkdir(parents=True, exist_ok=True)
    token_file = path / TOKEN_FILE
    if not token_file.is_file():
        scratch = path / f"{TOKEN_FILE}.{uuid.uuid4().hex}"
        scratch.write_text(uuid.uuid4().hex, encoding="utf-8")
        scratch.replace(token_file)
    return Workdir(str(path), token_file.read_text(encoding="utf-8").strip())


def populate_in(inputs: Inputs, schema: Schema, workdir: Workdir) -> PopulateResult:
    """The populate step writing into ``workdir``; the token makes it part of the cache key."""
    return populate_step(inputs, schema, Path(workdir.path))


def publish_bundle(path: Path, registry: str | None, run: Mapping[str, Any]) -> dict[str, Any]:
    """Publish one built bundle; the same bytes again are a no-op (``created`` false)."""
    from pipeline.registry.registry import publish

    result = publish(path, registry=registry, run=dict(run))
    return {"ref": result.entry.ref, "digest": result.entry.digest, "created": result.created}


def is_transient(exc: BaseException) -> bool:
    """Worth a retry: I/O and a busy database. Bad input and refusals fail the same way every time."""
    return isinstance(exc, (OSError, sqlite3.OperationalError))


STEPS: Steps[Workdir] = Steps(
    schema=schema_step, populate=populate_in, tools=tools_step, tasks=tasks_step, package=package_step
)
"""The recipe's plain steps, populate writing into the environment's durable work directory."""

Publish = Callable[[Path, str | None, Mapping[str, Any]], dict[str, Any]]
"""(bundle directory, registry, run record) → ``ref``, ``digest``, ``created``; :func:`publish_bundle`
or the flow's task around it."""


@dataclass
class EnvResult:
    """One environment's line in the batch summary."""

    name: str
    domain: str
    seed: int
    status: str
    ref: str | None = None
    digest: str | None = None
    tasks: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _published(registry: str | None, inputs: Inputs, key: str) -> EnvResult | None:
    """The registry's entry for these inputs, if a batch already published it."""
    from pipeline.registry.registry import Registry, RegistryError

    reg = Registry(registry)
    try:
        entry = reg.resolve(f"{inputs.name}@{inputs.version}")
    except RegistryError:
        return None
    if entry.run.get("inputs_key") != key:
        return None  # built anyway: publishing decides (same bytes: no-op; other bytes: refused)
    manifest, _ = reg.manifest(entry)
    counts = manifest.as_tool_use().counts
    return EnvResult(
        inputs.name, inputs.domain, inputs.seed, "skipped", entry.ref, entry.digest, counts.tasks, dict(counts.dropped)
    )


def all_published(plan: Sequence[Inputs], registry: str | None) -> bool:
    """Whether the registry already holds every environment of ``plan`` (a re-run would only skip)."""
    try:
        return all(_published(registry, inputs, inputs_key(inputs)) is not None for inputs in plan)
    except Exception:  # an unreadable registry is the build's to report, not this shortcut's
        return False


def build_environment(
    inputs: Inputs,
    work_root: Path,
    registry: str | None,
    steps: Steps[Workdir] = STEPS,
    run: Mapping[str, Any] | None = None,
    publish: Publish = publish_bundle,
) -> EnvResult:
    """Build, prove, package and publish one environment unless the registry already holds it.

    Raises on failure (the caller isolates it); the work directory is kept then, so a
    re-run resumes from the cached steps, and removed once the bundle is published.
    """
    key = inputs_key(inputs)
    done = _published(registry, inputs, key)
    workdir = workdir_path(Path(work_root), inputs)
    if done is not None:
        shutil.rmtree(workdir, ignore_errors=True)
        return done
    t = Timings()
    result = run_recipe(steps, inputs, workdir / "out", partial(prepare_workdir, Path(work_root), inputs), timings=t)
    published = t.run("publish", publish, result.bundle.path, registry, {**(run or {}), "inputs_key": key})
    s = summary(result.bundle, t.seconds)
    shutil.rmtree(workdir, ignore_errors=True)
    return EnvResult(
        inputs.name,
        inputs.domain,
        inputs.seed,
        "published" if published["created"] else "unchanged",
        published["ref"],
        published["digest"],
        s["tasks"],
        dict(s["dropped"]),
        t.seconds,
    )


class EnvironmentFailed(RuntimeError):
    """An environment's failure as plain text.

    Raised in place of the original exception where the failure crosses a process
    boundary (a Dask worker): any exception pickles as text, not every one unpickles.
    """


def describe(exc: BaseException) -> str:
    """Type and message, no traceback: what the summary shows."""
    if isinstance(exc, EnvironmentFailed):
        return str(exc)
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def failed(inputs: Inputs, exc: BaseException) -> EnvResult:
    """The summary line of an environment that raised."""
    return EnvResult(inputs.name, inputs.domain, inputs.seed, "failed", error=describe(exc))


def run_batch(
    plan: Sequence[Inputs],
    work_root: Path,
    registry: str | None,
    steps: Steps[Workdir] = STEPS,
    run: Mapping[str, Any] | None = None,
) -> list[EnvResult]:
    """Every environment in turn, each failure isolated; the orchestrator-free path."""
    results = []
    for i, inputs in enumerate(plan):
        tick("batch", i, len(plan), inputs.name)
        try:
            results.append(build_environment(inputs, work_root, registry, steps, run))
        except Exception as exc:  # isolation is the point: one environment never stops the others
            results.append(failed(inputs, exc))
    tick("batch", len(plan), len(plan))
    return results


def summarise(results: Sequence[EnvResult], seconds: float, registry: str | None = None) -> dict[str, Any]:
    """Counts, tasks, dropped tasks by reason, timings and digests; what ``--json`` prints."""
    counts = Counter(r.status for r in results)
    dropped: Counter[str] = Counter()
    step_seconds: Counter[str] = Counter()
    for r in results:
        dropped.update(r.dropped)
        step_seconds.update(r.seconds)
    built = counts["published"] + counts["unchanged"]
    return {
        "environments": len(results),
        "counts": {status: counts[status] for status in STATUSES},
        "ok": counts["failed"] == 0,
        "tasks": sum(r.tasks for r in results),
        "dropped": dict(sorted(dropped.items())),
        "seconds": round(seconds, 3),
        "step_seconds": {k: round(v, 3) for k, v in step_seconds.items()},
        "built_per_minute": round(built * 60.0 / seconds, 2) if seconds > 0 and built else 0.0,
        "registry": registry,
        "results": [r.as_dict() for r in results],
    }


def _cell(value: Any, limit: int = 160) -> str:
    text = str(value).replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summary_markdown(s: Mapping[str, Any]) -> str:
    """The batch summary as a markdown table (the Prefect artifact)."""
    c = s["counts"]
    dropped = ", ".join(f"{k} {v}" for k, v in s["dropped"].items()) or "none"
    lines = [
        f"# Batch of {s['environments']} environments",
        "",
        f"{c['published']} published, {c['unchanged']} unchanged, {c['skipped']} skipped, {c['failed']} failed; "
        f"{s['tasks']} tasks proven, dropped: {dropped}; {s['seconds']:.1f} s "
        f"({s['built_per_minute']} built per minute). Registry: `{s['registry']}`.",
        "",
        "| environment | domain | seed | status | tasks | dropped | seconds | digest or error |",
        "|---|---|---|---|---:|---:|---:|---|",
    ]
    for r in s["results"]:
        detail = f"`{r['digest']}`" if r["digest"] else _cell(r["error"] or "")
        lines.append(
            f"| {_cell(r['ref'] or r['name'])} | {_cell(r['domain'])} | {r['seed']} | {r['status']} | "
            f"{r['tasks']} | {sum(r['dropped'].values())} | {sum(r['seconds'].values()):.2f} | {detail} |"
        )
    return "\n".join(lines) + "\n"


def write_summary(s: Mapping[str, Any], path: Path) -> Path:
    """Write the summary JSON atomically (a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    scratch.write_text(json.dumps(s, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    scratch.replace(path)
    return path
