"""A bundle for TRL's ``GRPOTrainer``: ``environment_factory`` for tool use, a reward function for procedural.

Tool-use bundles::

    Env = environment_factory("artifacts/online-store-s0/1.0.0")
    write_dataset("artifacts/online-store-s0/1.0.0", "train.jsonl")
    trainer = GRPOTrainer(model=..., train_dataset=load_dataset("json", data_files="train.jsonl")["train"],
                          environment_factory=Env, ...)

``Env()`` takes no arguments; ``reset(**row)`` starts the row's task and returns its
instruction; every tool of the bundle is a public method whose signature and Google-style
docstring (``Args:``) are made from the tool's JSON Schema, so ``transformers``'
``get_json_schema`` renders the same tool the environment serves (constraints such as
``minimum`` or ``pattern`` are not expressible in type hints: the environment still
enforces them and answers a violation with an ``invalid_argument`` observation);
``submit_answer(answer)`` ends the episode; ``get_reward()`` returns the verifier's
reward, ``0.0`` if the model never answered, and ``None`` (masked) when the verdict is
``error``.

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
    ANSWER_TOOL,
    action_from_call,
    is_procedural,
    open_env,
    render_observation,
    status_of,
    system_prompt,
    task_ids,
    tool_specs,
)

_TEMPLATES: dict[str, Any] = {}
_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


def _template(bundle: str | Path) -> Any:
    """The bundle loaded and digest-checked once per process; instances fork it."""
    key = str(Path(bundle).resolve())
    if key not in _TEMPLATES:
        _TEMPLATES[key] = open_env(bundle)
    return _TEMPLATES[key]


def python_name(name: str) -> str:
    """A JSON property name as a Python parameter name (``from`` -> ``from_``)."""
    ident = name if name.isidentifier() else "".join(c if c.isalnum() else "_" for c in name)
    if not ident or ident[0].isdigit():
        ident = "p_" + ident
    return ident + "_" if keyword.iskeyword(ident) else ident


def type_hint(schema: dict[str, Any]) -> Any:
    """The Python type hint that ``get_json_schema`` turns back into this property's type and enum."""
    if schema.get("enum"):
        return Literal[tuple(schema["enum"])]  # type: ignore[misc]
    if "const" in schema:  # a pinned value is a one-member enum
        return Literal[schema["const"]]
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        return list[type_hint(items)] if isinstance(items, dict) and items.get("type") else list  # type: ignore[misc]
    if isinstance(kind, list):
        hints = [type_hint({"type": k}) for k in kind if k != "null"]
        hint = hints[0]
        for h in hints[1:]:
            hint = hint | h
        return hint | None if "null" in kind else hint
    if kind not in _JSON_TYPES:
        raise ValueError(f"no Python type hint for JSON Schema type {kind!r}")
    return _JSON_TYPES[kind]


def _key_phrase(name: str, schema: dict[str, Any]) -> str:
    """``status (string, one of 'open', 'closed')``: a nested key as a docstring can say it."""
    kind = schema.get("type", "value")
    if kind == "array" and isinstance(schema.get("items"), dict):
        inner = schema["items"]
        kind = f"list of {inner.get('type', 'value')}"
        schema = inner
    words = [" or ".join(kind) if isinstance(kind, list) else str(kind)]
    if schema.get("enum"):
        words.append("one of " + ", ".join(repr(v) for v in schema["enum"]))
    return f"{name} ({', '.join(words)})"


def describe(name: str, schema: dict[str, Any]) -> str:
    """One line of the ``Args:`` section: the schema's description, else the name and type.

    A type hint renders a nested object only as ``object``, so its keys (with their types and
    allowed values) are spelled out here: the model reads them in the tool's description.
    """
    text = str(schema.get("description") or f"the {name.replace('_', ' ')} ({schema.get('type', 'value')})")
    nested = schema.get("properties")
    if schema.get("type") == "object" and isinstance(nested, dict) and nested:
        keys = "; ".join(_key_phrase(k, v) for k, v in nested.items())
        required = [k for k in schema.get("required") or () if k in nested]
        text += f". Keys: {keys}"
        if required:
            text += f". Required keys: {', '.join(required)}"
        if schema.get("additionalProperties") is False:
            text += ". No other keys"
    return " ".join(text.split())


def docstring(description: str, params: dict[str, dict[str, Any]]) -> str:
    lines = [" ".join(description.split()) or "A tool."]
    if params:
        lines += ["", "Args:"]
        lines += [f"    {python_name(n)}: {describe(n, s)}" for n, s in params.items()]
    return "\n".join(lines)


