"""Procedural scorers attacked as a policy and a broken build would: every family × level.

A reward must never lie in either direction. The gold answer, however a model decorates
it (bold, "Answer:", a trailing period, ``\\boxed{}``), earns 1.0; the gold followed by text
that changes its meaning earns 0.0; a scorer that raises (a bug, a malformed item) is the
verdict status ``error`` through ``ProceduralEnvironment.step``, never a quiet 0.0; and
deeply nested or huge answers are read, never raised on.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from generators import registry
from generators.answers import undecorate
from generators.dataset import create_dataset, score
from generators.scoring import ScorerError, score_checked
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.procedural import ProceduralEnvironment
from pipeline.surface.text import decode_answer

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = list(registry.list_families())
LEVELS = range(6)

DECORATIONS = {
    "bold": lambda gold: f"**{gold}**",
    "answer_prefix": lambda gold: f"Answer: {gold}",
    "the_answer_is": lambda gold: f"The answer is {gold}" if "\n" not in gold else f"The answer is:\n{gold}",
    "trailing_period": lambda gold: f"{gold}.",
    "boxed": lambda gold: f"\\boxed{{{gold}}}",
    "whitespace": lambda gold: f"  \n\t{gold} \n ",
    "bold_answer": lambda gold: f"**Answer: {gold}**",
    "answer_bold": lambda gold: f"Answer: **{gold}**",
    "bold_label": lambda gold: f"**Answer:** {gold}",
    "bold_then_period": lambda gold: f"**{gold}**.",
    "reasoning_then_bold_answer": lambda gold: f"Let me work it out step by step.\n\n**Answer: {gold}**",
}
"""What models write around a final answer: each must keep the gold's full marks."""

TRAILING = {
    "or_maybe": lambda gold: f"{gold} or maybe 5",
    "but_not_sure": lambda gold: f"{gold} but not sure 17",
    "or_assignment": lambda gold: f"{gold}, or maybe x=5",
    "unless": lambda gold: f"{gold} unless 3",
    "next_line": lambda gold: f"{gold}\nor maybe 5",
    "prefixed": lambda gold: f"Answer: {gold} or maybe 5",
    "bold_then_junk": lambda gold: f"**{gold}** or 5",
    "but_maybe_not": lambda gold: f"{gold} but maybe not",
}
"""Text after the answer that changes its meaning: each must cost the reward."""


@functools.cache
def _items(name: str) -> tuple[dict[str, Any], ...]:
    """The first item of every level of ``name`` (seed 0)."""
    return tuple(create_dataset(name, level=level, seed=0, size=1)[0] for level in LEVELS)


@pytest.mark.parametrize("name", FAMILIES)
def test_gold_and_decorated_gold_score_full_marks(name: str) -> None:
    for item in _items(name):
        gold = str(item["answer"])
        level = item["metadata"]["level"]
        assert score(name, gold, item) == 1.0, (level, gold)
        for decoration, make in DECORATIONS.items():
            assert score(name, make(gold), item) == 1.0, (level, decoration, make(gold)[-200:])


@pytest.mark.parametrize("name", FAMILIES)
def test_text_after_the_answer_that_changes_it_scores_zero(name: str) -> None:
    for item in _items(name):
        gold = str(item["answer"])
        for junk, make in TRAILING.items():
            answer = make(gold)
            assert score(name, answer, item) == 0.0, (item["metadata"]["level"], junk, answer[-200:])


@pytest.mark.parametrize("name", FAMILIES)
def test_the_second_reading_never_rewards_a_second_guess(name: str) -> None:
    """A wrong answer where extraction looks first, the gold decorated elsewhere: undecorating
    must not move extraction onto the gold (an "Answer:" line beats the last line, the last
    box beats an earlier one)."""
    items = _items(name)
    for item, other in zip(items, items[1:] + items[:1], strict=True):
        gold, wrong = str(item["answer"]), str(other["answer"])
        if "\n" in gold or score(name, wrong, item) == 1.0:
            continue
        for answer in (f"Answer: {wrong}\n**{gold}**", f"\\boxed{{{gold}}}\n\\boxed{{{wrong}}}"):
            assert score(name, answer, item) == 0.0, (item["metadata"]["level"], answer[-300:])


def test_decorations_are_stripped_in_one_place() -> None:
    """``undecorate`` takes off what surrounds an answer and nothing that changes it."""
    assert undecorate("**Answer: 16**") == "16"
    assert undecorate("Answer: **16**.") == "16"
    assert undecorate("The answer is \\boxed{16}.") == "16"
    assert undecorate("**Answer:** 16") == "16"
    assert undecorate("**1 2\n3 4**") == "1 2\n3 4"
    assert undecorate(".#.\n#..", period=False) == ".#.\n#.."
    assert undecorate("16 but not sure 17") == "16 but not sure 17"
    assert undecorate("this is not the answer: 16") == "this is not the answer: 16"
    assert undecorate("Answer: 17\n16") == "Answer: 17\n16"  # the Answer line stays the answer
    assert undecorate("\\boxed{16} \\boxed{17}") == "\\boxed{16} \\boxed{17}"  # so does the last box
    assert undecorate(None) == ""  # type: ignore[arg-type]


