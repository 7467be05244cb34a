"""A bundle as an OpenEnv environment (``openenv-core``): HTTP, WebSocket and MCP.

``create_openenv_app(bundle)`` is OpenEnv's own FastAPI server (``/reset``, ``/step``,
``/state``, ``/health``, ``/schema``, ``/metadata``, WebSocket ``/ws`` and JSON-RPC MCP at
``/mcp``) around :class:`BundleEnvironment`, one instance per session under a cap and an
idle timeout. Two ways to play an episode:

* **WebSocket** (OpenEnv's ``EnvClient`` / ``GenericEnvClient``): ``reset(task_id=..., seed=...)``,
  then ``step({"tool": name, "arguments": {...}})`` and finally ``step({"answer": value})``;
  the reward arrives on that final observation (``done`` true).
* **HTTP MCP** (OpenEnv's ``MCPToolClient``; sessions via ``openenv/session/create``):
  ``start_task`` opens the episode and returns the instruction, the bundle's tools act,
  ``submit_answer`` ends it and returns the reward. OpenEnv's plain ``POST /reset`` and
  ``/step`` build a fresh environment per request (its stateless mode), so a multi-step
  episode over HTTP goes through these sessions.

A malformed action (unknown field, both or neither of ``tool`` / ``answer``) is refused
by the action model with a validation error naming the field; a well-formed action the
environment cannot carry out (unknown tool, wrong arguments) comes back as an
observation with a typed error, as in process. Observations never carry the verifier's
expected values; ``metadata`` of the final one holds the verdict and reward components.

Episode work runs on the server's event loop (``reset_async`` / ``step_async``): each is
sub-millisecond in-memory SQLite, so sessions need neither threads nor locks.
"""

from __future__ import annotations

import copy
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

# openenv-core imports gradio and huggingface_hub; neither is used here, and neither may phone home.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment as OpenEnvEnvironment
from openenv.core.env_server.types import Action, ConcurrencyConfig, EnvironmentMetadata, Observation, State
from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from pipeline.integrations.episode import (
    ANSWER_TOOL,
    agent_info,
    answer_tool_spec,
    decode_answer,
    is_procedural,
    open_env,
    status_of,
    tool_specs,
)
from pipeline.integrations.trajectory import RecordTrajectory, TrajectoryWriter

START_TOOL = "start_task"
MAX_SEED = 2**63 - 1


class BundleAction(Action):
    """``{"tool": name, "arguments": {...}}`` or ``{"answer": value}``, nothing else."""

    tool: str | None = Field(default=None, description="name of the tool to call")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments (its JSON Schema)")
    answer: Any = Field(default=None, description="the final answer; ends the episode")

    # PydanticCustomError, not ValueError: OpenEnv sends validation errors back as JSON, and a
    # ValueError inside them cannot be serialised (the client would only see a session error).
    @model_validator(mode="after")
    def _one_kind(self) -> BundleAction:
        given = self.model_fields_set
        if "answer" in given and ({"tool", "arguments"} & given):
            raise PydanticCustomError(
                "action_kind", "an action is either a tool call (tool, arguments) or an answer, not both"
            )
        if "answer" not in given and self.tool is None:
            raise PydanticCustomError("action_kind", "an action needs 'tool' (with 'arguments') or 'answer'")
        return self

    def as_env_action(self) -> dict[str, Any]:
        if "answer" in self.model_fields_set:
            return {"answer": self.answer}
        return {"tool": self.tool, "arguments": self.arguments}


class BundleObservation(Observation):
    """What the agent sees: the environment's observation and the step's signals."""

    content: dict[str, Any] = Field(default_factory=dict, description="the observation (instruction, result, error)")
    signals: dict[str, Any] = Field(default_factory=dict, description="call_valid, call_succeeded, step")


class BundleState(State):
    task_id: str | None = None
    bundle: str | None = None
    digest: str | None = None


class _Tool:
    """One tool in the shape OpenEnv's MCP handler reads: name, description, parameters, fn."""

    def __init__(self, name: str, description: str, parameters: dict[str, Any], fn: Callable[..., Any]) -> None:
        self.name, self.description, self.parameters, self.fn = name, description, parameters, fn


class _Tools:
    """The tools of one session, listed the way OpenEnv asks a FastMCP server for them."""

    def __init__(self, tools: list[_Tool]) -> None:
        self._tools = tools

    async def list_tools(self) -> list[_Tool]:
        return list(self._tools)


def _start_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "task_id": {"type": "string", "description": "a task id of the bundle (default: drawn by seed)"},
            "seed": {"type": "integer", "minimum": 0, "description": "seed for drawing the task"},
        },
        "additionalProperties": False,
    }


