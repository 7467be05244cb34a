"""``synthenv export BUNDLE --format harbor``: one Harbor task directory per task of a bundle.

Harbor's task layout (``task.toml``, ``instruction.md``, ``environment/Dockerfile``,
``solution/solve.sh``, ``tests/test.sh``) is what verl, NeMo Gym and verifiers' Harbor
taskset load, so a bundle written this way trains anywhere those do. Each task is::

    <out>/<task id>/
      task.toml            [task] name/version, [metadata] bundle, digest, family, level, knobs;
                           the agent runs as the runtime's non-root user; the verifier runs as
                           root in a container of its own (environment_mode "separate") built
                           from the same environment, with the agent's /app (the one artifact)
                           restored in it: whatever the agent did to its own container, the
                           verifier's code and the initial state it compares with are pristine
      instruction.md       the request, then how to act and the tools (the shared surface text)
      environment/
        Dockerfile         FROM the synthenv runtime image, plus world/ and the `tools` command
        world/             world.json (manifest summary), and for a tool-use bundle schema.json,
                           tools.json, state.sqlite: no task, answer or reference solution
      solution/solve.sh    the reference solution replayed through `tools` (Harbor's oracle)
      tests/test.sh        python -m pipeline.harbor.verify /tests/task.json
      tests/task.json      the verifier (or the procedural item) and the world's sha256s

``environment/`` is all the agent's container is built from; ``tests/`` arrives only when
the verifier runs and ``solution/`` only for the oracle agent. The runtime image
(``synthenv-runtime:<version>``) must exist where the tasks run: ``synthenv package
BUNDLE --image`` builds it (no registry is assumed, see docs/containers.md).

The metadata in ``task.toml`` (knobs included, which can reveal an answer) is read by
Harbor on the host; nothing of it reaches the container.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.bundle.format import Bundle, load_bundle
from pipeline.harbor.container import STATE, WORLD_FILES
from pipeline.package.image import runtime_tag

WORLD_SUMMARY_KEYS = (
    "name",
    "version",
    "digest",
    "kind",
    "title",
    "description",
    "domain",
    "frozen_clock",
    "reward_weights",
    "policy",
)
"""What of the manifest the agent's container carries (the file list and per-task figures stay out)."""
AGENT_USER = "synthenv"
"""The runtime image's non-root user: the agent cannot change /env, the runtime or the verifier's code."""
WORK = "/app"
"""The agent's work directory: collected after the agent phase and restored in the verifier's own container."""
AGENT_TIMEOUT = 900.0
VERIFIER_TIMEOUT = 120.0

DOCKERFILE = """\
# A synthenv task for Harbor: the runtime image plus this task's world (no task data).
FROM {runtime}
USER root
COPY --chown=0:0 world/ /env/world/
RUN chmod -R a=rX /env \\
 && printf '#!/bin/sh\\nexec python -m pipeline.harbor.container "$@"\\n' > /usr/local/bin/tools \\
 && chmod 0755 /usr/local/bin/tools \\
 && mkdir -p /app && chown {user}:{user} /app
# Harbor keeps the container up with its own command (no server to check) and waits for it to be
# healthy; HEALTHCHECK NONE would make that wait fail, so the check is one that passes at once.
HEALTHCHECK --interval=1s --timeout=5s --retries=3 CMD ["true"]
ENV SYNTHENV_HARBOR_ENV=/env SYNTHENV_HARBOR_WORK=/app
LABEL io.synthenv.bundle.name="{name}" io.synthenv.bundle.version="{version}" io.synthenv.bundle.digest="{digest}"
WORKDIR /app
"""

TEST_SH = """\
#!/bin/bash
# Scores the container's final state and answer; writes /logs/verifier/reward.txt and reward.json.
set -u
mkdir -p /logs/verifier
exec python -m pipeline.harbor.verify /tests/task.json
"""

TOOL_USE_HOWTO = """\

---

## How to act

{system}

### The tools

You reach this system's tools from the shell with the `tools` command:

- `tools list` prints every tool (name, description and parameters as JSON Schema); \
`tools help NAME` prints one.
- `tools call NAME '{{"parameter": value}}'` calls a tool with a JSON object of arguments and prints the result.
- `tools answer 'VALUE'` gives the final answer (it is the `{answer_tool}` tool: \
`tools call {answer_tool} '{{"answer": "VALUE"}}'` does the same). The first answer stands; \
nothing after it counts.

The tools are: {names}.
"""