def _tool_method(spec: dict[str, Any]) -> Callable[..., str]:
    """A method named after the tool; its signature and docstring mirror the tool's JSON Schema."""
    schema = spec["parameters"]
    props: dict[str, dict[str, Any]] = dict(schema.get("properties") or {})
    required = set(schema.get("required") or ())
    names = {python_name(n): n for n in props}
    if len(names) != len(props):
        raise ValueError(f"tool {spec['name']}: two parameters map to the same Python name")
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    ordered = [n for n in props if n in required] + [n for n in props if n not in required]
    for name in ordered:
        hint = type_hint(props[name])
        if name not in required:
            hint = hint | None
        annotations[python_name(name)] = hint
        default = inspect.Parameter.empty if name in required else None
        params.append(
            inspect.Parameter(python_name(name), inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint)
        )
    tool = spec["name"]

    def method(self: BundleToolEnv, **kwargs: Any) -> str:
        arguments = {names.get(k, k): v for k, v in kwargs.items()}
        arguments = {k: v for k, v in arguments.items() if v is not None or k in required}
        return self._act(tool, arguments)

    method.__name__ = method.__qualname__ = python_name(tool)
    method.__doc__ = docstring(spec["description"], props)
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = {**annotations, "return": str}
    return method


class BundleToolEnv:
    """Base of the per-bundle classes ``environment_factory`` makes (tools are added as methods)."""

    bundle_path: str = ""

    def __init__(self) -> None:
        self.env = copy.copy(_template(self.bundle_path))
        self.reward: float | None = 0.0
        self.done = False

    def reset(self, task_id: str | None = None, digest: str | None = None, **_: Any) -> str:
        """Start the dataset row's task; returns the instruction the model reads."""
        bundle = self.env.bundle
        if digest is not None and digest != bundle.digest:
            raise ValueError(f"the dataset row is for bundle digest {digest}, this environment serves {bundle.digest}")
        obs, _info = self.env.reset(task_id=task_id, seed=None if task_id else 0)
        self.reward, self.done = 0.0, False
        return "Task: " + str(obs.get("instruction", ""))

    def _act(self, tool: str, arguments: dict[str, Any]) -> str:
        obs, reward, terminated, truncated, info = self.env.step(action_from_call(tool, arguments))
        if terminated or truncated:
            self.done = True
            self.reward = None if status_of(float(reward), info) == "error" else float(reward)
        return render_observation(obs)

    def get_reward(self) -> float | None:
        """The verifier's reward; 0.0 without an answer; None (masked) on an infrastructure error."""
        return self.reward if self.done else 0.0


def _answer_method() -> Callable[..., str]:
    def submit_answer(self, answer: str) -> str:  # type: ignore[no-untyped-def]
        return self._act(ANSWER_TOOL, {"answer": answer})

    submit_answer.__doc__ = docstring(
        "Give the final answer and end the episode.",
        {
            "answer": {
                "type": "string",
                "description": "The final answer: the value asked for, or why the request cannot be carried out.",
            }
        },
    )
    return submit_answer


def environment_factory(bundle: str | Path) -> type[BundleToolEnv]:
    """A class for ``GRPOTrainer(environment_factory=...)`` over a tool-use bundle."""
    template = _template(bundle)
    if is_procedural(template):
        raise ValueError(f"{bundle} is a procedural bundle: it is single-turn, use reward_function() instead")
    namespace: dict[str, Any] = {"bundle_path": str(bundle), "__doc__": f"Tools of {template.bundle.ref}."}
    for spec in tool_specs(template):
        name = python_name(spec["name"])
        if name in ("reset", "get_reward", ANSWER_TOOL) or name in namespace:
            raise ValueError(f"tool name {spec['name']!r} clashes with the environment's own methods")
        namespace[name] = _tool_method(spec)
    namespace[ANSWER_TOOL] = _answer_method()
    title = "".join(p.capitalize() for p in python_name(template.bundle.name).split("_")) or "Bundle"
    return type(f"{title}Env", (BundleToolEnv,), namespace)


def dataset_rows(bundle: str | Path) -> list[dict[str, Any]]:
    """One row per task: ``prompt`` (conversational), ``task_id``, ``digest``, ``bundle``."""
    env = _template(bundle)
    intro = system_prompt(env)
    fork = copy.copy(env)
    rows = []
    for task_id in task_ids(env):
        content = intro
        if is_procedural(env):  # single-turn: the question is in the prompt (no reset adds it)
            content = intro + "\n\n" + str(fork.reset(task_id=task_id)[0]["instruction"])
        rows.append(
            {
                "prompt": [{"role": "user", "content": content}],
                "task_id": task_id,
                "digest": env.bundle.digest,
                "bundle": env.bundle.ref,
            }
        )
    return rows


def write_dataset(bundle: str | Path, out: str | Path) -> Path:
    """Write :func:`dataset_rows` as JSONL (``datasets.load_dataset("json", data_files=out)``)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for row in dataset_rows(bundle):
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


def reward_function(bundle: str | Path) -> Callable[..., list[float | None]]:
    """A ``reward_funcs`` entry for a procedural bundle: each completion scored by its task's family scorer."""
    template = _template(bundle)
    if not is_procedural(template):
        raise ValueError(f"{bundle} is a tool-use bundle: use environment_factory() for multi-turn episodes")

    def synthenv_reward(completions: list[Any], task_id: list[str], **_: Any) -> list[float | None]:
        env = copy.copy(template)
        rewards: list[float | None] = []
        for completion, tid in zip(completions, task_id):
            env.reset(task_id=tid)
            _obs, reward, _t, _tr, info = env.step({"answer": completion_text(completion)})
            rewards.append(None if status_of(float(reward), info) == "error" else float(reward))
        return rewards

    return synthenv_reward
