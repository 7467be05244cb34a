"""The curriculum loop: rollout results in, curriculum state updated, next bundle out.

A trainer writes one row per rollout, ``{bundle, task_id, reward}`` (JSONL or Parquet,
read with DuckDB), or a trajectory log (``pipeline.integrations.trajectory``) as it is.
``bundle`` is a registry reference (``name@1.0.0``) or a bundle
directory; its ``tasks.jsonl`` maps each task id to a family and level. An evaluation run
directory (``synthenv evaluate``) is taken as it is: its ``episodes.jsonl`` rows carry
``bundle``, ``task_id``, ``reward`` and ``status``; wherever a ``status`` column exists only
``passed`` / ``failed`` rows count (an ``error`` is an infrastructure failure, never a score).

For a procedural bundle the scores go into a :class:`generators.Curriculum` kept in a state
file, and when a family's level moves, the next version is built at the new levels, with
the bundle the results came from as its lineage parent, and published. A tool-use bundle
ships every level, so there the scores move how many tasks each family and level gets
(:mod:`pipeline.jobs.task_mix`) and the next version is the world regenerated with that mix.

Only results at a family's current curriculum level are recorded: a score earned at
another level says nothing about this one (the curriculum clears its window on every
move for the same reason). A results file is applied once: its sha256 is kept in the
state's history, so re-running an interrupted or retried update changes nothing twice.
The state is saved last, after the next bundle is published.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from pipeline.bundle.format import Bundle, archive_path, load_bundle
from pipeline.bundle.versions import bump, latest, parse_version
from pipeline.jobs.curriculum_inputs import Rollout, check_target, read_results, results_digest

HISTORY_SUFFIX = ".history.jsonl"
DEFAULT_TARGET = (0.5, 0.8)
DEFAULT_MIN_SAMPLES = 32


@dataclass(frozen=True)
class Outcome:
    """A rollout placed in the curriculum: which family and level its task belongs to."""

    family: str
    level: int
    reward: float


def open_bundles(refs: Iterable[str], registry: str | None, cache: Path) -> dict[str, Bundle]:
    """Each distinct reference as a verified bundle: a local directory, else pulled from the registry."""
    from pipeline.registry.registry import Registry

    bundles: dict[str, Bundle] = {}
    reg: Registry | None = None
    for ref in sorted(set(refs)):
        if Path(ref).is_dir():
            bundles[ref] = load_bundle(ref)
            continue
        reg = reg or Registry(registry)
        bundles[ref] = load_bundle(reg.pull(ref, to=cache))
    return bundles


def task_index(bundle: Bundle) -> dict[str, tuple[str, int]]:
    """task id -> (family, level), from the bundle's ``tasks.jsonl``."""
    index = {}
    for item in bundle.read_jsonl("tasks.jsonl"):
        meta = item.get("metadata") if isinstance(item.get("metadata"), dict) else item
        index[str(item["id"])] = (str(meta["family"]), int(meta["level"]))
    return index


def place(rollouts: Sequence[Rollout], bundles: Mapping[str, Bundle]) -> list[Outcome]:
    """Every rollout with its task's family and level; an unknown task id is an error, not a silent skip."""
    indexes = {ref: task_index(b) for ref, b in bundles.items()}
    out = []
    for r in rollouts:
        found = indexes[r.bundle].get(r.task_id)
        if found is None:
            raise ValueError(f"task {r.task_id!r} is not in bundle {bundles[r.bundle].ref}")
        out.append(Outcome(found[0], found[1], r.reward))
    return out


def parent_of(bundles: Mapping[str, Bundle]) -> Bundle:
    """The newest version the results came from; they must all be versions of one bundle."""
    names = sorted({b.name for b in bundles.values()})
    if len(names) != 1:
        raise ValueError(f"results must come from versions of one bundle, got {', '.join(names)}")
    parent = max(bundles.values(), key=lambda b: parse_version(b.version))
    return parent


def bundle_levels(bundle: Bundle) -> dict[str, int]:
    """The level each family of a procedural bundle was generated at."""
    knobs = bundle.manifest.as_procedural().knobs
    level = knobs.level
    levels = {f: int(level.get(f, 0)) if isinstance(level, dict) else int(level or 0) for f in knobs.families}
    for item in bundle.read_jsonl("tasks.jsonl"):
        levels[item["metadata"]["family"]] = int(item["metadata"]["level"])
    return dict(sorted(levels.items()))