PROCEDURAL_HOWTO = """\

---

Give your final answer with `tools answer 'VALUE'`, or write it, and nothing else, to `/app/answer.txt`.
"""


@dataclass
class HarborExport:
    """What was written: the dataset directory and one directory per task."""

    out: Path
    bundle: str
    digest: str
    kind: str
    tasks: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "format": "harbor",
            "bundle": self.bundle,
            "digest": self.digest,
            "kind": self.kind,
            "tasks": len(self.tasks),
            "task_dirs": self.tasks,
        }


# -- TOML (written here: no TOML writer is a runtime dependency) --------------------------------

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, apart from DEL, which TOML wants escaped."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return _toml_string(repr(value))
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in value.items() if v is not None)
        return "{ " + inner + " }" if inner else "{}"
    if value is None:
        return '""'
    return _toml_string(str(value))


def _toml(sections: dict[str, dict[str, Any]], top: dict[str, Any]) -> str:
    lines = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in top.items()]
    for name, values in sections.items():
        lines += ["", f"[{name}]"]
        lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in values.items() if v is not None]
    return "\n".join(lines) + "\n"


# -- writing -------------------------------------------------------------------------------------


def _write(path: Path, data: str | bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    path.chmod(mode)


def _place(path: Path, source: Path) -> None:
    """``source``'s bytes at ``path``: a hard link when the file system allows (a large state once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    try:
        os.link(source, path)
    except OSError:
        path.write_bytes(source.read_bytes())


def _task_name(bundle: Bundle, task_id: str) -> str:
    """``synthenv/<bundle>.<task>`` in Harbor's org/name form (its allowed characters only)."""
    clean = re.sub(r"[^A-Za-z0-9._-]", "-", f"{bundle.name}.{task_id}").strip(".-")
    return f"synthenv/{clean}"


def _task_dir_name(task_id: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]", "-", task_id).strip(".")
    if not name:
        raise ValueError(f"task id {task_id!r} gives no directory name")
    return name


def _world(bundle: Bundle, staging: Path) -> dict[str, str]:
    """The agent's world files in ``staging`` (once per export); their sha256 by name."""
    summary = bundle.manifest.model_dump(mode="json", include=set(WORLD_SUMMARY_KEYS), exclude_unset=True)
    summary["bundle"] = bundle.ref
    _write(staging / "world.json", json.dumps(summary, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
    names = ["world.json"]
    if bundle.manifest.kind != "procedural":
        for name in WORLD_FILES[1:]:
            _place(staging / name, bundle.file(name))
            names.append(name)
    return {n: hashlib.sha256((staging / n).read_bytes()).hexdigest() for n in names}


def _answer_text(answer: Any) -> str:
    """A reference answer as a model writes it through the answer tool (text; lists as a JSON list)."""
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def _solve_tool_use(surface: Any, task: Any) -> str:
    lines = [
        "#!/bin/bash",
        "# The task's reference solution, replayed through the agent's own tools.",
        "set -euo pipefail",
    ]
    for call in task.solution:
        name, args = surface.call(call.tool, dict(call.arguments))
        lines.append(f"tools call {shlex.quote(name)} {shlex.quote(json.dumps(args, ensure_ascii=False))}")
    lines.append(f"tools answer {shlex.quote(_answer_text(task.answer))}")
    return "\n".join(lines) + "\n"


def _write_task(
    root: Path,
    bundle: Bundle,
    staging: Path,
    world_sha: dict[str, str],
    *,
    task_id: str,
    family: str,
    level: int,
    knobs: Any,
    instruction: str,
    solve: str,
    test_data: dict[str, Any],
) -> None:
    if root.exists():
        raise ValueError(f"two tasks would share the directory {root.name} (task {task_id!r})")
    runtime = runtime_tag()
    task_toml = _toml(
        {
            "task": {
                "name": _task_name(bundle, task_id),
                "version": bundle.version,
                "description": f"{family} (level {level}) from synthenv bundle {bundle.ref}",
                "keywords": ["synthenv", bundle.manifest.kind, family, f"level-{level}"],
            },
            "metadata": {
                "bundle": bundle.ref,
                "bundle_name": bundle.name,
                "bundle_version": bundle.version,
                "bundle_digest": bundle.digest,
                "kind": bundle.manifest.kind,
                "task_id": task_id,
                "family": family,
                "level": level,
                "knobs": knobs or {},
                "synthenv_version": __version__,
                "runtime_image": runtime,
            },
            "agent": {"timeout_sec": AGENT_TIMEOUT, "user": AGENT_USER},
            "verifier": {"timeout_sec": VERIFIER_TIMEOUT, "user": "root", "environment_mode": "separate"},
            "environment": {"build_timeout_sec": 600.0, "cpus": 1, "memory_mb": 1024, "workdir": "/app"},
        },
        {"schema_version": "1.4", "artifacts": [WORK]},
    )
    _write(root / "task.toml", task_toml)
    _write(root / "instruction.md", instruction)
    dockerfile = DOCKERFILE.format(
        runtime=runtime, user=AGENT_USER, name=bundle.name, version=bundle.version, digest=bundle.digest
    )
    _write(root / "environment" / "Dockerfile", dockerfile)
    for name in world_sha:
        _place(root / "environment" / "world" / name, staging / name)
    _write(root / "solution" / "solve.sh", solve, 0o755)
    _write(root / "tests" / "test.sh", TEST_SH, 0o755)
    data = {**test_data, "task_id": task_id, "bundle": bundle.ref, "digest": bundle.digest, "world_sha256": world_sha}
    _write(root / "tests" / "task.json", json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n")


def export_harbor(path: str | Path, out: str | Path) -> HarborExport:
    """Write every task of the bundle at ``path`` as a Harbor task under ``out`` (which must be new or empty)."""
    bundle = load_bundle(path)
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} exists and is not an empty directory; give a new --out")
    out.mkdir(parents=True, exist_ok=True)
    kind = bundle.manifest.kind
    staging = out / ".world"
    world_sha = _world(bundle, staging)
    result = HarborExport(out=out, bundle=bundle.ref, digest=bundle.digest, kind=kind)
    try:
        if kind == "procedural":
            _export_procedural(bundle, out, staging, world_sha, result)
        else:
            _export_tool_use(bundle, out, staging, world_sha, result)
    finally:
        for f in staging.iterdir():
            f.unlink()
        staging.rmdir()
    return result


def _export_tool_use(bundle: Bundle, out: Path, staging: Path, world_sha: dict[str, str], result: HarborExport) -> None:
    from pipeline.runtime.environment import Environment
    from pipeline.surface import ANSWER_TOOL, surface_of

    env = Environment(bundle)
    try:
        surface = surface_of(env)
        names = ", ".join(f"`{t['name']}`" for t in surface.tools)
        howto = TOOL_USE_HOWTO.format(system=surface.system, answer_tool=ANSWER_TOOL, names=names)
        for task in env.tasks:
            directory = _task_dir_name(task.id)
            _write_task(
                out / directory,
                bundle,
                staging,
                world_sha,
                task_id=task.id,
                family=task.family,
                level=task.level,
                knobs=task.knobs,
                instruction=task.instruction.rstrip() + "\n" + howto,
                solve=_solve_tool_use(surface, task),
                test_data={"kind": "tool_use", "verifier": task.verifier.model_dump(mode="json")},
            )
            result.tasks.append(directory)
    finally:
        env.close()


def _export_procedural(
    bundle: Bundle, out: Path, staging: Path, world_sha: dict[str, str], result: HarborExport
) -> None:
    for item in bundle.read_jsonl("tasks.jsonl"):
        meta = item["metadata"]
        directory = _task_dir_name(str(item["id"]))
        solve = (
            "#!/bin/bash\n# The item's gold answer, written where the verifier reads it.\nset -euo pipefail\n"
            f"tools answer {shlex.quote(_answer_text(item['answer']))}\n"
        )
        _write_task(
            out / directory,
            bundle,
            staging,
            world_sha,
            task_id=str(item["id"]),
            family=str(meta["family"]),
            level=int(meta["level"]),
            knobs=meta.get("knobs"),
            instruction=str(item["question"]).rstrip() + "\n" + PROCEDURAL_HOWTO,
            solve=solve,
            test_data={"kind": "procedural", "item": item},
        )
        result.tasks.append(directory)


__all__ = ["STATE", "HarborExport", "export_harbor"]
