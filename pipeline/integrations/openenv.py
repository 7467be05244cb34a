"""A bundle as an OpenEnv environment (``openenv-core``): WebSocket episodes, MCP tools.

``create_openenv_app(bundle)`` is OpenEnv's own FastAPI server (``/health``, ``/schema``,
``/metadata``, ``/state``, WebSocket ``/ws`` and JSON-RPC MCP at ``/mcp``) around
:class:`BundleEnvironment`, one instance per WebSocket session under a cap and an idle
timeout.

**Episode control is the trainer's.** Only ``reset`` starts an episode, and no tool the
agent sees can call it. OpenEnv's clients pass ``reset(**kwargs)`` through to the
environment and have no way to set request headers, so when the server has a trainer
token (``synthenv serve --protocol openenv --trainer-token`` / ``SYNTHENV_TRAINER_TOKEN``)
the trainer passes it as a reset argument: ``reset(task_id=..., trainer_token=TOKEN)``.
Without ``seed`` and ``task_id`` the task is drawn from an unpredictable seed.

**Two ways to play**, both over the WebSocket ``/ws`` (one session per connection):

* ``EnvClient`` / ``GenericEnvClient``: ``reset(...)``, ``step({"tool": name, "arguments":
  {...}})``, finally ``step({"answer": value})``.
* ``MCPToolClient`` in its default mode: ``reset(...)``, ``list_tools()``, ``call_tool(name,
  **arguments)``, finally ``call_tool("submit_answer", answer=...)``. ``call_tool``'s own
  first parameter is ``name``, so a tool argument called ``name`` goes as
  ``call_tool(tool, arguments={"name": ...})``: a call whose only argument is
  ``arguments`` (an object), to a tool without such a parameter, is unwrapped.

OpenEnv's plain ``POST /reset`` and ``/step`` build a fresh environment per request, so
they cannot hold an episode: both answer 409 naming the WebSocket clients. OpenEnv's
JSON-RPC ``/mcp`` over HTTP lists the tools; it has no reset, so a tool call there answers
a ``no_episode`` error saying the same.

Every step's observation carries, in fields OpenEnv serialises (``metadata`` is dropped on
the wire): ``status`` (``passed`` / ``failed`` / ``error``) and ``reason`` once the episode
has ended, ``task_id`` (the task scored) and ``assigned_task_id`` (the task reset
assigned); a verdict on another task than the one assigned is ``error``. The first final
verdict stands: later steps answer ``episode_over`` and change nothing. Observations never
carry the verifier's expected values.

Episode work runs on the server's event loop (``reset_async`` / ``step_async``): each is
sub-millisecond in-memory SQLite, so sessions need neither threads nor locks.
"""

from __future__ import annotations

import copy
import hmac
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

# openenv-core imports gradio and huggingface_hub; neither is used here, and neither may phone home.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment as OpenEnvEnvironment
from openenv.core.env_server.mcp_types import (
    CallToolAction,
    CallToolObservation,
    ListToolsAction,
    ListToolsObservation,
    Tool,
)
from openenv.core.env_server.types import Action, ConcurrencyConfig, EnvironmentMetadata, Observation

from pipeline.integrations.episode import agent_info, is_procedural, open_env, status_of
from pipeline.integrations.openenv_guard import (
    DEFAULT_MAX_SESSIONS_PER_CLIENT,
    SessionCreateNeedsToken,
    SessionsPerClient,
)
from pipeline.integrations.openenv_models import BundleAction, BundleObservation, BundleState
from pipeline.integrations.trajectory import RecordTrajectory, TrajectoryWriter
from pipeline.runtime import wire
from pipeline.server.guard import DEFAULT_BODY_TIMEOUT, RequestGuard, allowed_hosts_from_env
from pipeline.server.limits import DEFAULT_MAX_ROWS, DEFAULT_MAX_WRITES, Budget
from pipeline.surface import EPISODE_OVER_TEXT, answer_tool, surface_of

__all__ = [
    "BundleAction",
    "BundleEnvironment",
    "BundleObservation",
    "BundleState",
    "create_openenv_app",
    "environment_factory",
]

MAX_SEED = 2**63 - 1
USE_WEBSOCKET = (
    "OpenEnv's HTTP /reset and /step build a fresh environment per request, so they cannot hold an "
    "episode: play it over the WebSocket /ws (openenv.core EnvClient, GenericEnvClient, or MCPToolClient "
    "in its default mode)"
)


def _error(code: str, message: str) -> wire.ErrorObservation:
    return {"type": "error", "error": {"code": code, "message": message}}


