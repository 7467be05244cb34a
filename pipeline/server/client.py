"""A typed client for the trainer's routes of ``synthenv serve`` (:mod:`pipeline.server.trainer`).

The trainer opens a session on the task it chose, hands the agent the session id (the
agent then calls ``POST /tools/{name}`` with ``X-Session-Id``, ``POST /sessions/{id}/step``
or MCP), and reads the verdict of the episode it assigned from here, never from what the
agent relays::

    with TrainerClient("http://127.0.0.1:8000", token) as trainer:
        sid = trainer.open(task_id="t-0001", seed=0)
        ...                                   # the agent plays the episode
        verdict = trainer.verdict(sid)        # the first final verdict, or None
        trainer.close(sid)

Every method raises :class:`TrainerError` (with the server's ``code`` and HTTP status) on a
refused request.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx

from pipeline.runtime.wire import ResetInfo, TaskObservation


class TrainerError(Exception):
    """The server refused a trainer request (``status`` is the HTTP status, ``code`` its error code)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True)
class Episode:
    """An episode as the trainer started it: the session, what the agent is shown, and the trainer's info."""

    session_id: str
    observation: TaskObservation
    """What the agent is shown first: the task."""
    info: ResetInfo
    """The trainer's info: the task assigned, and the seed the episode was reset with."""


class TrainerClient:
    """The trainer's side of a served bundle: open, reset, verify, read the verdict, close."""

    def __init__(self, base_url: str, token: str, *, timeout: float = 30.0, http: httpx.Client | None = None) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        self._own = http is None
        self._http = http or httpx.Client(base_url=base_url, timeout=timeout)
        self._headers = headers

    def __enter__(self) -> TrainerClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close_client()

    def close_client(self) -> None:
        """Close the HTTP connection pool (when this client made it)."""
        if self._own:
            self._http.close()

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        reply = self._http.request(method, path, json=body, headers=self._headers)
        if reply.status_code >= 400:
            try:
                error = reply.json()
            except ValueError:
                error = {}
            raise TrainerError(
                reply.status_code, str(error.get("code", "error")), str(error.get("message", reply.text))
            )
        return reply

    @staticmethod
    def _episode_body(task_id: str | None, seed: int | None) -> dict[str, Any]:
        return {k: v for k, v in (("task_id", task_id), ("seed", seed)) if v is not None}

    def start(self, task_id: str | None = None, seed: int | None = None) -> Episode:
        """Open a session on ``task_id`` (default: drawn with ``seed``); its first observation and info."""
        data = self._call("POST", "/trainer/sessions", self._episode_body(task_id, seed)).json()
        return Episode(str(data["session_id"]), data["observation"], data["info"])

    def open(self, task_id: str | None = None, seed: int | None = None) -> str:
        """Open a session on ``task_id`` (default: drawn with ``seed``); its id, for the agent."""
        return self.start(task_id, seed).session_id

    def reset(self, session_id: str, task_id: str | None = None, seed: int | None = None) -> Episode:
        """Start the session's next episode on ``task_id`` (default: drawn with ``seed``)."""
        data = self._call("POST", f"/trainer/sessions/{session_id}/reset", self._episode_body(task_id, seed)).json()
        return Episode(session_id, data["observation"], data["info"])

    def verdict(self, session_id: str) -> dict[str, Any] | None:
        """The episode's final verdict (the first answer's, with expected and observed values), or None
        while the episode has no answer. ``task_id`` and ``assigned_task_id`` name the scored and the
        assigned task; a verdict whose two differ has status ``error``."""
        verdict = self._call("GET", f"/trainer/sessions/{session_id}/verdict").json()["verdict"]
        return dict(verdict) if verdict is not None else None

    def verify(self, session_id: str, answer: Any = None) -> dict[str, Any]:
        """Score the current state (and ``answer``) without ending the episode: the full verdict plus
        ``episode_done``."""
        return dict(self._call("POST", f"/trainer/sessions/{session_id}/verify", {"answer": answer}).json())

    def close(self, session_id: str) -> bool:
        """Close the session; False if it was not open (closed, reaped or never made)."""
        try:
            self._call("DELETE", f"/trainer/sessions/{session_id}")
        except TrainerError as exc:
            if exc.status == 404:
                return False
            raise
        return True