def test_no_family_scorer_catches_every_exception() -> None:
    """Scorers catch only ``ANSWER_ERRORS`` (reading the answer); anything else must reach
    the dispatcher, which reports it. A blanket ``except Exception`` turned a broken item
    into a failed answer in 55 places."""
    blanket = re.compile(r"except\s*(?:\(\s*)?(?:Exception|BaseException)\b|except\s*:")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "generators" / "families").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if blanket.search(line)
    ]
    assert offenders == []


def _raising(answer_text: str, item: Mapping[str, Any]) -> float:
    raise RuntimeError("a bug in the scorer")


@pytest.fixture
def procedural_env(tmp_path_factory: pytest.TempPathFactory) -> ProceduralEnvironment:
    path = tmp_path_factory.mktemp("scorers") / "bundle"
    bundle = build_procedural_bundle(["maze", "gcd_lcm", "graph_coloring"], path, n=12, seed=0, level=2)
    return ProceduralEnvironment.from_bundle(bundle.path)


@pytest.mark.parametrize("name", FAMILIES)
def test_a_raising_scorer_is_a_scorer_error_for_every_family(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    family = registry.get_family(name)
    monkeypatch.setitem(registry._loaded, name, dataclasses.replace(family, score=_raising))
    for item in _items(name)[:2]:
        with pytest.raises(ScorerError) as caught:
            score_checked(name, str(item["answer"]), item)
        assert caught.value.family == name and "RuntimeError" in caught.value.reason


def test_a_raising_scorer_is_an_error_verdict_through_step(
    procedural_env: ProceduralEnvironment, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = procedural_env
    for name in ("maze", "gcd_lcm", "graph_coloring"):  # a family's own scorer and the default one
        monkeypatch.setitem(registry._loaded, name, dataclasses.replace(registry.get_family(name), score=_raising))
    for task in env.tasks:
        env.reset(task_id=task["id"])
        _, reward, terminated, _, info = env.step({"answer": task["answer"]})
        verdict = info["verification"]
        assert (reward, terminated, verdict["status"]) == (0.0, True, "error"), task["id"]
        assert "RuntimeError" in verdict["error"] and task["metadata"]["family"] in verdict["error"]
        assert str(task["answer"]) not in verdict["error"]  # the reason never quotes the gold


def test_a_malformed_item_is_an_error_verdict_not_a_failed_answer(procedural_env: ProceduralEnvironment) -> None:
    env = procedural_env
    maze = next(task for task in env.tasks if task["metadata"]["family"] == "maze")
    env.reset(task_id=maze["id"])
    assert env._task is not None
    env._task = {**env._task, "metadata": {k: v for k, v in env._task["metadata"].items() if k != "grid"}}
    _, reward, _, _, info = env.step({"answer": maze["answer"]})
    assert (reward, info["verification"]["status"]) == (0.0, "error")
    assert "maze" in info["verification"]["error"] and "KeyError" in info["verification"]["error"]


def test_a_wrong_answer_still_fails_and_a_decorated_gold_passes(procedural_env: ProceduralEnvironment) -> None:
    env = procedural_env
    for task in env.tasks:
        env.reset(task_id=task["id"])
        assert env.step({"answer": f"**Answer: {task['answer']}**"})[4]["verification"]["status"] == "passed"
        env.reset(task_id=task["id"])
        _, reward, _, _, info = env.step({"answer": f"{task['answer']} or maybe 5"})
        assert (reward, info["verification"]["status"]) == (0.0, "failed")


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        "[" * 1_000_000,
        "[" + "[1, " * 50_000 + "]" * 50_001,
        "[" + "9" * 100_000 + "]",
        "[1e999999, -1e999999]",
        '[{"a": ' * 20_000 + "1" + "}]" * 20_000,
    ],
)
def test_deep_nesting_and_huge_numbers_never_raise_in_decode_answer(text: str) -> None:
    value = decode_answer(text)
    assert isinstance(value, (str, list))


@pytest.mark.parametrize(
    "text", ["[" * 100_000 + "]" * 100_000, "[" + "9" * 100_000 + "]", "{" * 50_000, "\\boxed{" * 50_000]
)
def test_deep_nesting_and_huge_numbers_score_zero_in_every_family(text: str) -> None:
    for name in FAMILIES:
        item = _items(name)[0]
        assert score(name, text, item) == 0.0, name
