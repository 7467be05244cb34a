"""One episode: reset, let the agent act until it answers or the step budget runs out, score.

Every call the agent makes is an environment step (a malformed call too: the environment
answers it with a typed error, as it would any bad action), so the step count, the tool
errors and the trajectory log all come from one place. The agent sees the instruction,
the tool specs and the rendered observations; ``info`` (which, on the final step, holds
the verifier's report) never reaches it.

Outcomes: ``passed`` / ``failed`` from the verifier (a run-out budget is ``failed``: the
agent never answered); ``error`` when the agent's provider failed or timed out, the
environment raised instead of answering, or the verifier reported that it could not run.
Errors are kept apart and never scored.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from generators.base import stable_seed
from pipeline.evaluate import trajectory
from pipeline.evaluate.agent import AgentError, EpisodeStart, Policy, Reference, Usage, openai_tools
from pipeline.evaluate.config import EvalConfig
from pipeline.integrations.episode import verdict_status
from pipeline.runtime.verify import expected_refusals
from pipeline.runtime.wire import Action, AnswerAction, Observation
from pipeline.runtime.wrappers import StepLimit
from pipeline.surface import Surface, decode_answer, surface_of


@dataclass
class EpisodeResult:
    """One row of ``episodes.jsonl``: what the report is computed from."""

    task_id: str
    trial: int
    family: str
    level: int
    status: str
    """``passed``, ``failed`` or ``error``."""
    reward: float
    steps: int
    tool_calls: int
    tool_errors: int
    end: str
    """``answer`` (a final answer was scored), ``max_steps``; errors: ``provider``, ``verifier``, ``environment``."""
    error: str | None = None
    episode: str | None = None
    """The episode's id in the trajectory log."""
    seconds: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def episode_seed(digest: str, task_id: str, trial: int) -> int:
    """A seed for scripted randomness, a pure function of (bundle, task, trial)."""
    return stable_seed(digest, task_id, trial)


def reference_of(env: Any, task_id: str, surface: Surface | None = None) -> Reference:
    """The task's reference solution (trainer-side: only the upper-bound policy is given it), its calls
    written as a model writes them with ``surface``'s tools (so the upper bound goes through them too)."""
    for task in env.tasks:
        if isinstance(task, dict):  # a procedural item
            if task["id"] == task_id:
                return Reference((), task["answer"])
        elif task.id == task_id:
            calls = [(c.tool, dict(c.arguments)) for c in task.solution]
            literal = _literal_calls(task, calls)
            if surface is not None:
                calls = [surface.call(tool, args) for tool, args in calls]
                literal = [surface.call(tool, args) for tool, args in literal]
            knobs = task.knobs
            first = (knobs.get("wrong_picks") or {}).get("first")
            pick = (knobs["chosen"], first) if isinstance(first, int) and isinstance(knobs.get("chosen"), int) else None
            return Reference(
                tuple(calls),
                task.answer,
                tuple(literal),
                knobs.get("literal_answer"),
                knobs.get("first_answer"),
                pick,
            )
    raise ValueError(f"unknown task {task_id!r}")


