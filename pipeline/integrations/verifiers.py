"""A bundle as a verifiers environment (``verifiers`` 0.4, the v1 API: ``import verifiers.v1 as vf``).

``load_environment(bundle)`` returns a ``vf.Env`` ready for verifiers' own entry points
(``env.serving()`` then ``env.run_episode(task, ctx)`` / ``run_slot``): a ``BundleTaskset``
(one ``vf.Task`` per bundle task, carrying ids and the bundle digest, never the answer),
a ``BundleEnv`` and a ``ChatHarness``.

The environment plays the user, as verifiers' own OpenEnv taskset does: the first user
turn is the how-to-act text and the instruction; each assistant reply is read as one JSON
action, ``{"tool": name, "arguments": {...}}`` or ``{"answer": value}``; the bundle's
environment steps it host-side and the observation is the next user turn. The episode
ends with the answer (reward ``synthenv_reward`` on the trace, 1.0 or 0.0 from the
verifier), or after ``max_turns`` replies (0.0). An infrastructure error raises, so
verifiers marks the episode failed and leaves it out rather than training on it.
Procedural bundles are single-turn: the first reply is the answer.

``ChatHarness`` is a minimal in-process chat loop: one completion per segment through
the rollout's interception endpoint (so the model client, the trace and its token
accounting are verifiers' own), no sandbox and no tools of its own. verifiers imports
plugins by a top-level module name, so importing this module registers it as
``synthenv_verifiers`` (the id its configs use).

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
from verifiers.v1.runtimes import ProgramResult, SubprocessConfig

from pipeline.integrations.episode import (
    is_procedural,
    open_env,
    render_observation,
    status_of,
    system_prompt,
    task_ids,
    tool_specs,
)

PLUGIN_ID = "synthenv_verifiers"
sys.modules.setdefault(PLUGIN_ID, sys.modules[__name__])
__all__ = ["BundleEnv", "BundleTaskset", "ChatHarness", "load_environment"]

_TEMPLATES: dict[str, Any] = {}


def _template(bundle: str) -> Any:
    key = str(Path(bundle).resolve())
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
    """Path of the bundle directory (digest-checked when loaded)."""


class BundleTaskset(vf.Taskset[BundleTask, BundleTasksetConfig]):
    def load(self) -> Iterator[BundleTask]:
        if not self.config.bundle:
            raise ValueError("set the taskset's bundle (a bundle directory)")
        env = _template(self.config.bundle)
        for task_id in task_ids(env):
            data = BundleData(
                id=task_id,
                name=task_id,
                prompt=None,
                bundle=self.config.bundle,
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


def parse_action(text: str, procedural: bool) -> dict[str, Any] | None:
    """A reply as an action: the whole text (or a fenced block) as one JSON object; a
    procedural reply is the answer as it is."""
    if procedural:
        return {"answer": text}
    body = text.strip()
    if body.startswith("```") and body.endswith("```"):
        body = "\n".join(body.splitlines()[1:-1]).strip()
    try:
        action = json.loads(body)
    except ValueError:
        return None
    return action if isinstance(action, dict) else None


def opening(env: Any, instruction: str) -> str:
    """The first user turn: how to act, the tools (name, description, JSON Schema), the task."""
    if is_procedural(env):
        return system_prompt(env) + "\n\n" + instruction
    tools = "\n".join(json.dumps(spec, sort_keys=True) for spec in tool_specs(env))
    return (
        "You are working in a software system through its tools. Reply with exactly one JSON object per "
        'turn: {"tool": NAME, "arguments": {...}} to call a tool, or {"answer": VALUE} to give the final '
        "answer (the value asked for, or why the request cannot be carried out), which ends the episode.\n\n"
        f"Tools:\n{tools}\n\nTask: {instruction}"
    )


class BundleEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig()
    max_turns: int = 32
    """Replies at most; an episode without an answer by then scores 0.0."""


class BundleEnv(vf.Env[BundleEnvConfig]):
    async def run(self, task: Any, agents: Any) -> None:
        import copy

        env = copy.copy(_template(task.data.bundle))
        procedural = is_procedural(env)
        obs, _info = env.reset(task_id=task.data.task_id)
        reward, status, steps = 0.0, "failed", 0
        async with agents.agent.interaction(task) as interaction:
            segment = await interaction.turn(opening(env, str(obs.get("instruction", ""))))
            for _ in range(self.config.max_turns):
                if segment.terminated:
                    break
                action = parse_action(segment.last_reply or "", procedural)
                if action is None:
                    message = 'error: reply with one JSON object, {"tool": ..., "arguments": {...}} or {"answer": ...}'
                    segment = await interaction.turn(message)
                    continue
                obs, step_reward, terminated, truncated, info = env.step(action)
                steps += 1
                if terminated or truncated:
                    reward, status = float(step_reward), status_of(float(step_reward), info)
                    break
                segment = await interaction.turn(render_observation(obs))
        env.close()
        if status == "error":
            raise RuntimeError(f"the environment failed to verify task {task.data.task_id} (infrastructure error)")
        trace = interaction.trace
        trace.record_reward("synthenv_reward", reward)
        trace.record_metric("synthenv_steps", float(steps))


def env_config(bundle: str | Path, max_turns: int = 32) -> BundleEnvConfig:
    """The run config: this taskset over ``bundle``, the in-process harness, a local runtime."""
    agent = vf.AgentConfig(harness=ChatHarnessConfig(), runtime=SubprocessConfig())
    taskset = BundleTasksetConfig(id=PLUGIN_ID, bundle=str(bundle))
    return BundleEnvConfig(id=PLUGIN_ID, taskset=taskset, agent=agent, max_turns=max_turns)


def load_environment(bundle: str | Path, max_turns: int = 32) -> BundleEnv:
    """A ``vf.Env`` over ``bundle`` (``load_environment`` is verifiers' conventional entry)."""
    return BundleEnv(env_config(bundle, max_turns))
