"""list_functions: the shown examples fix the answer (a naive enumeration of every rule of
the level's set, with no shortcut, finds only the gold on the query), and list exploits fail."""

from __future__ import annotations

import ast
import itertools
import random
import time
from typing import Any

from generators.dataset import create_dataset, score
from generators.families.induction import list_functions as lf


def _parse(item: dict) -> tuple[list[tuple[tuple[int, ...], tuple[int, ...]]], tuple[int, ...]]:
    lines = item["question"].split("\n\n")[0].splitlines()[1:]
    examples = []
    for line in lines:
        given, out = line.split(" -> ")
        examples.append((tuple(ast.literal_eval(given)), tuple(ast.literal_eval(out))))
    query = item["question"].split("turn ", 1)[1].split(" into?")[0]
    return examples, tuple(ast.literal_eval(query))


def test_examples_fix_the_answer_by_naive_enumeration() -> None:
    for level in range(6):
        knobs = lf.FAMILY.config_for_level(level)
        prims = [f for _, f in lf._primitives(knobs.tiers)]
        chains = [(f,) for f in prims]
        if knobs.depth == 2:
            chains += list(itertools.product(prims, prims))
        for item in create_dataset("list_functions", level=level, seed=7, size=12):
            examples, query = _parse(item)
            answers = set()
            for chain in chains:

                def apply(xs: tuple[int, ...]) -> tuple[int, ...]:
                    for f in chain:
                        xs = f(xs)
                    return xs

                if all(apply(given) == out for given, out in examples):
                    answers.add(apply(query))
            assert answers == {tuple(ast.literal_eval(item["answer"]))}, item["question"]


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("list_functions", level=3, seed=2, size=20):
        gold = item["answer"]
        values = gold.strip("[]").split(", ")
        _, query = _parse(item)
        for form in (gold, gold.strip("[]"), " ".join(values), f"Answer: {gold}", gold.replace(" ", "")):
            assert score("list_functions", form, item) == 1.0, form
        assert score("list_functions", "[" + ", ".join(values[:-1]) + "]", item) == 0.0  # partial
        assert score("list_functions", f"[{', '.join([*values, values[-1]])}]", item) == 0.0
        if values != values[::-1]:
            assert score("list_functions", "[" + ", ".join(reversed(values)) + "]", item) == 0.0
        if tuple(map(int, values)) != query:
            assert score("list_functions", str(list(query)), item) == 0.0  # the input echoed
        assert score("list_functions", f"{gold} or {gold}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("list_functions", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ((item["answer"] + ", ") * 50_000, "[" * 1_000_000):
        assert score("list_functions", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0


def _examples(rng: random.Random, rule: Any, most: int) -> tuple[list[Any], tuple[int, ...]]:
    """One to ``most`` examples ``rule`` makes from small lists (negative values, empty lists and
    repeats included), and a query list drawn the same way."""
    examples = []
    for _ in range(rng.randint(1, most)):
        given = tuple(rng.randint(-6, 14) for _ in range(rng.randint(0, 8)))
        examples.append((given, rule(given)))
    query = tuple(rng.randint(-6, 14) for _ in range(rng.randint(0, 8)))
    return examples, query


def test_pruned_second_steps_find_every_rule_the_reference_finds() -> None:
    """fitting_outputs runs a second step only when cheap necessary conditions hold (its
    output's length, first and last value, and the target's order, parity, bounds and
    repeats): over examples made by every composed rule (negative values, empty lists and
    repeats included), the answers equal the rule-by-rule reference's."""
    from generators.families.induction import list_functions

    rng = random.Random(11)
    prims = list_functions._primitives(3)
    for _ in range(600):
        f, g = rng.choice(prims)[1], rng.choice(prims)[1]
        examples, query = _examples(rng, lambda x: g(f(x)), 3)
        for tiers, depth in ((1, 2), (2, 2), (3, 2), (3, 1)):
            assert list_functions.fitting_outputs(examples, query, tiers, depth) == (
                list_functions.fitting_outputs_reference(examples, query, tiers, depth)
            )


def test_pruned_single_steps_find_every_rule_the_reference_finds() -> None:
    """With one primitive (depth 1) only the steps that can give the first output's length
    and first value are run: over examples made by every single primitive of each tier
    (negative values, empty lists, zeros and repeats included), the answers equal the
    rule-by-rule reference's."""
    from generators.families.induction import list_functions

    rng = random.Random(12)
    for tiers in (1, 2, 3):
        prims = list_functions._primitives(tiers)
        for _ in range(400):
            f = rng.choice(prims)[1]
            examples, query = _examples(rng, f, 3)
            for depth in (1, 2):
                assert list_functions.fitting_outputs(examples, query, tiers, depth) == (
                    list_functions.fitting_outputs_reference(examples, query, tiers, depth)
                )


def test_a_known_rule_is_taken_without_changing_the_answers() -> None:
    """``fitting_outputs`` given the rule that made the examples (and its query output) does
    not run that rule again: the answers still equal the rule-by-rule reference's."""
    rng = random.Random(13)
    prims = lf._primitives(3)
    for _ in range(600):
        f, g = rng.choice(prims)[1], rng.choice(prims)[1]
        examples, query = _examples(rng, lambda x: g(f(x)), 4)
        for tiers in (2, 3):
            if f not in [p for _, p in lf._primitives(tiers)] or g not in [p for _, p in lf._primitives(tiers)]:
                continue
            assert lf.fitting_outputs(examples, query, tiers, 2, ((f, g), g(f(query)))) == (
                lf.fitting_outputs_reference(examples, query, tiers, 2)
            )
