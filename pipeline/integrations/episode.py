"""What every trainer adapter shares: open a bundle of either kind, say what the agent sees.

The adapters are built on the public episode contract alone (``reset`` / ``step`` /
``close`` / ``tool_specs``), so they work the same over a tool-use ``Environment`` and a
single-turn ``ProceduralEnvironment``. Nothing here reads a task's expected answer: the
agent-facing text is the observation, and the trainer-facing verdict is reduced to
``passed`` / ``failed`` / ``error`` (``error`` is an infrastructure failure, to be
masked rather than trained on).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, Protocol

Status = Literal["passed", "failed", "error"]
STATUSES: tuple[Status, ...] = ("passed", "failed", "error")
ANSWER_TOOL = "submit_answer"
"""The tool an agent ends an episode with, in adapters whose only actions are tool calls."""


class EpisodeEnv(Protocol):
    """The public contract both environment kinds implement."""

    bundle: Any

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]: ...

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]: ...

    def close(self) -> None: ...


def open_env(path: str | Path) -> Any:
    """A digest-checked bundle as the environment its kind calls for."""
    from pipeline.bundle.format import load_bundle

    bundle = load_bundle(path)
    if bundle.manifest.get("kind") == "procedural":
        from pipeline.runtime.procedural import ProceduralEnvironment

        return ProceduralEnvironment(bundle)
    from pipeline.runtime.environment import Environment

    return Environment(bundle)


def is_procedural(env: Any) -> bool:
    return getattr(env, "bundle", None) is not None and env.bundle.manifest.get("kind") == "procedural"


def tool_specs(env: Any) -> list[dict[str, Any]]:
    """The bundle's tools as ``{name, description, parameters}`` (none for a procedural bundle)."""
    specs = getattr(env, "tool_specs", None)
    return list(specs()) if callable(specs) else []


def task_ids(env: Any) -> list[str]:
    return [str(t.id if hasattr(t, "id") else t["id"]) for t in env.tasks]


def status_of(reward: float, info: dict[str, Any]) -> Status:
    """The verdict of a final step: the verifier's own status when it gives one, else from the reward."""
    verification = info.get("verification")
    status = verification.get("status") if isinstance(verification, dict) else None
    if status in STATUSES:
        return status  # type: ignore[return-value]
    return "passed" if reward >= 1.0 else "failed"


def agent_info(info: dict[str, Any]) -> dict[str, Any]:
    """The parts of ``info`` an agent may see: step signals, never the verifier's checks."""
    keep = ("step", "call_valid", "call_succeeded", "error")
    return {k: info[k] for k in keep if k in info}


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON: how observations and results are shown to a model."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def render_observation(obs: dict[str, Any]) -> str:
    """One observation as the text a model reads next."""
    kind = obs.get("type")
    if kind == "tool_result":
        return dumps(obs.get("result"))
    if kind in ("tool_error", "error"):
        return "error: " + dumps(obs.get("error"))
    if kind == "done":
        return f"episode over; reward {obs.get('reward')}"
    return dumps(obs)


def system_prompt(env: Any) -> str:
    """How to act in this bundle, in words: tool calls, then one final answer."""
    if is_procedural(env):
        return (
            "Solve the problem. End your reply with the final answer inside <answer></answer> tags; "
            "only the last answer counts."
        )
    return (
        "You are working in a software system through its tools. Call tools to look things up and "
        f"make the changes the request needs, then call {ANSWER_TOOL} exactly once with your final answer "
        "(the value asked for, or a short explanation if the request cannot be carried out). "
        "The episode ends with that call."
    )


def answer_schema() -> dict[str, Any]:
    """JSON Schema of the answer tool's arguments."""
    return {
        "type": "object",
        "properties": {
            "answer": {
                "type": "string",
                "description": "The final answer: the value asked for, or why the request cannot be carried out.",
            }
        },
        "required": ["answer"],
        "additionalProperties": False,
    }


def answer_tool_spec() -> dict[str, Any]:
    return {
        "name": ANSWER_TOOL,
        "description": "Give the final answer and end the episode.",
        "parameters": answer_schema(),
    }


def action_from_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A model's tool call as an environment action (the answer tool becomes ``{"answer": ...}``)."""
    if name == ANSWER_TOOL:
        return {"answer": decode_answer(arguments.get("answer"))}
    return {"tool": name, "arguments": arguments}


def decode_answer(answer: Any) -> Any:
    """A string holding a JSON list becomes the list (list answers travel as text through tool calls)."""
    if isinstance(answer, str) and answer.lstrip().startswith("["):
        try:
            value = json.loads(answer)
        except ValueError:
            return answer
        return value if isinstance(value, list) else answer
    return answer