def open_curriculum(
    state: Path,
    families: Sequence[str],
    levels: Mapping[str, int],
    target: tuple[float, float] = DEFAULT_TARGET,
    min_samples: int = DEFAULT_MIN_SAMPLES,
) -> Any:
    """The saved curriculum, or a new one starting at ``levels`` (``target``/``min_samples`` apply then only)."""
    from generators import Curriculum

    if state.is_file():
        try:
            curriculum = Curriculum.load(state)
        except (OSError, ValueError) as exc:
            raise ValueError(f"{state}: not a readable curriculum state ({exc})") from None
        if sorted(curriculum.families) != sorted(families):
            raise ValueError(
                f"{state} tracks {', '.join(curriculum.families)}, not this bundle's "
                f"{', '.join(sorted(families))}; give another --state"
            )
        return curriculum
    return Curriculum(
        list(families), target=target, min_samples=min_samples, window=max(64, min_samples), start_level=dict(levels)
    )


@dataclass
class FamilyStats:
    rollouts: int = 0
    recorded: int = 0
    stale: int = 0
    reward_sum: float = 0.0

    @property
    def mean(self) -> float:
        return round(self.reward_sum / self.rollouts, 4) if self.rollouts else 0.0


def record(curriculum: Any, outcomes: Sequence[Outcome]) -> dict[str, FamilyStats]:
    """Feed scores in order; one earned at a level other than the family's current one is counted stale."""
    stats: dict[str, FamilyStats] = {f: FamilyStats() for f in curriculum.families}
    for o in outcomes:
        s = stats.setdefault(o.family, FamilyStats())
        s.rollouts += 1
        s.reward_sum += o.reward
        if o.family in curriculum.families and o.level == curriculum.level(o.family):
            curriculum.record([(o.family, o.reward)])
            s.recorded += 1
        else:
            s.stale += 1
    return stats


def build_next(parent: Bundle, levels: Mapping[str, int], out: Path, version: str) -> Bundle:
    """The parent's families, weights, size and seed at ``levels``, as ``version``, with the parent as lineage."""
    from pipeline.package.procedural import build_procedural_bundle

    knobs = parent.manifest.as_procedural().knobs
    return build_procedural_bundle(
        knobs.families,
        out,
        n=knobs.n,
        seed=parent.manifest.seed,
        level=dict(levels),
        weights=dict(knobs.weights),
        version=version,
        parent=parent.ref,
        name=parent.name,  # one lineage, one name (and one state file): versions tell its steps apart
    )


def publish_next(
    parent: Bundle, levels: Mapping[str, int], out: Path, registry: str | None, run: Mapping[str, Any]
) -> dict[str, Any]:
    """Build and publish the next version: the parent's minor bump, unless other content holds it.

    The same content under the minor bump is a no-op (a retried update); other content there
    (another branch of the lineage) moves this one to the minor bump of the newest version.
    """
    from pipeline.registry.registry import Registry

    reg = Registry(registry)
    bundle = build_next(parent, levels, out, bump(parent.version, "minor"))
    taken = {e.version: e for e in reg.entries(bundle.name)}
    prior = taken.get(bundle.version)
    if prior is not None and reg.manifest(prior)[1] != bundle.file("manifest.json").read_bytes():
        # This candidate can never stand under that version (the registry holds other content
        # there), and versions are never rewritten: drop it before building the next free one.
        _discard(bundle)
        bundle = build_next(parent, levels, out, bump(latest(list(taken)) or parent.version, "minor"))
    result = reg.publish(bundle.path, run=dict(run))
    return {"ref": result.entry.ref, "digest": result.entry.digest, "created": result.created}


def _discard(bundle: Bundle) -> None:
    """Remove an unpublished candidate version and its archive from the work directory."""
    import shutil

    shutil.rmtree(bundle.path)
    archive_path(bundle.path, bundle.name, bundle.version).unlink(missing_ok=True)


def history_path(state: Path) -> Path:
    return state.with_name(state.name + HISTORY_SUFFIX)