def _literal_calls(task: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """What doing exactly what the request says does: the reference plus the operation on every record
    the policy refuses; for a choice by what each record comes to, the operation on the one that would
    come to the most with the staff rules ignored, instead of the policy's choice."""
    op, chosen = task.knobs.get("operation"), task.knobs.get("chosen")
    blind = (task.knobs.get("wrong_picks") or {}).get("policy")
    if isinstance(op, str) and isinstance(chosen, int) and isinstance(blind, int):
        calls = [(t, {**a, "id": blind}) if t == op and a.get("id") == chosen else (t, a) for t, a in calls]
    return calls + _forbidden_calls(task)


def _forbidden_calls(task: Any) -> list[tuple[str, dict[str, Any]]]:
    """The operation on every record a task refuses by policy (``knobs["operation"]``): what doing
    exactly what the request says would add to the reference."""
    op = task.knobs.get("operation")
    if not isinstance(op, str):
        return []
    second = task.knobs.get("second")  # a second request's record takes its own operation
    other = (second["id"], second["operation"]) if isinstance(second, dict) else (None, op)
    refused = [r for r in expected_refusals(task.verifier.answer) if r.get("cannot") == "policy"]
    return [(other[1] if r["id"] == other[0] else op, {"id": r["id"]}) for r in refused]


def is_procedural(env: Any) -> bool:
    return bool(env.bundle.manifest.kind == "procedural")


def specs_of(env: Any) -> list[dict[str, Any]]:
    specs = getattr(env, "tool_specs", None)
    return list(specs()) if callable(specs) else []


def run_episode(env: Any, writer: Any, policy: Policy, config: EvalConfig, task_id: str, trial: int) -> EpisodeResult:
    """Play ``task_id`` once (trial ``trial``) with ``policy``; every step goes to ``writer``'s log.

    The budget is a :class:`StepLimit` over the logged environment (outside the log, so the log
    holds what the environment answered and the run-out budget is one ``cut`` row after it): every
    call and the answer are steps, and a turn with no call spends one through ``idle``.
    """
    began = time.perf_counter()
    model = getattr(getattr(policy, "settings", None), "model", None)  # the evaluated model, or the policy's name
    logged = trajectory.record(
        env, writer, model=model if isinstance(model, str) else policy.name, rollout_id=f"{task_id}/{trial}"
    )
    limited = StepLimit(logged, config.max_steps)
    obs: Observation
    obs, info = limited.reset(task_id=task_id)
    surface = surface_of(env, config.observation_chars)
    procedural = is_procedural(env)
    start = EpisodeStart(
        task_id=task_id,
        trial=trial,
        seed=episode_seed(env.bundle.digest, task_id, trial),
        instruction=str(obs["instruction"]),
        tools=openai_tools(surface.tools, config.answer_tool),
        procedural=procedural,
        reference=reference_of(env, task_id, surface) if policy.needs_reference else None,
        system=config.prompt(procedural, surface.system),
    )
    result = EpisodeResult(task_id, trial, str(info["family"]), int(info["level"]), "failed", 0.0, 0, 0, 0, "max_steps")
    result.episode = logged._episode
    agent = policy.agent(start)
    feedback: list[tuple[str, str]] = []
    try:
        while not limited.spent and result.end == "max_steps":
            try:
                turn = agent.act(feedback)
            except AgentError as exc:
                result.status, result.end, result.error = "error", "provider", str(exc)[:500]
                trajectory.cut(logged, "error", result.error)
                break
            feedback = []
            if turn.text:
                trajectory.note(logged, turn.text)
            if turn.final:
                _finish(limited, result, {"answer": turn.answer}, task_id)
                break
            if not turn.calls:  # a nudge: the turn cost a step and did nothing
                limited.idle()
                continue
            for call in turn.calls:
                if limited.spent:
                    break
                args = call.arguments
                if call.name == config.answer_tool and isinstance(args, dict) and set(args) == {"answer"}:
                    _finish(limited, result, {"answer": decode_answer(args["answer"])}, task_id)
                    break
                action = surface.action(call.name, args)  # a malformed call too: the env says why
                obs = _step(limited, action)
                result.tool_calls += 1
                if obs.get("type") in ("tool_error", "error"):
                    result.tool_errors += 1
                feedback.append((call.id, surface.observe(obs, action)))
        else:
            if result.end == "max_steps":
                trajectory.cut(logged, "failed", f"no answer within {config.max_steps} steps")
    except EnvironmentFailure as exc:  # the log already holds its error row
        result.status, result.end, result.error = "error", "environment", str(exc)[:500]
    finally:
        result.steps = limited.steps
        result.seconds = round(time.perf_counter() - began, 6)
        result.usage = asdict(agent.usage) if isinstance(agent.usage, Usage) else {}
    return result


class EnvironmentFailure(RuntimeError):
    """The environment raised instead of answering: an infrastructure error, never the agent's fault."""


def _step(env: Any, action: Action) -> Observation:
    try:
        obs, *_ = env.step(action)
    except Exception as exc:
        raise EnvironmentFailure(f"{type(exc).__name__}: {exc}") from exc
    return obs


def _finish(env: Any, result: EpisodeResult, action: AnswerAction, task_id: str) -> None:
    """Score the final answer; the verifier's own ``error`` status stays an error, and so does a
    verdict on another task than ``task_id`` (masked, never scored)."""
    try:
        _, reward, _, _, info = env.step(action)
    except Exception as exc:
        raise EnvironmentFailure(f"{type(exc).__name__}: {exc}") from exc
    result.reward = float(reward)
    result.status = verdict_status(float(reward), info, task_id)
    result.end = "verifier" if result.status == "error" else "answer"
