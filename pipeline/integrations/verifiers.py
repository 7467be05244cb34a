"""A bundle as a verifiers environment (``verifiers`` 0.4, the v1 API: ``import verifiers.v1 as vf``).

``load_environment(bundle)`` returns a ``vf.Env`` ready for verifiers' own entry points
(``env.serving()`` then ``env.run_episode(task, ctx)`` / ``run_slot``): a ``BundleTaskset``
(one ``vf.Task`` per bundle task, carrying ids and the bundle digest, never the answer),
a ``BundleEnv`` and a ``ChatHarness``.

The environment plays the user, as verifiers' own OpenEnv taskset does. What the model
reads comes from :mod:`pipeline.surface`, as in every other adapter: the system text is
the task's ``system_prompt``; the first user turn lists the surface's tools (one JSON
object per line) and gives the instruction; each assistant reply is read as one JSON
call, ``{"tool": NAME, "arguments": {...}}`` (``submit_answer`` ends the episode;
``{"answer": VALUE}`` is taken too), stepped host-side; the observation text is the next
user turn. The episode ends with the answer (reward ``synthenv_reward`` on the trace, the
first verdict's), or after ``max_turns`` replies (0.0). An error verdict (an
infrastructure failure, or a verdict on another task) raises, so verifiers marks the
episode failed and leaves it out rather than training on it. Procedural bundles are
single-turn: the first reply is the answer.

``load_environment`` takes a bundle directory or a registry ref (``name@1.2.0``, with
``registry=``); ``vf-eval synthenv`` finds it through the ``synthenv`` package.

``ChatHarness`` is a minimal in-process chat loop: one completion per segment through
the rollout's interception endpoint (so the model client, the trace and its token
accounting are verifiers' own), no sandbox and no tools of its own. verifiers imports
plugins by a top-level module name: the package ``synthenv``
(``pipeline/integrations/plugins/synthenv``, installed under that name) re-exports this
module, and importing this module registers it as ``synthenv`` too when that package is
not installed (an install made before the name existed).

verifiers 0.4.0 pins ``mcp==2.0.0``, which cannot be installed beside the ``serve``
extra's ``mcp==2.3.0``: install the ``verifiers`` extra in an environment of its own.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.runtimes import ProgramResult, SubprocessConfig

from pipeline.integrations.episode import (
    ANSWER_TOOL,
    Episode,
    is_procedural,
    open_env,
    resolve,
    surface_of,
    task_ids,
)
from pipeline.runtime.wire import Action
from pipeline.surface import decode_answer

PLUGIN_ID = "synthenv"
__all__ = ["BundleEnv", "BundleTaskset", "ChatHarness", "load_environment"]
# Validating a config below imports the harness's module by its id. When this module is being
# imported on behalf of the ``synthenv`` package, that package is still half-made (no
# ``__all__``), so this module stands in for it; it exports the same names.
if not hasattr(sys.modules.get(PLUGIN_ID), "__all__"):
    sys.modules[PLUGIN_ID] = sys.modules[__name__]

_TEMPLATES: dict[str, Any] = {}


def _template(bundle: str) -> Any:
    key = str(Path(bundle).resolve())  # a directory: refs are resolved by load_environment
    if key not in _TEMPLATES:
        _TEMPLATES[key] = open_env(bundle)
    return _TEMPLATES[key]


class BundleData(vf.TaskData):
    bundle: str
    task_id: str
    digest: str


class BundleTask(vf.Task[BundleData]):
    @property
    def key(self) -> str:
        return f"{self.data.digest}:{self.data.task_id}"


class BundleTasksetConfig(vf.TasksetConfig):
    bundle: str = ""
    """The bundle: a directory, or a registry ref (``name``, ``name@1.2.0``, ``name@sha256:…``); digest-checked."""
    registry: str = ""
    """The registry a ref is pulled from (``artifacts/`` when empty)."""


class BundleTaskset(vf.Taskset[BundleTask, BundleTasksetConfig]):
    def load(self) -> Iterator[BundleTask]:
        if not self.config.bundle:
            raise ValueError("set the taskset's bundle (a bundle directory)")
        path = str(resolve(self.config.bundle, self.config.registry or None).resolve())
        env = _template(path)
        system = surface_of(env).system
        for task_id in task_ids(env):
            data = BundleData(
                id=task_id,
                name=task_id,
                prompt=None,
                system_prompt=system,
                bundle=path,
                task_id=task_id,
                digest=env.bundle.digest,
            )
            yield BundleTask(data, self.config.task)


class ChatHarnessConfig(vf.HarnessConfig):
    id: str = PLUGIN_ID


class ChatHarness(vf.Harness[ChatHarnessConfig]):
    """One chat completion per segment, in process, through the interception endpoint."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: Any,
        tool_interception_url: str | None = None,
    ) -> ProgramResult:
        from openai import AsyncOpenAI
        from verifiers.v1.dialects.chat import message_to_wire

        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt:
            messages += [message_to_wire(m) for m in prompt]
        client = AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0)
        try:
            reply = await client.chat.completions.create(model=ctx.model, messages=messages)  # type: ignore[arg-type]
        except Exception as exc:
            return ProgramResult(exit_code=1, stdout="", stderr=f"{type(exc).__name__}: {exc}")
        finally:
            await client.close()
        return ProgramResult(exit_code=0, stdout=reply.choices[0].message.content or "", stderr="")


