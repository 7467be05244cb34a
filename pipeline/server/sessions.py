"""Many isolated episodes in one process: create, look up, close, reap.

The bundle is loaded (and its digests checked) once; every session is a shallow fork of
that one :class:`Environment`, so it shares the read-only parts (schema, tool specs,
compiled argument validators, tasks, the serialised initial state) and owns only its
episode: an in-memory SQLite copy made by ``reset``. A session costs about the size of
the state, and creating one costs one reset.

Sessions idle for longer than the TTL are closed by :meth:`SessionManager.reap` (the
server calls it periodically and before refusing a new session for lack of room).
"""

from __future__ import annotations

import copy
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.runtime.environment import Environment

MAX_SEED = 2**63 - 1


class CapacityError(Exception):
    """Every slot is taken by a live session."""


class UnknownSession(KeyError):
    """No open session has this id (never created, closed, or reaped after idling)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(session_id)
        self.message = (f"no open session {session_id[:80]!r}: it was closed, reaped after idling, or never "
                        "existed; create one with POST /sessions")


@dataclass
class _Entry:
    env: Environment
    last_used: float


class SessionManager:
    """Owns the open sessions of one bundle; not thread-safe (the server calls it from one event loop)."""

    def __init__(self, bundle_path: str | Path, max_sessions: int = 256, session_ttl: float = 900.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        if session_ttl <= 0:
            raise ValueError(f"session_ttl must be positive, got {session_ttl}")
        self.template = Environment.from_bundle(bundle_path)
        self.bundle = self.template.bundle
        self.max_sessions = max_sessions
        self.session_ttl = float(session_ttl)
        self._clock = clock
        self._sessions: dict[str, _Entry] = {}
        self._seeds = random.Random(0)
        self._tasks = {t.id for t in self.template.tasks}

    def __len__(self) -> int:
        return len(self._sessions)

    def is_open(self, session_id: str) -> bool:
        return session_id in self._sessions

    def has_task(self, task_id: str) -> bool:
        return task_id in self._tasks

    def _fork(self) -> Environment:
        """A new Environment sharing the template's read-only parts (reset gives it its own state and RNG)."""
        return copy.copy(self.template)

    def _seed(self, seed: int | None) -> int:
        # Always reset with a seed so each fork owns its RNG; a server-drawn one is reported in ``info``.
        return self._seeds.randrange(MAX_SEED) if seed is None else seed

    def create(self, task_id: str | None = None, seed: int | None = None) -> tuple[str, dict[str, Any], dict[str, Any]]:
        """Open a session and reset it; raises CapacityError when full, ValueError for an unknown task."""
        if len(self._sessions) >= self.max_sessions:
            self.reap()
        if len(self._sessions) >= self.max_sessions:
            raise CapacityError(f"the server holds its maximum of {self.max_sessions} sessions; close one "
                                f"(DELETE /sessions/{{id}}) or retry after idle ones are reaped "
                                f"({self.session_ttl:g} s without use)")
        env = self._fork()
        seed = self._seed(seed)
        obs, info = env.reset(task_id=task_id, seed=seed)
        session_id = secrets.token_urlsafe(16)
        self._sessions[session_id] = _Entry(env, self._clock())
        return session_id, obs, {**info, "seed": seed}

    def get(self, session_id: str) -> Environment:
        entry = self._sessions.get(session_id)
        if entry is None:
            raise UnknownSession(session_id)
        entry.last_used = self._clock()
        return entry.env

    def reset(self, session_id: str, task_id: str | None = None, seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        env = self.get(session_id)
        seed = self._seed(seed)
        obs, info = env.reset(task_id=task_id, seed=seed)
        return obs, {**info, "seed": seed}

    def close(self, session_id: str) -> bool:
        """Close a session; False if there was none (closing twice is harmless)."""
        entry = self._sessions.pop(session_id, None)
        if entry is None:
            return False
        entry.env.close()
        return True

    def reap(self) -> int:
        """Close every session idle for longer than the TTL; return how many."""
        cutoff = self._clock() - self.session_ttl
        stale = [sid for sid, e in self._sessions.items() if e.last_used < cutoff]
        for sid in stale:
            self.close(sid)
        return len(stale)

    def close_all(self) -> None:
        for sid in list(self._sessions):
            self.close(sid)
