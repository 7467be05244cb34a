"""A bundle for TRL's ``GRPOTrainer``: ``environment_factory`` for tool use, a reward function for procedural.

Tool-use bundles (a directory, or a registry ref such as ``online-store-s0@1.0.0``)::

    Env = environment_factory("online-store-s0@1.0.0", registry="artifacts")
    write_dataset("online-store-s0@1.0.0", "train.jsonl", registry="artifacts")
    trainer = GRPOTrainer(model=..., train_dataset=load_dataset("json", data_files="train.jsonl")["train"],
                          environment_factory=Env, ...)

Each dataset row's prompt is the system text of :mod:`pipeline.surface` and an empty user
turn; ``Env()`` takes no arguments; ``reset(**row)`` starts the row's task and returns its
instruction (TRL appends it to the user turn). Every tool of the surface's tool list is a
public method whose signature and Google-style docstring are made from the compact schema,
so ``transformers``' ``get_json_schema`` renders exactly that list (the surface keeps only
what a type hint and a docstring carry: bounds are in the descriptions, and the environment
still enforces them with an ``invalid_argument`` observation). ``submit_answer(answer)``
ends the episode; ``get_reward()`` returns the first verdict's reward, ``0.0`` if the model
never answered, and ``None`` (masked) when the verdict is ``error`` or names another task.
After the end every method returns an "episode is over" text and the reward stays.

Procedural bundles are single-turn: ``reward_function(bundle)`` scores completions with
the family's scorer, given the ``task_id`` column of the same dataset.

The class is made at run time (one per bundle), so it is not picklable: use it with
trainers that keep environments in the training process, as ``GRPOTrainer`` does.
"""

from __future__ import annotations

import copy
import inspect
import json
import keyword
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pipeline.integrations.episode import (
    CONTROL_TOOLS,
    Episode,
    is_procedural,
    open_env,
    resolve,
    surface_of,
    task_ids,
    verdict_status,
)
from pipeline.tools.jsonvalues import json_problem

_TEMPLATES: dict[str, Any] = {}
_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


def _template(bundle: str | Path, registry: str | None = None) -> Any:
    """The bundle loaded and digest-checked once per process; instances fork it."""
    key = str(resolve(bundle, registry).resolve())
    if key not in _TEMPLATES:
        _TEMPLATES[key] = open_env(key)
    return _TEMPLATES[key]


def python_name(name: str) -> str:
    """A JSON property name as a Python parameter name (``from`` -> ``from_``)."""
    ident = name if name.isidentifier() else "".join(c if c.isalnum() else "_" for c in name)
    if not ident or ident[0].isdigit():
        ident = "p_" + ident
    return ident + "_" if keyword.iskeyword(ident) else ident


def type_hint(schema: dict[str, Any]) -> Any:
    """The Python type hint that ``get_json_schema`` turns back into this property's type, enum and items."""
    if schema.get("enum"):
        return Literal[tuple(schema["enum"])]  # type: ignore[misc]
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        return list[type_hint(items)] if isinstance(items, dict) and items.get("type") else list  # type: ignore[misc]
    if kind not in _JSON_TYPES:
        raise ValueError(f"no Python type hint for JSON Schema type {kind!r}")
    return _JSON_TYPES[kind]


def docstring(description: str, params: dict[str, dict[str, Any]]) -> str:
    lines = [" ".join(description.split()) or "A tool."]
    if params:
        lines += ["", "Args:"]
        lines += [f"    {python_name(n)}: {' '.join(str(s['description']).split())}" for n, s in params.items()]
    return "\n".join(lines)


def _tool_method(tool: dict[str, Any]) -> Callable[..., str]:
    """A method named after the tool; its signature and docstring carry the surface's compact schema."""
    schema = tool["parameters"]
    props: dict[str, dict[str, Any]] = dict(schema.get("properties") or {})
    required = set(schema.get("required") or ())
    names = {python_name(n): n for n in props}
    if len(names) != len(props):
        raise ValueError(f"tool {tool['name']}: two parameters map to the same Python name")
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    for name, prop in props.items():  # keyword-only: the schema's order, required or not
        hint = type_hint(prop)
        annotations[python_name(name)] = hint
        default = inspect.Parameter.empty if name in required else None
        params.append(
            inspect.Parameter(python_name(name), inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint)
        )
    name = str(tool["name"])

    def method(self: BundleToolEnv, **kwargs: Any) -> str:
        arguments = {names.get(k, k): v for k, v in kwargs.items()}
        arguments = {k: v for k, v in arguments.items() if v is not None or k in required}
        return self._act(name, arguments)

    method.__name__ = method.__qualname__ = python_name(name)
    method.__doc__ = docstring(tool["description"], props)
    method.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method


