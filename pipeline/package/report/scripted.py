"""The scripted-policy half of ``report.html``: the reference and the judgment-free policies per level.

The reference solution passes every shipped task; ``literal``, ``first_candidate`` and
``no_computation`` (:mod:`pipeline.evaluate.judgment`) do the same work but skip the judgment
a request needs, so their pass rate per level says how far each level is from mechanical.
They are scripts, not models: the build plays each once on every task, through the same
episode loop, surface and verifier ``synthenv evaluate --baselines`` uses (so the figures are
the ones that command reports for these policies), on a draft of the bundle: its files
written to a scratch directory, since the bundle itself is not sealed yet when its report is
written. That costs well under a second for a bundle of a hundred tasks.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.bundle.format import Bundle, StateFile
from pipeline.bundle.manifest import ToolUseManifest
from pipeline.package.report.evaluation import TOP_LEVEL, TOP_LIMIT, level_table
from pipeline.package.report.render import Markup, render
from pipeline.runtime.task import Task
from pipeline.tools.specs import Toolset, build_toolset
from pipeline.world.schema import Schema

POLICIES = ("reference", "literal", "first_candidate", "no_computation")


class _Draft(Bundle):
    """A bundle whose state is always its file (:class:`StateFile`), never an in-memory image.

    A bundle's state below ``IMAGE_LIMIT`` becomes an image (one copy of the state), which the
    runtime deserialises into its shared base (two more, one transient): three copies for a
    few hundred scripted episodes. On the file the runtime keeps one copy on disk and reads it
    through the page cache, as it does for every state over the limit; the verdicts are the same.
    """

    @property
    def state_bytes(self) -> bytes:  # type: ignore[override]  # a property, not cached: nothing to keep
        return StateFile(self.file("state.sqlite"))


class _Discard:
    """A trajectory sink that keeps nothing: the report needs the verdicts, not the log."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        return None


def _draft(
    directory: Path, manifest: ToolUseManifest, schema: Schema, state: Path, toolset: Toolset, tasks: list[Task]
) -> Bundle:
    """A :class:`_Draft` bundle over the files an environment reads, under a digest of
    their content (environments and surfaces are cached per digest: a draft must not reuse another's)."""
    files = {
        "schema.json": schema.model_dump_json(),
        "tools.json": toolset.model_dump_json(),
        "tasks.jsonl": "".join(json.dumps(t.model_dump(mode="json"), sort_keys=True) + "\n" for t in tasks),
    }
    digest = hashlib.sha256(json.dumps(manifest.as_dict(), sort_keys=True, default=str).encode())
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
        digest.update(text.encode())
    (directory / "state.sqlite").symlink_to(Path(state).resolve())
    return _Draft(path=directory, manifest=manifest.with_changes(digest=f"sha256:draft-{digest.hexdigest()}"))


def scripted_reports(
    manifest: ToolUseManifest,
    schema: Schema,
    state: Path,
    tasks: list[Task],
    toolset: Toolset | None = None,
    names: Sequence[str] = POLICIES,
) -> list[dict[str, Any]]:
    """One evaluation report (as ``build_report`` makes it, one trial per task) per scripted policy.

    ``toolset`` defaults to the tools the schema gives (:func:`build_toolset`, what every build ships).
    """
    from pipeline.evaluate.baselines import baseline
    from pipeline.evaluate.config import EvalConfig
    from pipeline.evaluate.episode import run_episode
    from pipeline.evaluate.report import build_report
    from pipeline.integrations.trajectory import TrajectoryWriter
    from pipeline.runtime.environment import Environment

    if not tasks:
        return []
    config = EvalConfig()
    reports = []
    with tempfile.TemporaryDirectory(prefix="synthenv-report-") as scratch:
        bundle = _draft(Path(scratch), manifest, schema, state, toolset or build_toolset(schema), tasks)
        env = Environment(bundle)
        writer = TrajectoryWriter(_Discard())  # type: ignore[arg-type]  # a text sink, never read back
        try:
            for name in names:
                policy = baseline(name)
                rows = sorted(
                    (run_episode(env, writer, policy, config, t.id, 0).as_dict() for t in tasks),
                    key=lambda row: str(row["task_id"]),
                )
                info = {
                    "trials": 1,
                    "tasks": [t.id for t in tasks],
                    "ref": bundle.ref,
                    "digest": bundle.digest,
                    "kind": "tool_use",
                    "policy": name,
                    "config_id": config.config_id(),
                    "config": config.as_dict(),
                }
                reports.append(build_report(info, rows))
        finally:
            env.close()
    return reports


def scripted_section(reports: Sequence[dict[str, Any]], tasks: int) -> str:
    """``<h2 id='scripted'>``: pass@1 per level of the reference and the three judgment-free policies
    (``reports`` from :func:`scripted_reports`, played once for this section and the summary)."""
    if not reports:
        return ""
    return render(
        "scripted.html.j2",
        table=Markup(level_table(reports)),
        tasks=tasks,
        top=TOP_LEVEL,
        limit=f"{100 * TOP_LIMIT:.0f}%",
    )