class BundleEnvironment(OpenEnvEnvironment):
    """One session: a fork of the bundle's environment (its own state copy after reset)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, env: Any, seeds: random.Random | None = None) -> None:
        super().__init__()
        self.env = env
        self._seeds = seeds or random.Random(0)
        self._episode_id: str | None = None
        self._steps = 0
        self._task_id: str | None = None
        specs = [*tool_specs(env), answer_tool_spec()]
        if is_procedural(env):
            specs = [answer_tool_spec()]
        start = "Start an episode: returns the instruction to carry out."
        tools = [_Tool(START_TOOL, start, _start_schema(), self._start)]
        tools += [_Tool(s["name"], s["description"], s["parameters"], self._caller(s["name"])) for s in specs]
        self.mcp_server = _Tools(tools)

    # -- the OpenEnv contract ---------------------------------------------------------------

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None, **_: Any
    ) -> BundleObservation:
        if seed is None and task_id is None:
            # Forks share the template's RNG object; a drawn seed gives each episode its own.
            seed = self._seeds.randrange(MAX_SEED)
        obs, info = self.env.reset(task_id=task_id, seed=seed)
        self._episode_id, self._steps, self._task_id = episode_id, 0, str(info["task_id"])
        return BundleObservation(
            content=obs,
            signals={},
            done=False,
            reward=0.0,
            metadata={"task_id": self._task_id, "bundle": info.get("bundle"), "digest": info.get("digest")},
        )

    async def reset_async(
        self, seed: int | None = None, episode_id: str | None = None, task_id: str | None = None, **kw: Any
    ) -> BundleObservation:
        return self.reset(seed=seed, episode_id=episode_id, task_id=task_id)

    def step(self, action: BundleAction, timeout_s: float | None = None, **_: Any) -> BundleObservation:
        obs, reward, terminated, truncated, info = self.env.step(action.as_env_action())
        self._steps += 1
        done = bool(terminated or truncated)
        metadata: dict[str, Any] = {"components": dict(info.get("components") or {})}
        if done:
            metadata["status"] = status_of(float(reward), info)
        return BundleObservation(
            content=obs, signals=agent_info(info), done=done, reward=float(reward), metadata=metadata
        )

    async def step_async(self, action: BundleAction, timeout_s: float | None = None, **kw: Any) -> BundleObservation:
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

    # -- MCP tools (the HTTP path) ---------------------------------------------------------

    def _start(self, task_id: str | None = None, seed: int | None = None) -> dict[str, Any]:
        obs = self.reset(seed=seed, task_id=task_id)
        return {**obs.content, "task_id": self._task_id}

    def _caller(self, name: str) -> Callable[..., Any]:
        def call(**arguments: Any) -> dict[str, Any]:
            if name == ANSWER_TOOL:
                action = BundleAction(answer=decode_answer(arguments.get("answer")))
            else:
                action = BundleAction(tool=name, arguments=arguments)
            obs = self.step(action)
            result = {**obs.content, "done": obs.done}
            if obs.done:
                result.update(reward=obs.reward, status=obs.metadata.get("status"))
            return result

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
    bundle_path: str | Path, trajectories: str | Path | TrajectoryWriter | None = None
) -> Callable[[], BundleEnvironment]:
    """A factory OpenEnv calls once per session: the bundle is loaded and checked once, then forked."""
    template = open_env(bundle_path)
    writer = TrajectoryWriter(trajectories) if isinstance(trajectories, (str, Path)) else trajectories
    seeds = random.Random(0)

    def make() -> BundleEnvironment:
        env: Any = copy.copy(template)
        if writer is not None:
            env = RecordTrajectory(env, writer)
        return BundleEnvironment(env, seeds)

    make.__name__ = f"synthenv_{template.bundle.name}"
    make.template = template  # type: ignore[attr-defined]
    return make


def create_openenv_app(
    bundle_path: str | Path,
    max_sessions: int = 256,
    session_ttl: float | None = 900.0,
    trajectories: str | Path | TrajectoryWriter | None = None,
) -> Any:
    """OpenEnv's FastAPI app serving ``bundle_path``: at most ``max_sessions`` live sessions,
    each closed after ``session_ttl`` idle seconds."""
    if max_sessions < 1:
        raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
    writer = TrajectoryWriter(trajectories) if isinstance(trajectories, (str, Path)) else trajectories
    factory = environment_factory(bundle_path, writer)
    app = create_fastapi_app(
        factory,
        BundleAction,
        BundleObservation,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=session_ttl),
    )
    app.state.bundle = factory.template.bundle  # type: ignore[attr-defined]
    app.add_middleware(_QuietDisconnect)
    if writer is not None and writer is not trajectories:
        app.router.on_shutdown.append(writer.close)
    return app