REPLY_FORM = (
    'Reply with exactly one JSON object per turn: {"tool": NAME, "arguments": {...}} to call a tool '
    f"(the answer too: {ANSWER_TOOL}). Tools:"
)
BAD_REPLY = f'error: reply with one JSON object, {{"tool": NAME, "arguments": {{...}}}} (the answer: {ANSWER_TOOL})'


def parse_action(text: str, env: Any) -> Action | None:
    """A reply as an environment action: the whole text (or a fenced block) as one JSON call;
    a procedural reply is the answer as it is."""
    if is_procedural(env):
        return {"answer": text}
    body = text.strip()
    if body.startswith("```") and body.endswith("```"):
        body = "\n".join(body.splitlines()[1:-1]).strip()
    try:
        call = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested past the stack, still a malformed reply
        return None
    if not isinstance(call, dict):
        return None
    if set(call) == {"answer"}:
        return {"answer": decode_answer(call["answer"])}
    if isinstance(call.get("tool"), str) and set(call) <= {"tool", "arguments"}:
        return surface_of(env).action(call["tool"], call.get("arguments", {}))
    return None


def opening(env: Any, instruction: str) -> str:
    """The first user turn: the surface's tools (one JSON object a line), then the task."""
    surface = surface_of(env)
    if surface.procedural:
        return instruction
    tools = "\n".join(json.dumps(tool, ensure_ascii=False) for tool in surface.tools)
    return f"{REPLY_FORM}\n{tools}\n\nTask: {instruction}"


class BundleEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(harness=ChatHarnessConfig(), runtime=SubprocessConfig())
    """The in-process harness on a local runtime (the bundle runs host-side; nothing needs a sandbox)."""
    max_turns: int = Field(64, ge=1)
    """Replies at most (each spends one step of the episode's ``StepLimit``); an episode without an
    answer by then scores 0.0. Room for a careful agent on a level-5 sweep (18 to 40 tool calls seen)."""


class BundleEnv(vf.Env[BundleEnvConfig]):
    async def run(self, task: Any, agents: Any) -> None:
        import copy

        episode = Episode(copy.copy(_template(task.data.bundle)), max_steps=self.config.max_turns)
        instruction, _info = episode.reset(task_id=task.data.task_id)
        async with agents.agent.interaction(task) as interaction:
            segment = await interaction.turn(opening(episode.env, instruction))
            # Every reply spends one step of the episode's StepLimit: an action as an environment
            # step, a reply that is not one through ``idle``; the spent budget ends the episode.
            while not (segment.terminated or episode.done):
                action = parse_action(segment.last_reply or "", episode.env)
                if action is None:
                    episode.idle()
                    segment = await interaction.turn(BAD_REPLY)
                    continue
                text = episode.act(action)
                if episode.done:
                    break
                segment = await interaction.turn(text)
        episode.close()
        if episode.status == "error":
            raise RuntimeError(f"the environment failed to verify task {task.data.task_id} (infrastructure error)")
        trace = interaction.trace
        trace.record_reward("synthenv_reward", float(episode.reward or 0.0))
        trace.record_metric("synthenv_steps", float(episode.steps))


def _local_agent() -> vf.AgentConfig:
    return vf.AgentConfig(harness=ChatHarnessConfig(), runtime=SubprocessConfig())


def env_config(bundle: str | Path, max_turns: int = 64) -> BundleEnvConfig:
    """The run config: this taskset over ``bundle``, the in-process harness, a local runtime."""
    agent = _local_agent()
    taskset = BundleTasksetConfig(id=PLUGIN_ID, bundle=str(bundle))
    return BundleEnvConfig(id=PLUGIN_ID, taskset=taskset, agent=agent, max_turns=max_turns)


def load_environment(
    bundle: str | Path | None = None, max_turns: int = 64, registry: str | None = None, **_: Any
) -> BundleEnv:
    """A ``vf.Env`` over ``bundle``: a directory or a registry ref (``name``, ``name@1.2.0``, …) pulled
    from ``registry`` (``artifacts/`` by default); ``$SYNTHENV_BUNDLE`` when none is given
    (``load_environment`` is verifiers' conventional entry)."""
    import os

    bundle = bundle or os.environ.get("SYNTHENV_BUNDLE")
    if not bundle:
        raise ValueError("give the bundle: load_environment(bundle=...) or $SYNTHENV_BUNDLE")
    return BundleEnv(env_config(resolve(bundle, registry).resolve(), max_turns))
