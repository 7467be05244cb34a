"""Write measured difficulty back into the bundle: a new version whose manifest and report carry it.

A level is a claim about structure (longer reference solutions); an evaluation measures
it. :func:`calibrate` takes one or more evaluation reports of the same bundle digest (a
model's, the scripted baselines') and writes the next version of the bundle: the same
world and tasks, ``lineage.parent`` set to the evaluated version, and
``manifest.calibration`` holding

* ``runs``: each report's figures per family × level (pass@1, pass@k, pass^k with
  intervals, steps, tool errors), its policy and its evaluation config (id and values);
* ``tasks``: per task, trials / passes / errors per policy, and the observed ``pass_rate``
  and ``difficulty`` (1 - pass rate) over the model runs (the scripted baselines are
  floors and a ceiling, not measurements of difficulty; ``null`` when only they ran).

The report page gains the evaluation section with its plots. Nothing run-specific (no
time, no durations, no token counts) enters the bundle, so the same reports give the same
digest.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.bundle.format import Bundle
from pipeline.bundle.manifest import Calibration
from pipeline.bundle.versions import bump

CALIBRATION_FORMAT = 1
RUN_KEYS = ("bundle", "policy", "config_id", "config", "trials", "episodes", "errors", "overall", "levels", "families")


def read_report(path: str | Path) -> dict[str, Any]:
    """An evaluation's ``report.json``, from the file or its run directory."""
    p = Path(path)
    p = p / "report.json" if p.is_dir() else p
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read an evaluation report at {path}: {exc}") from None
    if not isinstance(data, dict) or "families" not in data or "tasks" not in data:
        raise ValueError(f"{p} is not an evaluation report (no families / tasks)")
    _check_report(data, p)
    return data


TASK_KEYS = {"family": str, "level": int, "n": int, "passed": int, "errors": int}


def _check_report(data: dict[str, Any], p: Path) -> None:
    """The keys :func:`calibration` reads, with their types, or ValueError naming the file and key:
    a hand-edited or truncated report is a bad input, not a crash halfway through writing a bundle."""
    missing = [k for k in (*RUN_KEYS, "tasks") if k not in data]
    if missing:
        raise ValueError(f"{p}: not an evaluation report (missing {', '.join(missing)})")
    bundle = data["bundle"]
    if not isinstance(bundle, dict) or not all(isinstance(bundle.get(k), str) for k in ("ref", "digest")):
        raise ValueError(f"{p}: 'bundle' must be an object with string 'ref' and 'digest'")
    if not isinstance(data["policy"], str) or not isinstance(data["families"], dict):
        raise ValueError(f"{p}: 'policy' must be a string and 'families' an object")
    if not isinstance(data["tasks"], dict):
        raise ValueError(f"{p}: 'tasks' must be an object of task id -> figures")
    for tid, task in data["tasks"].items():
        if not isinstance(task, dict):
            raise ValueError(f"{p}: task {tid!r} must be an object, got {type(task).__name__}")
        for key, kind in TASK_KEYS.items():
            value = task.get(key)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ValueError(f"{p}: task {tid!r}: {key!r} must be {kind.__name__}, got {value!r}")


def calibration(reports: Sequence[Mapping[str, Any]]) -> Calibration:
    """``manifest.calibration`` from reports of one bundle digest."""
    from pipeline.evaluate.baselines import BASELINES
    from pipeline.evaluate.judgment import JUDGMENT_BASELINES

    if not reports:
        raise ValueError("calibration needs at least one evaluation report")
    digests = {r["bundle"]["digest"] for r in reports}
    if len(digests) != 1:
        raise ValueError(f"the reports evaluate different bundles ({', '.join(sorted(digests))})")
    policies = [r["policy"] for r in reports]
    if len(set(policies)) != len(policies):
        raise ValueError(f"one report per policy, got {policies}")
    tasks: dict[str, dict[str, Any]] = {}
    for r in sorted(reports, key=lambda r: r["policy"]):
        for tid, t in sorted(r["tasks"].items()):
            entry = tasks.setdefault(tid, {"family": t["family"], "level": t["level"], "observed": {}})
            entry["observed"][r["policy"]] = {"n": t["n"], "passed": t["passed"], "errors": t["errors"]}
    for entry in tasks.values():
        measured = [o for p, o in entry["observed"].items() if p not in BASELINES and p not in JUDGMENT_BASELINES]
        n = sum(o["n"] for o in measured)
        rate = round(sum(o["passed"] for o in measured) / n, 4) if n else None
        entry["pass_rate"] = rate
        entry["difficulty"] = None if rate is None else round(1 - rate, 4)
    return Calibration(
        format=CALIBRATION_FORMAT,
        bundle={"ref": reports[0]["bundle"]["ref"], "digest": reports[0]["bundle"]["digest"]},
        runs=[{k: r[k] for k in RUN_KEYS} for r in sorted(reports, key=lambda r: r["policy"])],
        tasks=dict(sorted(tasks.items())),
    )


def calibrate(parent: Bundle, reports: Sequence[Mapping[str, Any]], out: Path, version: str | None = None) -> Bundle:
    """Write ``out/<name>/<version>/``: ``parent`` with its calibration (version: the parent's minor bump)."""
    from pipeline.package.build import package, write_atomically
    from pipeline.package.report.evaluation import calibration_section, with_section

    data = calibration(reports)
    if data.bundle["digest"] != parent.digest:
        raise ValueError(
            f"the reports evaluate {data.bundle['ref']} ({data.bundle['digest']}), not {parent.ref} ({parent.digest})"
        )
    lineage = parent.manifest.lineage.model_copy(update={"parent": parent.ref})
    manifest = parent.manifest.with_changes(
        version=version or bump(parent.version, "minor"), lineage=lineage, calibration=data
    )
    if manifest.kind == "tool_use":
        from pipeline.runtime.task import Task
        from pipeline.tools.specs import Toolset
        from pipeline.world.schema import Schema

        return package(
            Path(out),
            manifest,
            Schema.model_validate(parent.read_json("schema.json")),
            parent.file("state.sqlite"),
            Toolset.model_validate(parent.read_json("tools.json")),
            [Task.model_validate(t) for t in parent.read_jsonl("tasks.jsonl")],
        )

    def write(directory: Path) -> None:
        for name in parent.manifest.files:
            if name in ("manifest.json", "report.html"):
                continue
            shutil.copyfile(parent.file(name), directory / name)
        page = parent.file("report.html").read_text(encoding="utf-8")
        section = calibration_section(manifest.as_dict())  # the report reads the JSON object for now
        (directory / "report.html").write_text(with_section(page, section), encoding="utf-8")

    return write_atomically(Path(out), manifest, write)
