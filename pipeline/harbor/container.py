"""The agent's command inside a Harbor task container: ``tools list | call | answer``.

Harbor gives an agent a shell in the task's container, so a bundle's tools arrive as a
command (installed as ``/usr/local/bin/tools``, ``python -m pipeline.harbor.container``)
over the same rendering every other adapter uses (:mod:`pipeline.surface`): the same tool
list, the same arguments, the same observation text. Each call is a process of its own, so
the episode's state lives in a file the agent owns (``/app/state.sqlite``, a copy of the
initial state made by the first call); the pristine initial state stays read-only under
``/env/world`` (root-owned), where the verifier finds it again.

What the agent's part of the container holds: ``/env/world`` (the bundle's schema, tool
specs, initial state and a manifest summary: no task, no answer, no reference solution),
this command and the synthenv runtime. The task's verifier reaches the container only at
test time (Harbor copies ``tests/`` to ``/tests`` after the agent has finished), and the
reference solution only for Harbor's oracle agent (``/solution``).

The first answer stands, as in :class:`pipeline.runtime.environment.Environment`: after
``tools answer`` every further call or answer is refused and changes nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

ENV_DIR = Path(os.environ.get("SYNTHENV_HARBOR_ENV", "/env"))
"""The agent-visible world: ``world/`` (schema, tool specs, initial state, summary)."""
WORK_DIR = Path(os.environ.get("SYNTHENV_HARBOR_WORK", "/app"))
"""Where the episode's state and answer live (owned by the agent's user)."""
STATE = "state.sqlite"
ANSWER = "answer.json"
ANSWER_TEXT = "answer.txt"
WORLD_FILES = ("world.json", "schema.json", "tools.json", STATE)
"""What ``/env/world`` holds for a tool-use bundle (a procedural one: ``world.json`` alone)."""

USAGE = """usage: tools list                 every tool: name, description, parameters (JSON Schema)
       tools help NAME            one tool
       tools call NAME [JSON]     call a tool with a JSON object of arguments ({} when omitted)
       tools answer VALUE         the final answer (the submit_answer tool); the first one stands