def _reason(status: str, verification: Mapping[str, Any]) -> str:
    """The verdict in words, from what the agent may see of it (check names, never expected values)."""
    if status == "error":
        return str(verification.get("error") or "the verification could not run")
    checks = verification.get("checks") or []
    failed = [str(c.get("name")) for c in checks if isinstance(c, dict) and not c.get("passed")]
    if status == "passed":
        return "every check passed" if checks else "the answer is correct"
    if failed:
        return "checks failed: " + ", ".join(failed)
    return f"the answer scored {verification.get('reward', 0.0)}"


class _Tool:
    """One tool in the shape OpenEnv's HTTP MCP handler reads: name, description, parameters, fn."""

    def __init__(self, name: str, description: str, parameters: dict[str, Any], fn: Callable[..., Any]) -> None:
        self.name, self.description, self.parameters, self.fn = name, description, parameters, fn


class _Tools:
    """The tools of one session, listed the way OpenEnv asks a FastMCP server for them."""

    def __init__(self, tools: list[_Tool]) -> None:
        self._tools = tools

    async def list_tools(self) -> list[_Tool]:
        return list(self._tools)


class BundleEnvironment(OpenEnvEnvironment):
    """One session: a fork of the bundle's environment (its own state copy after reset)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, env: Any, trainer_token: str | None = None) -> None:
        super().__init__()
        self.env = env
        self._token = trainer_token
        self._episode_id: str | None = None
        self._steps = 0
        self._task_id: str | None = None
        self._final: BundleObservation | None = None
        self.surface = surface_of(env)
        # A procedural bundle is single-turn (its surface lists no tools); over MCP it still needs the answer tool.
        specs = self.surface.tools or [answer_tool()]
        self._specs = {s["name"]: s for s in specs}
        self.mcp_server = _Tools(
            [_Tool(s["name"], s["description"], s["parameters"], self._http_caller(s["name"])) for s in specs]
        )

    # -- the OpenEnv contract ---------------------------------------------------------------

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        trainer_token: str | None = None,
        **_: Any,
    ) -> BundleObservation:
        """Start an episode (the trainer's call): ``task_id`` picks the task, else ``seed`` draws it."""
        if self._token is not None and not (
            isinstance(trainer_token, str) and hmac.compare_digest(trainer_token.encode(), self._token.encode())
        ):
            raise PermissionError("reset needs the server's trainer token: reset(..., trainer_token=TOKEN)")
        if seed is None and task_id is None:
            seed = secrets.randbelow(MAX_SEED)
        obs, info = self.env.reset(task_id=task_id, seed=seed)
        self._episode_id, self._steps, self._final = episode_id, 0, None
        self._task_id = str(info["task_id"])
        return BundleObservation(
            content=obs,
            done=False,
            reward=0.0,
            task_id=self._task_id,
            assigned_task_id=self._task_id,
            text=self.surface.observe(obs),
            system=self.surface.system,
            metadata={"bundle": info.get("bundle"), "digest": info.get("digest")},
        )

    async def reset_async(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        trainer_token: str | None = None,
        **kw: Any,
    ) -> BundleObservation:
        return self.reset(seed=seed, episode_id=episode_id, task_id=task_id, trainer_token=trainer_token)

    def step(self, action: Action, timeout_s: float | None = None, **_: Any) -> Observation:
        if isinstance(action, ListToolsAction):
            tools = [
                Tool(name=s["name"], description=s["description"], input_schema=s["parameters"])
                for s in self._specs.values()
            ]
            return ListToolsObservation(tools=tools)
        if isinstance(action, CallToolAction):
            obs = self.play(self._call_action(action.tool_name, action.arguments))
            return CallToolObservation(
                tool_name=action.tool_name, result=self._mcp_result(obs), done=obs.done, reward=obs.reward
            )
        if not isinstance(action, BundleAction):
            raise ValueError(f"unexpected action {type(action).__name__}")
        return self.play(action.as_env_action())

    async def step_async(self, action: Action, timeout_s: float | None = None, **kw: Any) -> Observation:
        return self.step(action)

    @property
    def state(self) -> BundleState:
        bundle = self.env.bundle
        return BundleState(
            episode_id=self._episode_id,
            step_count=self._steps,
            task_id=self._task_id,
            bundle=bundle.ref,
            digest=bundle.digest,
            done=self._final is not None,
        )

    def get_metadata(self) -> EnvironmentMetadata:
        bundle = self.env.bundle
        kind = "procedural" if is_procedural(self.env) else "tool-use"
        return EnvironmentMetadata(
            name=bundle.name,
            description=f"synthenv {kind} bundle {bundle.ref} ({bundle.digest}), {len(self.env.tasks)} tasks",
            version=bundle.version,
        )

    def close(self) -> None:
        self.env.close()

    # -- one step of the episode -------------------------------------------------------------

    def play(self, env_action: wire.Action) -> BundleObservation:
        """One environment action, under the episode rules: none before reset, none after the end."""
        if self._task_id is None:
            message = "no episode is running: the trainer starts one with reset() over the WebSocket /ws"
            content = _error("no_episode", message)
            return BundleObservation(content=content, text=self.surface.observe(content), done=False, reward=0.0)
        final = self._final
        if final is not None:
            content = _error("episode_over", EPISODE_OVER_TEXT)
            update: dict[str, Any] = {
                "content": content,
                "text": EPISODE_OVER_TEXT,
                "signals": {},
                "components": {},
                "reward": None,
            }
            return final.model_copy(update=update)
        obs, reward, terminated, truncated, info = self.env.step(env_action)
        self._steps += 1
        done = bool(terminated or truncated)
        components = {k: float(v) for k, v in (info.get("components") or {}).items()}
        out = BundleObservation(
            content=obs,
            signals=agent_info(info),
            components=components,
            done=done,
            reward=float(reward),
            assigned_task_id=self._task_id,
            task_id=self._task_id,
            text=self.surface.observe(obs, env_action),
        )
        if done:
            out = self._verdict(out, float(reward), info)
            self._final = out
        return out

    def _verdict(self, obs: BundleObservation, reward: float, info: wire.StepInfo) -> BundleObservation:
        """The final observation with its status; a verdict on a task other than the one assigned is ``error``."""
        found = info.get("verification")
        verification: Mapping[str, Any] = found if isinstance(found, dict) else {}
        status = status_of(reward, info)
        scored = str(verification.get("task_id") or self._task_id)
        assigned = str(verification.get("assigned_task_id") or self._task_id)
        reason = _reason(status, verification)
        if scored != assigned or assigned != self._task_id:
            status, reward = "error", 0.0
            reason = f"the verdict scored task {scored!r}, but the episode was assigned {self._task_id!r}"
        return obs.model_copy(
            update={"status": status, "reason": reason, "task_id": scored, "reward": reward, "metadata": {}}
        )

    # -- MCP tools (WebSocket and HTTP) --------------------------------------------------------

    def _call_action(self, name: str, arguments: dict[str, Any]) -> wire.Action:
        """A tool call as an environment action; ``{"arguments": {...}}`` is unwrapped (see module doc)."""
        spec = self._specs.get(name)
        params = (spec or {}).get("parameters", {}).get("properties", {})
        if set(arguments) == {"arguments"} and isinstance(arguments["arguments"], dict) and "arguments" not in params:
            arguments = arguments["arguments"]
        return self.surface.action(name, arguments)

    @staticmethod
    def _mcp_result(obs: BundleObservation) -> dict[str, Any]:
        """What an MCP tool call returns: the observation, and the verdict once the episode has ended."""
        result = {**obs.content, "text": obs.text, "done": obs.done}
        if obs.status is not None:
            result.update(
                reward=obs.reward,
                status=obs.status,
                reason=obs.reason,
                task_id=obs.task_id,
                assigned_task_id=obs.assigned_task_id,
            )
        return result

    def _http_caller(self, name: str) -> Callable[..., Any]:
        def call(**arguments: Any) -> dict[str, Any]:
            return self._mcp_result(self.play(self._call_action(name, arguments)))

        call.__name__ = name
        return call


class _QuietDisconnect:
    """ASGI middleware: OpenEnv's WebSocket handler closes the socket in ``finally`` and
    raises when the client has already gone; that is a normal end of a session, not an
    error worth a traceback in the server log."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.websockets import WebSocketDisconnect

        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect:
            if scope.get("type") != "websocket":
                raise


def environment_factory(
    bundle_path: str | Path,
    trajectories: str | Path | TrajectoryWriter | None = None,
    trainer_token: str | None = None,
    max_writes: int = DEFAULT_MAX_WRITES,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> Callable[[], BundleEnvironment]:
    """A factory OpenEnv calls once per session: the bundle is loaded and checked once, then forked.
    A tool-use session's episode may make ``max_writes`` writes and create ``max_rows`` rows, as
    under ``synthenv serve`` (:mod:`pipeline.server.limits`)."""
    template = open_env(bundle_path)
    writer = TrajectoryWriter(trajectories) if isinstance(trajectories, (str, Path)) else trajectories
    budgeted = not is_procedural(template)

    def make() -> BundleEnvironment:
        env: Any = copy.copy(template)
        if writer is not None:
            env = RecordTrajectory(env, writer)
        if budgeted:
            env = Budget(env, max_writes, max_rows)
        return BundleEnvironment(env, trainer_token)

    make.__name__ = f"synthenv_{template.bundle.name}"
    make.template = template  # type: ignore[attr-defined]
    return make


def _stateless_routes_refuse(app: Any) -> None:
    """Swap OpenEnv's per-request ``POST /reset`` and ``/step`` for a 409 naming the WebSocket clients.

    The paths stay (OpenEnv's runtime validator reads ``/reset``, ``/step`` and ``/state``
    together as its simulation mode); only their answer changes.
    """
    from fastapi.responses import JSONResponse

    app.router.routes[:] = [
        r for r in app.router.routes if not (getattr(r, "path", None) in ("/reset", "/step") and "POST" in r.methods)
    ]

    async def refuse() -> JSONResponse:
        return JSONResponse({"code": "use_websocket", "detail": USE_WEBSOCKET}, status_code=409)

    for path in ("/reset", "/step"):
        app.add_api_route(path, refuse, methods=["POST"], tags=["Environment Control"], summary=USE_WEBSOCKET)


def create_openenv_app(
    bundle_path: str | Path,
    max_sessions: int = 256,
    session_ttl: float | None = 900.0,
    trajectories: str | Path | TrajectoryWriter | None = None,
    trainer_token: str | None = None,
    allowed_hosts: Sequence[str] | None = None,
    max_body_bytes: int = 1 << 20,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    max_writes: int = DEFAULT_MAX_WRITES,
    max_rows: int = DEFAULT_MAX_ROWS,
    max_sessions_per_client: int = DEFAULT_MAX_SESSIONS_PER_CLIENT,
) -> Any:
    """OpenEnv's FastAPI app serving ``bundle_path``: at most ``max_sessions`` live sessions,
    each closed after ``session_ttl`` idle seconds, and at most ``max_sessions_per_client`` live
    WebSockets from one client address (the next is a 503 with ``Retry-After`` before the upgrade,
    :class:`pipeline.integrations.openenv_guard.SessionsPerClient`); ``reset`` needs
    ``trainer_token`` when given.

    It runs behind ``synthenv serve``'s guard (:class:`pipeline.server.guard.RequestGuard`):
    loopback hosts and origins only unless ``allowed_hosts`` (or ``SYNTHENV_ALLOWED_HOSTS``)
    says otherwise, for HTTP and the WebSocket alike; JSON bodies only, at most
    ``max_body_bytes``, read within ``body_timeout`` seconds. With a ``trainer_token``, a session
    opened over HTTP (``openenv/session/create``) needs it too
    (:mod:`pipeline.integrations.openenv_guard`): the slots are the WebSocket clients'."""
    if max_sessions < 1:
        raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
    if max_sessions_per_client < 1:
        raise ValueError(f"max_sessions_per_client must be at least 1, got {max_sessions_per_client}")
    if trainer_token is not None:
        from pipeline.server.trainer import check_token

        trainer_token = check_token(trainer_token)
    writer = TrajectoryWriter(trajectories) if isinstance(trajectories, (str, Path)) else trajectories
    factory = environment_factory(bundle_path, writer, trainer_token, max_writes, max_rows)
    app = create_fastapi_app(
        factory,
        BundleAction,
        BundleObservation,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=session_ttl),
    )
    _stateless_routes_refuse(app)
    app.state.bundle = factory.template.bundle  # type: ignore[attr-defined]
    app.add_middleware(_QuietDisconnect)
    if trainer_token is not None:  # inside the guard: HTTP sessions are the trainer's
        app.add_middleware(SessionCreateNeedsToken, token=trainer_token)
    # Inside the guard: a refused host holds none.
    app.add_middleware(SessionsPerClient, limit=max_sessions_per_client, total=max_sessions)
    app.add_middleware(
        RequestGuard,
        allowed_hosts=list(allowed_hosts) if allowed_hosts is not None else allowed_hosts_from_env(),
        max_body=max_body_bytes,
        body_timeout=body_timeout,
    )
    if writer is not None and writer is not trajectories:
        app.router.on_shutdown.append(writer.close)
    return app
