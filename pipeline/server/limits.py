"""Per-episode budgets on a served session: write calls and rows created.

A session holds what its episode wrote (:mod:`pipeline.runtime.session`), so a client that
keeps calling ``create_*`` grows the server without bound (40,000 creates of rows with
500-character strings: +65 MB in one session; over HTTP the issue measured +108 MB).
:class:`Budget` wraps one session's environment and refuses, before it runs, a write call
past ``max_writes`` or a create past ``max_rows`` in the current episode; the refusal is a
tool error with the code ``limit_exceeded`` (HTTP 429, an MCP tool error) that names the
limit and the flag that sets it. A reset (a new episode, a fresh copy of the initial
state) starts both counts again. Reads are never limited.
"""

from __future__ import annotations

from typing import Any

from pipeline.runtime.wire import ErrorDetail, ResetInfo, Step, StepInfo, TaskObservation

DEFAULT_MAX_WRITES = 1000
"""Write calls (create, update, delete) one episode may make: far above what any task needs
(the generated tasks take a handful), low enough that a session stays small."""
DEFAULT_MAX_ROWS = 200
"""Rows one episode may create: at most about 0.3 MB of session memory at the measured 1.6 kB a row of
maximal strings (the 40,000 creates above: +0.2 MB, 39,800 refused)."""
LIMIT_EXCEEDED = "limit_exceeded"


class Budget:
    """An environment that counts its episode's writes and created rows and refuses past the limits.

    Everything but ``step`` and ``reset`` passes through to the wrapped environment.
    """

    def __init__(self, env: Any, max_writes: int = DEFAULT_MAX_WRITES, max_rows: int = DEFAULT_MAX_ROWS) -> None:
        if max_writes < 0 or max_rows < 0:
            raise ValueError(f"limits must not be negative, got max_writes={max_writes}, max_rows={max_rows}")
        self.env = env
        self.max_writes, self.max_rows = max_writes, max_rows
        self.writes = self.rows = 0
        self._kinds = {t.name: t.kind for t in env.toolset.tools}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)

    def reset(self, *args: Any, **kwargs: Any) -> tuple[TaskObservation, ResetInfo]:
        self.writes = self.rows = 0
        return self.env.reset(*args, **kwargs)

    def step(self, action: Any) -> Step:
        tool = action.get("tool") if isinstance(action, dict) else None
        kind = self._kinds.get(tool) if isinstance(tool, str) else None
        if kind in ("create", "update", "delete") and not self.env.done:
            refusal = self._refusal(str(tool), kind)
            if refusal is not None:
                return refusal
        obs, reward, terminated, truncated, info = self.env.step(action)
        if kind in ("create", "update", "delete") and obs.get("type") == "tool_result":
            self.writes += 1
            self.rows += kind == "create"
        return obs, reward, terminated, truncated, info

    def _refusal(self, tool: str, kind: str) -> Step | None:
        if self.writes >= self.max_writes:
            message = (
                f"{tool}: this episode has made {self.writes} writes, the most one episode may make "
                f"(synthenv serve --max-writes); reads still work, and the trainer's next episode starts again"
            )
        elif kind == "create" and self.rows >= self.max_rows:
            message = (
                f"{tool}: this episode has created {self.rows} rows, the most one episode may create "
                f"(synthenv serve --max-rows); reads, updates and deletes still work"
            )
        else:
            return None
        error: ErrorDetail = {"code": LIMIT_EXCEEDED, "message": message}
        info: StepInfo = {"call_valid": False, "call_succeeded": False, "error": LIMIT_EXCEEDED}
        return {"type": "tool_error", "tool": tool, "error": error}, 0.0, False, False, info