class BundleToolEnv:
    """Base of the per-bundle classes ``environment_factory`` makes (tools are added as methods)."""

    bundle_path: str = ""
    trajectories: Any = None
    """A ``TrajectoryWriter`` every instance logs its episodes to, or None."""

    def __init__(self) -> None:
        env = copy.copy(_template(self.bundle_path))
        if self.trajectories is not None:
            from pipeline.integrations.trajectory import RecordTrajectory

            env = RecordTrajectory(env, self.trajectories)
        self.episode = Episode(env)

    @property
    def env(self) -> Any:
        return self.episode.env

    def reset(self, task_id: str | None = None, digest: str | None = None, **_: Any) -> str:
        """Start the dataset row's task; returns the instruction the model reads."""
        bundle = self.env.bundle
        if digest is not None and digest != bundle.digest:
            raise ValueError(f"the dataset row is for bundle digest {digest}, this environment serves {bundle.digest}")
        instruction, _info = self.episode.reset(task_id=task_id, seed=None if task_id else 0)
        return instruction

    def _act(self, tool: str, arguments: dict[str, Any]) -> str:
        problem = json_problem(arguments, "arguments")
        if problem is not None:
            # Values no tool takes (nested past any schema, huge numbers, NaN, objects) never reach the
            # surface, whose messages repr them: the environment refuses the call, naming the problem.
            return self.episode.act({"tool": tool, f"arguments refused ({problem[:160]})": None})
        return self.episode.call(tool, arguments)

    def get_reward(self) -> float | None:
        """The first verdict's reward; 0.0 without an answer; None (masked) on an error verdict."""
        return self.episode.reward


def environment_factory(
    bundle: str | Path, registry: str | None = None, trajectories: str | Path | None = None
) -> type[BundleToolEnv]:
    """A class for ``GRPOTrainer(environment_factory=...)`` over a tool-use bundle (a path or a ref);
    with ``trajectories``, every episode of every instance is appended to that trajectory log."""
    template = _template(bundle, registry)
    if is_procedural(template):
        raise ValueError(f"{bundle} is a procedural bundle: it is single-turn, use reward_function() instead")
    path = str(resolve(bundle, registry).resolve())
    namespace: dict[str, Any] = {"bundle_path": path, "__doc__": f"Tools of {template.bundle.ref}."}
    if trajectories is not None:
        from pipeline.integrations.trajectory import TrajectoryWriter

        namespace["trajectories"] = TrajectoryWriter(trajectories)
    for tool in surface_of(template).tools:
        name = python_name(tool["name"])
        if name in CONTROL_TOOLS or name in namespace or name in ("env", "episode"):
            raise ValueError(f"tool name {tool['name']!r} clashes with the environment's own methods")
        namespace[name] = _tool_method(tool)
    title = "".join(p.capitalize() for p in python_name(template.bundle.name).split("_")) or "Bundle"
    return type(f"{title}Env", (BundleToolEnv,), namespace)


def dataset_rows(bundle: str | Path, registry: str | None = None) -> list[dict[str, Any]]:
    """One row per task: ``prompt`` (the system text, then the user turn), ``task_id``, ``digest``, ``bundle``.

    A tool-use row's user turn is empty: ``reset`` supplies the instruction. A procedural row
    carries the question (single-turn: no reset runs).
    """
    env = _template(bundle, registry)
    system = surface_of(env).system
    fork = copy.copy(env)
    rows = []
    for task_id in task_ids(env):
        content = ""
        if is_procedural(env):
            content = str(fork.reset(task_id=task_id)[0]["instruction"])
        rows.append(
            {
                "prompt": [{"role": "system", "content": system}, {"role": "user", "content": content}],
                "task_id": task_id,
                "digest": env.bundle.digest,
                "bundle": env.bundle.ref,
            }
        )
    return rows


def write_dataset(bundle: str | Path, out: str | Path, registry: str | None = None) -> Path:
    """Write :func:`dataset_rows` as JSONL (``datasets.load_dataset("json", data_files=out)``)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for row in dataset_rows(bundle, registry):
            fh.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
    return out


def completion_text(completion: Any) -> str:
    """A completion as text: a string, or the content of the last message of a conversation."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content")
        if isinstance(content, list):
            return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        return str(content or "")
    return str(completion)


def reward_function(
    bundle: str | Path, registry: str | None = None, trajectories: str | Path | None = None
) -> Callable[..., list[float | None]]:
    """A ``reward_funcs`` entry for a procedural bundle: each completion scored by its task's family scorer
    (``None``, masked, for an error verdict); with ``trajectories``, each scoring is logged as an episode."""
    template = _template(bundle, registry)
    if not is_procedural(template):
        raise ValueError(f"{bundle} is a tool-use bundle: use environment_factory() for multi-turn episodes")
    writer = None
    if trajectories is not None:
        from pipeline.integrations.trajectory import TrajectoryWriter

        writer = TrajectoryWriter(trajectories)

    def synthenv_reward(completions: list[Any], task_id: list[str], **_: Any) -> list[float | None]:
        env = copy.copy(template)
        if writer is not None:
            from pipeline.integrations.trajectory import RecordTrajectory

            env = RecordTrajectory(env, writer)
        rewards: list[float | None] = []
        for completion, tid in zip(completions, task_id):
            env.reset(task_id=tid)
            _obs, reward, _t, _tr, info = env.step({"answer": completion_text(completion)})
            rewards.append(None if verdict_status(float(reward), info, tid) == "error" else float(reward))
        return rewards

    return synthenv_reward