def applied(state: Path, digest: str) -> dict[str, Any] | None:
    """The report of an earlier update from the same results file, if there was one."""
    path = history_path(state)
    if not path.is_file():
        return None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the curriculum history ({exc})") from None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                entry = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}: line {number} is not JSON ({exc})") from None
            if not isinstance(entry, dict):
                raise ValueError(f"{path}: line {number} is not a JSON object")
            if entry.get("results_digest") == digest:
                known = {f.name for f in fields(Update)}
                needed = {f.name for f in fields(Update) if f.default is MISSING and f.default_factory is MISSING}
                if not known.issuperset(entry) or not needed <= set(entry):
                    raise ValueError(f"{path}: line {number} is not an update report")
                return dict(entry)
    return None


def check_inputs(results: str | Path, state: str | Path | None = None) -> None:
    """ValueError naming the file and line at fault, before any work starts: the results' rows and,
    when a state file is given, its history. Run first by a caller that starts an orchestrator,
    so a bad file costs no start-up and shows no orchestrator traceback (the flow reads them again)."""
    read_results(results)
    if state is not None:
        applied(Path(state), results_digest(results))


def commit(curriculum: Any, state: Path, report: Mapping[str, Any]) -> None:
    """Save the state (atomically), then append the report to its history."""
    curriculum.save(state)
    with history_path(state).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(report, sort_keys=True) + "\n")


def default_state(registry: str | None, name: str) -> Path:
    """``<registry>/curricula/<name>.json`` for a local registry (else under ``artifacts/``)."""
    from pipeline.jobs.batch import default_work_root

    return default_work_root(registry).parent / "curricula" / f"{name}.json"


@dataclass
class LoopSteps:
    """The callables ``update`` runs; the flow passes Prefect tasks with the same signatures."""

    read: Callable[..., Any] = read_results
    open: Callable[..., Any] = open_bundles
    publish: Callable[..., Any] = publish_next
    publish_mix: Callable[..., Any] | None = None
    """Regenerate and publish a tool-use bundle with a new task mix (default: ``task_mix.publish_next``)."""


