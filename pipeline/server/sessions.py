"""Many isolated episodes in one process: create, look up, close, reap.

The bundle is loaded (and its digests checked) once; every session is an
:class:`Environment` of that bundle, so it shares the read-only parts (schema, tool specs,
compiled argument validators, tasks, the shared base of the initial state) and owns only
its episode: one SQLite connection to the shared base holding what it wrote
(:mod:`pipeline.runtime.session`). A session costs what it wrote plus a small page cache,
and creating one costs a connection; what one episode may write is capped
(:class:`pipeline.server.limits.Budget`).

Open sessions live in a :class:`cachetools.TTLCache`: each use restarts a session's time
to live, and sessions idle for longer than the TTL are closed when the cache expires them
(:meth:`SessionManager.reap`, which the server calls periodically and before refusing a new
session for lack of room). A full manager refuses new sessions rather than evicting live
ones. Which episode a session runs is the trainer's choice alone (``create`` and ``reset``
back the trainer's routes, :mod:`pipeline.server.trainer`); the agent only steps.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cachetools import TTLCache

from pipeline.runtime.environment import Environment
from pipeline.runtime.wire import ResetInfo, TaskObservation
from pipeline.server.limits import DEFAULT_MAX_ROWS, DEFAULT_MAX_WRITES, Budget

MAX_SEED = 2**63 - 1


class CapacityError(Exception):
    """Every slot is taken by a live session."""


class UnknownSession(KeyError):
    """No open session has this id (never created, closed, or reaped after idling)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(session_id)
        self.message = (
            f"no open session {session_id[:80]!r}: it was closed, reaped after idling, or never "
            "existed; the trainer opens sessions (POST /trainer/sessions)"
        )


class _Sessions(TTLCache[str, Any]):
    """The open sessions; a session the cache expires (idle past its TTL) is closed and counted."""

    reaped = 0
    """Sessions closed for idling since :meth:`SessionManager.reap` last reported them (the cache also
    expires them on its own, whenever it is written)."""

    def expire(self, time: float | None = None) -> list[tuple[str, Any]]:
        expired = list(super().expire(time))
        for _, env in expired:
            env.close()
        self.reaped += len(expired)
        return expired


class SessionManager:
    """Owns the open sessions of one bundle; not thread-safe (the server calls it from one event loop)."""

    def __init__(
        self,
        bundle_path: str | Path,
        max_sessions: int = 256,
        session_ttl: float = 900.0,
        clock: Callable[[], float] = time.monotonic,
        wrap: Callable[[Environment], Any] | None = None,
        id_prefix: str = "",
        max_writes: int = DEFAULT_MAX_WRITES,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        if session_ttl <= 0:
            raise ValueError(f"session_ttl must be positive, got {session_ttl}")
        self.template = Environment.from_bundle(bundle_path)
        self.bundle = self.template.bundle
        self.max_sessions = max_sessions
        self.session_ttl = float(session_ttl)
        self._clock = clock
        self._wrap = wrap
        """Applied to every fork (e.g. a trajectory log); the result must keep Environment's API."""
        self.max_writes, self.max_rows = max_writes, max_rows
        """Per-episode budgets of every session (:class:`pipeline.server.limits.Budget`)."""
        self._prefix = id_prefix
        """Starts every session id (names the worker process that holds it, see ``server.workers``)."""
        self._sessions = _Sessions(maxsize=max_sessions, ttl=self.session_ttl, timer=clock)
        # Server-drawn seeds come from the OS, so they never repeat across restarts.
        self._seeds = random.SystemRandom()
        self._tasks = {t.id for t in self.template.tasks}

    @property
    def reap_interval(self) -> float:
        """Seconds between the server's reaps of idle sessions."""
        return min(max(self.session_ttl / 4, 0.05), 30.0)

    @property
    def retry_after(self) -> int:
        """Seconds a client refused for capacity should wait (Retry-After): a reap may free a slot by then."""
        return max(1, round(self.reap_interval))

    def __len__(self) -> int:
        self._sessions.expire()
        return len(self._sessions)

    def is_open(self, session_id: str) -> bool:
        return session_id in self._sessions

    def has_task(self, task_id: str) -> bool:
        return task_id in self._tasks

    def _fork(self) -> Budget:
        """A new Environment sharing the template's read-only parts (reset gives it its own session and
        RNG), under the per-episode write budget; it keeps Environment's API."""
        env = Environment(self.bundle)
        wrapped = self._wrap(env) if self._wrap is not None else env
        return Budget(wrapped, self.max_writes, self.max_rows)

    def _seed(self, seed: int | None) -> int:
        # Always reset with a seed so each fork owns its RNG; a server-drawn one is reported in ``info``.
        return self._seeds.randrange(MAX_SEED) if seed is None else seed

    def create(self, task_id: str | None = None, seed: int | None = None) -> tuple[str, TaskObservation, ResetInfo]:
        """Open a session and reset it; raises CapacityError when full, ValueError for an unknown task."""
        if len(self) >= self.max_sessions:
            raise CapacityError(
                f"the server holds its maximum of {self.max_sessions} sessions; close one "
                f"(DELETE /trainer/sessions/{{id}}) or retry after idle ones are reaped "
                f"({self.session_ttl:g} s without use)"
            )
        env = self._fork()
        seed = self._seed(seed)
        obs, info = env.reset(task_id=task_id, seed=seed)
        session_id = self._prefix + secrets.token_urlsafe(16)
        self._sessions[session_id] = env
        return session_id, obs, {**info, "seed": seed}

    def get(self, session_id: str) -> Any:
        # One lookup (the cache's ``get`` is a membership test, then a second lookup): this runs on every step.
        try:
            env = self._sessions[session_id]
        except KeyError:
            raise UnknownSession(session_id) from None
        self._sessions[session_id] = env  # restarts its time to live
        return env

    def reset(
        self, session_id: str, task_id: str | None = None, seed: int | None = None
    ) -> tuple[TaskObservation, ResetInfo]:
        env = self.get(session_id)
        seed = self._seed(seed)
        info: ResetInfo
        obs, info = env.reset(task_id=task_id, seed=seed)
        return obs, {**info, "seed": seed}

    def close(self, session_id: str) -> bool:
        """Close a session; False if there was none (closing twice is harmless)."""
        env = self._sessions.pop(session_id, None)
        if env is None:
            return False
        env.close()
        return True

    def reap(self) -> int:
        """Close every session idle for longer than the TTL; return how many were closed since the last call."""
        self._sessions.expire()
        reaped, self._sessions.reaped = self._sessions.reaped, 0
        return reaped

    def close_all(self) -> None:
        while self._sessions:
            _, env = self._sessions.popitem()
            env.close()
        self._sessions.clear()