"""


class _Bundle:
    """The few bundle attributes the surface reads (digest and manifest summary)."""

    def __init__(self, world: dict[str, Any]) -> None:
        self.manifest = world
        self.digest = str(world.get("digest", ""))
        self.name = str(world.get("name", ""))
        self.version = str(world.get("version", ""))


@dataclass
class World:
    """The agent-visible world of one task container, and the episode's files."""

    env_dir: Path = ENV_DIR
    work_dir: Path = WORK_DIR

    @cached_property
    def world(self) -> dict[str, Any]:
        return dict(json.loads((self.env_dir / "world" / "world.json").read_text(encoding="utf-8")))

    @property
    def procedural(self) -> bool:
        return self.world.get("kind") == "procedural"

    @cached_property
    def bundle(self) -> _Bundle:
        return _Bundle(self.world)

    @cached_property
    def schema(self) -> Any:
        from pipeline.world.schema import Schema

        return Schema.model_validate_json((self.env_dir / "world" / "schema.json").read_bytes())

    @cached_property
    def toolset(self) -> Any:
        from pipeline.tools.specs import Toolset

        return Toolset.model_validate_json((self.env_dir / "world" / "tools.json").read_bytes())

    @cached_property
    def executor(self) -> Any:
        from pipeline.tools.executor import Executor

        return Executor(self.schema, self.toolset, str(self.world["frozen_clock"]))

    def tool_specs(self) -> list[dict[str, Any]]:
        return [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in self.toolset.tools]

    @cached_property
    def surface(self) -> Any:
        from pipeline.surface import surface_of

        return surface_of(self)

    @property
    def initial_path(self) -> Path:
        return self.env_dir / "world" / STATE

    @property
    def state_path(self) -> Path:
        return self.work_dir / STATE

    @property
    def answer_path(self) -> Path:
        return self.work_dir / ANSWER

    def connect(self) -> sqlite3.Connection:
        """The episode's state (copied from the initial state by the first call), foreign keys on."""
        if not self.state_path.exists():
            self.work_dir.mkdir(parents=True, exist_ok=True)
            partial = self.state_path.with_name(f".{STATE}.partial")
            shutil.copyfile(self.initial_path, partial)
            partial.chmod(0o644)
            partial.replace(self.state_path)
        conn = sqlite3.connect(self.state_path, isolation_level=None)
        try:
            conn.execute("PRAGMA foreign_keys = ON")
        except BaseException:  # a state file SQLite cannot read: close it before the error goes up
            conn.close()
            raise
        return conn

    def call(self, name: str, arguments: Any) -> str:
        """One tool call through the surface, committed to the episode's state; the observation text."""
        from pipeline.surface import ANSWER_TOOL
        from pipeline.tools.errors import ToolError
        from pipeline.tools.jsonvalues import json_problem

        if name == ANSWER_TOOL:
            value = arguments.get("answer") if isinstance(arguments, dict) else arguments
            return self.answer(value if isinstance(value, str) else json.dumps(value))
        if self.answer_path.exists():
            return self.surface.observe(_episode_over())
        action = self.surface.action(name, arguments)
        problem = json_problem(action, "action")
        if problem is not None:
            return self.surface.observe({"type": "error", "error": {"code": "invalid_action", "message": problem}})
        tool, args = action["tool"], action.get("arguments", {})
        conn = self.connect()
        try:
            spec = self.executor.validate(tool, args, plain_json=True)
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = self.executor.run(conn, spec, args)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            obs: dict[str, Any] = {"type": "tool_result", "tool": tool, "result": result}
        except ToolError as exc:
            obs = {"type": "tool_error", "tool": tool, "error": exc.as_dict()}
        finally:
            conn.close()
        return str(self.surface.observe(obs, action))

    def answer(self, text: str) -> str:
        """Record the final answer (decoded as the answer tool decodes it); the first one stands."""
        from pipeline.surface import decode_answer

        if self.answer_path.exists():
            return str(_episode_over()["error"]["message"])
        self.work_dir.mkdir(parents=True, exist_ok=True)
        partial = self.answer_path.with_name(f".{ANSWER}.partial")
        value = text if self.procedural else decode_answer(text)  # a procedural answer is text, as given
        partial.write_text(json.dumps({"answer": value}, ensure_ascii=False), encoding="utf-8")
        try:  # a link, not a rename: a second answer racing this one cannot replace it
            os.link(partial, self.answer_path)
        except FileExistsError:
            return str(_episode_over()["error"]["message"])
        finally:
            partial.unlink(missing_ok=True)
        return "answer recorded; the episode is over"


def _episode_over() -> dict[str, Any]:
    from pipeline.runtime.environment import episode_over

    return dict(episode_over()[0])


def main(argv: list[str] | None = None, world: World | None = None) -> int:
    """The ``tools`` command; exit 0 on an answered call (a tool error is an answer), 2 on bad usage."""
    args = list(sys.argv[1:] if argv is None else argv)
    world = world or World()
    if not args or (args[0] in ("-h", "--help", "help") and len(args) == 1):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    verb, rest = args[0], args[1:]
    if verb == "answer" and len(rest) == 1:
        sys.stdout.write(world.answer(rest[0]) + "\n")
        return 0
    if world.procedural:
        sys.stderr.write("this task has no tools: write the answer with `tools answer VALUE`\n")
        return 2
    if verb == "list" and not rest:
        sys.stdout.write(json.dumps(world.surface.tools, indent=1, ensure_ascii=False) + "\n")
        return 0
    if verb == "help" and len(rest) == 1:
        found = [t for t in world.surface.tools if t["name"] == rest[0]]
        if not found:
            sys.stderr.write(f"no tool {rest[0]!r}; `tools list` shows them\n")
            return 2
        sys.stdout.write(json.dumps(found[0], indent=1, ensure_ascii=False) + "\n")
        return 0
    if verb == "call" and 1 <= len(rest) <= 2:
        try:
            arguments = json.loads(rest[1]) if len(rest) == 2 else {}
        except ValueError as exc:
            sys.stderr.write(f"the arguments must be one JSON object: {exc}\n")
            return 2
        sys.stdout.write(world.call(rest[0], arguments) + "\n")
        return 0
    sys.stderr.write(USAGE)
    return 2


if __name__ == "__main__":  # pragma: no cover - the container's entry point
    raise SystemExit(main())