@dataclass
class Update:
    """What ``synthenv curriculum update --json`` prints."""

    results: str
    results_digest: str
    bundle: str
    state: str
    levels_before: dict[str, int]
    levels_after: dict[str, int]
    changed: bool
    next: str | None = None
    digest: str | None = None
    created: bool = False
    families: dict[str, dict[str, float]] = field(default_factory=dict)
    already_applied: bool = False
    applied_at: str = ""
    kind: str = "procedural"
    mix_before: dict[str, dict[str, int]] = field(default_factory=dict)
    """Tool-use bundles: tasks per family and level before and after (``{family: {level: n}}``)."""
    mix_after: dict[str, dict[str, int]] = field(default_factory=dict)
    cells: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Tool-use bundles: ``{family: {level: {n, rate, verdict}}}``."""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def update(
    results: str | Path,
    state: str | Path | None = None,
    registry: str | None = None,
    work: str | Path | None = None,
    steps: LoopSteps | None = None,
    run: Mapping[str, Any] | None = None,
    target: tuple[float, float] = DEFAULT_TARGET,
    min_samples: int | None = None,
) -> Update:
    """One turn of the loop (see the module docstring); returns what happened.

    ``min_samples`` defaults to 32 scores per procedural level, 4 per tool-use family × level.
    """
    import shutil

    from pipeline.jobs.batch import default_work_root

    target = check_target(target)
    steps = steps or LoopSteps()
    results = Path(results)
    rollouts = steps.read(results)
    digest = results_digest(results)
    root = Path(work) if work is not None else default_work_root(registry)
    bundles = steps.open([r.bundle for r in rollouts], registry, root / "pulled")
    parent = parent_of(bundles)
    state_path = Path(state) if state is not None else default_state(registry, parent.name)
    earlier = applied(state_path, digest)
    if earlier is not None:
        return Update(**{**earlier, "already_applied": True})
    if parent.manifest.kind == "tool_use":
        mix_args = (results, digest, parent, bundles, rollouts, state_path, root, registry, steps, run)
        return _update_mix(*mix_args, target, min_samples)
    min_samples = DEFAULT_MIN_SAMPLES if min_samples is None else min_samples
    start = bundle_levels(parent)
    curriculum = open_curriculum(state_path, list(start), start, target, min_samples)
    before = curriculum.next_levels()
    stats = record(curriculum, place(rollouts, bundles))
    after = curriculum.next_levels()
    report = Update(
        str(results),
        digest,
        parent.ref,
        str(state_path),
        before,
        after,
        after != start,
        families={
            f: {"rollouts": s.rollouts, "recorded": s.recorded, "stale": s.stale, "mean": s.mean}
            for f, s in sorted(stats.items())
        },
        applied_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    if report.changed:
        out = root / "curriculum" / parent.name
        published = steps.publish(parent, after, out, registry, {**(run or {}), "results_digest": digest})
        shutil.rmtree(out, ignore_errors=True)
        report.next, report.digest, report.created = published["ref"], published["digest"], published["created"]
    commit(curriculum, state_path, report.as_dict())
    return report


def _update_mix(
    results: Path,
    digest: str,
    parent: Bundle,
    bundles: Mapping[str, Bundle],
    rollouts: Sequence[Rollout],
    state: Path,
    root: Path,
    registry: str | None,
    steps: LoopSteps,
    run: Mapping[str, Any] | None,
    target: tuple[float, float],
    min_samples: int | None,
) -> Update:
    """A tool-use bundle: move task counts per family × level, regenerate and publish when they move."""
    import shutil

    from pipeline.jobs import task_mix

    needed = task_mix.DEFAULT_MIN_SAMPLES if min_samples is None else min_samples
    outcomes = place(rollouts, bundles)  # every version of one world: family × level mean the same thing
    before = task_mix.current_mix(parent)
    stats = task_mix.cell_stats(outcomes)
    after, verdicts = task_mix.next_mix(before, stats, target, needed)
    families, cells = task_mix.summarise(outcomes, stats, verdicts)
    report = Update(
        str(results),
        digest,
        parent.ref,
        str(state),
        {},
        {},
        after != before,
        families=families,
        applied_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        kind="tool_use",
        mix_before=task_mix.mix_json(before),
        mix_after=task_mix.mix_json(after),
        cells=cells,
    )
    if report.changed:
        out = root / "curriculum" / parent.name
        publish = steps.publish_mix or task_mix.publish_next
        published = publish(parent, after, out, registry, {**(run or {}), "results_digest": digest})
        shutil.rmtree(out, ignore_errors=True)
        report.next, report.digest, report.created = published["ref"], published["digest"], published["created"]
    state.parent.mkdir(parents=True, exist_ok=True)
    scratch = state.with_name(state.name + ".tmp")
    scratch.write_text(
        json.dumps({"kind": "tool_use", "bundle": parent.name, "mix": report.mix_after}, indent=1, sort_keys=True)
        + "\n",
        encoding="utf-8",
    )
    scratch.replace(state)
    with history_path(state).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(report.as_dict(), sort_keys=True) + "\n")
    return report


def report_markdown(report: Mapping[str, Any]) -> str:
    """An update as a markdown table (the Prefect artifact): levels before and after, per family."""
    outcome = (
        f"next version **{report['next']}** (`{report['digest']}`)"
        if report["next"]
        else "nothing moved: no new version"
    )
    lines = [
        f"# Curriculum update from {report['bundle']}",
        "",
        f"{outcome}{'; results already applied' if report['already_applied'] else ''}. State: `{report['state']}`.",
        "",
        "| family | level before | level after | rollouts | recorded | stale | mean reward |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for family, s in report["families"].items():
        lines.append(
            f"| {family} | {report['levels_before'].get(family, '')} | {report['levels_after'].get(family, '')} "
            f"| {s['rollouts']} | {s['recorded']} | {s['stale']} | {s['mean']:.3f} |"
        )
    if report.get("kind") == "tool_use":
        lines += [
            "",
            "| family | level | scored | success | verdict | tasks before | tasks after |",
            "|---|---:|---:|---:|---|---:|---:|",
        ]
        for family, levels in report["cells"].items():
            for lvl, c in levels.items():
                rate = "" if c["rate"] is None else f"{c['rate']:.2f}"
                lines.append(
                    f"| {family} | {lvl} | {c['n']} | {rate} | {c['verdict']} "
                    f"| {report['mix_before'][family][lvl]} | {report['mix_after'][family][lvl]} |"
                )
    return "\n".join(lines) + "\n"
