"""Scripted policies without judgment: they do the work a request names, but skip the thinking
the world's policy or the wording asks for. Their pass rate per level is how far the top levels
are from mechanical: a level they pass is a level a model can pass without judgment.

* ``literal``: does exactly what the request says, the operation included on records a rule of
  the policy forbids (the tools let it), and refuses only what the tools refused.
* ``first_candidate``: takes records in the order a plain listing returns them instead of the
  order the request means ("my latest", "the cheapest"): every ranked listing of the reference is
  replaced by the unranked one, and the records it then acts on are the ones at the same places.
* ``no_computation``: does the reference's calls but answers a number by copying the first one
  the last tool result shows, instead of computing it across records.

All three are given the reference (trainer-side knowledge, as the upper bound is), so what
separates them from it is exactly the judgment they skip.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pipeline.evaluate.agent import Agent, Call, EpisodeStart, Turn, Usage
from pipeline.evaluate.baselines import _Scripted, reference_of_start
from pipeline.runtime.answers import as_number, as_report

_ID = re.compile(r'"id":\s*(\d+)')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_RANKING = ("order_by", "descending")


def _answer_without_policy(answer: Any) -> Any:
    """The reference answer minus its policy refusals (what someone who never read the policy says)."""
    items = answer if isinstance(answer, list) else [answer]
    if not all(isinstance(i, dict) and "cannot" in i for i in items):
        return answer
    kept = [i for i in items if i.get("cannot") != "policy"]
    if not kept:
        return "Done."
    return json.dumps(kept[0] if len(kept) == 1 else kept)


def _ids(text: str) -> list[int]:
    try:
        value = json.loads(text)
    except ValueError:
        return [int(i) for i in _ID.findall(text)]
    items = value.get("items") if isinstance(value, dict) else None
    if isinstance(items, list):
        return [int(i["id"]) for i in items if isinstance(i, dict) and isinstance(i.get("id"), int)]
    return [int(i) for i in _ID.findall(text)]


def _decoded(answer: Any) -> Any:
    """An answer given as JSON text, as its value (a report's ids are swapped like any other's)."""
    if isinstance(answer, str):
        try:
            return json.loads(answer)
        except ValueError:
            return answer
    return answer


def _encode(answer: Any) -> Any:
    return answer if isinstance(answer, str) or answer is None else json.dumps(answer)


@dataclass
class LiteralPolicy:
    name: str = "literal"
    needs_reference: bool = True

    def agent(self, start: EpisodeStart) -> Agent:
        ref = reference_of_start(start, self.name)
        calls = ref.literal or ref.calls
        turns = [Turn((Call(tool, dict(args), f"lit-{i}"),)) for i, (tool, args) in enumerate(calls)]
        answer = ref.literal_answer if ref.literal_answer is not None else _answer_without_policy(ref.answer)
        return _Scripted([*turns, Turn(answer=_encode(answer), final=True)])


@dataclass
class FirstCandidateAgent:
    """Plays the reference, each ranked listing swapped for the unranked one (both are read: the
    places of the ranked records tell which plain-order records stand in for them)."""

    calls: list[tuple[str, dict[str, Any]]]
    answer: Any
    usage: Usage = field(default_factory=Usage)
    swap: dict[int, int] = field(default_factory=dict)
    pending: list[tuple[str, Any]] = field(default_factory=list)
    step: int = 0

    def act(self, feedback: list[tuple[str, str]]) -> Turn:
        texts = dict(feedback)
        if "ranked" in texts and "plain" in texts:
            ranked, plain = _ids(texts["ranked"]), _ids(texts["plain"])
            self.swap.update({r: p for r, p in zip(ranked, plain, strict=False) if r != p})
        if not self.calls:
            return Turn(answer=_encode(self._swapped(_decoded(self.answer))), final=True)
        tool, args = self.calls.pop(0)
        self.step += 1
        if any(k in args for k in _RANKING):
            plain_args = {k: v for k, v in args.items() if k not in _RANKING}
            return Turn((Call(tool, dict(args), "ranked"), Call(tool, plain_args, "plain")))
        return Turn((Call(tool, self._swapped(dict(args)), f"fc-{self.step}"),))

    def _swapped(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: (self.swap.get(v, v) if k == "id" and isinstance(v, int) else self._swapped(v))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self._swapped(v) for v in value]
        return value


@dataclass
class FirstCandidatePolicy:
    name: str = "first_candidate"
    needs_reference: bool = True

    def agent(self, start: EpisodeStart) -> Agent:
        ref = reference_of_start(start, self.name)
        answer = ref.first_answer if ref.first_answer is not None else ref.answer
        swap = dict([ref.first_pick]) if ref.first_pick is not None else {}
        return FirstCandidateAgent([(t, dict(a)) for t, a in ref.calls], answer, swap=swap)


@dataclass
class NoComputationAgent:
    calls: list[tuple[str, dict[str, Any]]]
    answer: Any
    usage: Usage = field(default_factory=Usage)
    last: str = ""
    step: int = 0

    def act(self, feedback: list[tuple[str, str]]) -> Turn:
        for _, text in feedback:
            self.last = text
        if self.calls:
            tool, args = self.calls.pop(0)
            self.step += 1
            return Turn((Call(tool, dict(args), f"nc-{self.step}"),))
        copied = _NUMBER.findall(re.sub(r'"id":\s*\d+,?', "", self.last))
        number = copied[0] if copied else "0"
        report = as_report(self.answer)
        if report is not None:  # a report's total copied too, its refusals kept
            return Turn(answer=json.dumps({**report, "total": float(number)}), final=True)
        numeric = not isinstance(self.answer, bool) and as_number(self.answer) is not None
        if not numeric:
            return Turn(answer=_encode(self.answer), final=True)
        return Turn(answer=number, final=True)


@dataclass
class NoComputationPolicy:
    name: str = "no_computation"
    needs_reference: bool = True

    def agent(self, start: EpisodeStart) -> Agent:
        ref = reference_of_start(start, self.name)
        return NoComputationAgent([(t, dict(a)) for t, a in ref.calls], ref.answer)


JUDGMENT_BASELINES: dict[str, type] = {
    "literal": LiteralPolicy,
    "first_candidate": FirstCandidatePolicy,
    "no_computation": NoComputationPolicy,
}
"""Policies that do the work but skip the judgment: a top level they pass needs none."""
