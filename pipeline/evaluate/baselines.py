"""Scripted policies that need no model: floors and a ceiling for every level.

* ``random``: a few schema-valid calls to random tools (arguments drawn from each tool's
  JSON Schema, strings preferring values seen in earlier results), then an answer copied
  from the last result.
* ``refuse``: refuses at once, in words and in the refusal form the instructions describe,
  with nothing looked up.
* ``no_tools``: answers at once without a tool: trial ``k`` guesses the ``k``-th of a
  number from the instruction, ``0``, ``1``, ``Done.``, ``yes``, ``no``.
* ``reference``: replays the task's reference solution and gives its answer (the upper
  bound: anything below 1.0 here is a broken task or an infrastructure fault).

A level where ``random``, ``refuse`` or ``no_tools`` passes anything is a level whose
reward can be had without doing the task: the report puts it in red.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from pipeline.evaluate.agent import Agent, Call, EpisodeStart, Reference, Turn, Usage

REFUSAL = 'This cannot be done: the request cannot be carried out. {"cannot": "missing", "id": null, "value": null}'
GUESSES = ("0", "1", "Done.", "yes", "no")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass
class _Scripted:
    """An agent that plays a fixed list of turns, then answers ``None``."""

    turns: list[Turn]
    usage: Usage = field(default_factory=Usage)

    def act(self, feedback: list[tuple[str, str]]) -> Turn:
        return self.turns.pop(0) if self.turns else Turn(answer=None, final=True)


def reference_of_start(start: EpisodeStart, policy: str) -> Reference:
    """The task's reference a scripted policy is given (trainer-side knowledge), or a clear error."""
    if start.reference is None:
        raise ValueError(f"the {policy} policy needs the task's reference solution")
    return start.reference


@dataclass
class ReferencePolicy:
    name: str = "reference"
    needs_reference: bool = True

    def agent(self, start: EpisodeStart) -> Agent:
        ref = reference_of_start(start, self.name)
        calls = [Turn((Call(tool, dict(args), f"ref-{i}"),)) for i, (tool, args) in enumerate(ref.calls)]
        answer = ref.answer
        return _Scripted([*calls, Turn(answer=answer, final=True)])


@dataclass
class RefusePolicy:
    name: str = "refuse"
    needs_reference: bool = False

    def agent(self, start: EpisodeStart) -> Agent:
        return _Scripted([Turn(answer=REFUSAL, final=True)])


@dataclass
class NoToolsPolicy:
    name: str = "no_tools"
    needs_reference: bool = False

    def agent(self, start: EpisodeStart) -> Agent:
        numbers = _NUMBER.findall(start.instruction)
        guesses = ([numbers[0]] if numbers else []) + list(GUESSES)
        return _Scripted([Turn(answer=guesses[start.trial % len(guesses)], final=True)])


@dataclass
class RandomAgent:
    start: EpisodeStart
    rng: random.Random
    calls_left: int
    usage: Usage = field(default_factory=Usage)
    seen: list[Any] = field(default_factory=list)
    last: Any = None

    def act(self, feedback: list[tuple[str, str]]) -> Turn:
        for _, text in feedback:
            self._remember(text)
        tools = [t["function"] for t in self.start.tools[:-1]]  # the answer tool is last
        if self.calls_left <= 0 or not tools:
            return Turn(answer=self._answer(), final=True)
        self.calls_left -= 1
        tool = self.rng.choice(tools)
        args = sample_arguments(tool["parameters"], self.rng, self.seen)
        return Turn((Call(tool["name"], args, f"rand-{self.calls_left}"),))

    def _remember(self, text: str) -> None:
        try:
            value = json.loads(text)
        except ValueError:
            return
        scalars = list(_scalars(value))
        if scalars:
            self.last = scalars
            self.seen.extend(s for s in scalars if isinstance(s, str))
            del self.seen[:-200]

    def _answer(self) -> Any:
        return self.rng.choice(self.last) if self.last else self.rng.choice(GUESSES)


@dataclass
class RandomPolicy:
    name: str = "random"
    needs_reference: bool = False
    max_calls: int = 5

    def agent(self, start: EpisodeStart) -> Agent:
        rng = random.Random(start.seed)
        return RandomAgent(start, rng, rng.randint(1, self.max_calls))


BASELINES: dict[str, type] = {
    "random": RandomPolicy,
    "refuse": RefusePolicy,
    "no_tools": NoToolsPolicy,
    "reference": ReferencePolicy,
}
TRIVIAL = ("random", "refuse", "no_tools")
"""Baselines that do not do the task: any pass of theirs is a reward had for free."""


def _judgment() -> dict[str, type]:
    from pipeline.evaluate.judgment import JUDGMENT_BASELINES

    return JUDGMENT_BASELINES


def known_baselines() -> tuple[str, ...]:
    """Every scripted policy ``--policy`` takes, so a command can refuse another name before it starts."""
    return (*BASELINES, *_judgment())


def baseline(name: str) -> Any:
    if name in _judgment():
        return _judgment()[name]()
    if name not in BASELINES:
        raise ValueError(f"unknown baseline {name!r}; known: {', '.join(known_baselines())}")
    return BASELINES[name]()


def _scalars(value: Any) -> Any:
    if isinstance(value, dict):
        for v in value.values():
            yield from _scalars(v)
    elif isinstance(value, list):
        for v in value:
            yield from _scalars(v)
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield value


def sample_arguments(schema: dict[str, Any], rng: random.Random, seen: list[Any], tries: int = 8) -> dict[str, Any]:
    """Arguments valid under ``schema`` (checked with jsonschema), optional ones included at random.

    Falls back to the required arguments alone, then to an empty object, so a call is always
    made; a tool the sampler cannot satisfy gets a call the environment rejects (still a call).
    """
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema)
    props: dict[str, Any] = schema.get("properties") or {}
    required = [p for p in schema.get("required") or [] if p in props]
    for attempt in range(tries):
        names = list(required)
        if attempt < tries - 2:
            names += [p for p in props if p not in required and rng.random() < 0.25]
        args = {p: _value(props[p], rng, seen) for p in names}
        if validator.is_valid(args):
            return args
    return {}


def _value(schema: dict[str, Any], rng: random.Random, seen: list[Any]) -> Any:
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        usable = [o for o in options if o.get("type") != "null"] or options
        return _value(rng.choice(usable), rng, seen)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "integer":
        low = int(schema.get("minimum", 1))
        high = int(min(schema.get("maximum", low + 60), low + 60))
        return rng.randint(low, max(low, high))
    if kind == "number":
        start = float(schema.get("minimum", 0))
        return round(rng.uniform(start, start + 200), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        item = schema.get("items") or {}
        size = max(1, int(schema.get("minItems", 1)))
        return [_value(item, rng, seen) for _ in range(size)]
    if kind == "object":
        return sample_arguments(schema, rng, seen, tries=2)
    if kind == "null":
        return None
    strings = [s for s in seen if isinstance(s, str) and 0 < len(s) <= int(schema.get("maxLength", 200))]
    if strings and rng.random() < 0.7:
        return rng.choice(strings)
    return rng.choice(("a", "test", "new", "pending", "2025-01-01"))
