"""logical_deduction: reading the shown clues independently, exactly one permutation of the
books satisfies them all and it is the gold row; permuted, partial or stuffed rows score 0."""

from __future__ import annotations

import itertools
import random
import re
import time

from generators.dataset import create_dataset, score
from generators.families.logic import logical_deduction as ld

_ORDINALS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "sixth": 5, "seventh": 6}


def _check(text: str, row: tuple[str, ...]) -> bool:
    where = {colour: i for i, colour in enumerate(row)}
    n = len(row)
    if m := re.fullmatch(r"The (\w+) book is (not )?the (leftmost|rightmost|(\w+) from the left)\.", text):
        place = 0 if m.group(3) == "leftmost" else n - 1 if m.group(3) == "rightmost" else _ORDINALS[m.group(4)]
        return (where[m.group(1)] == place) != bool(m.group(2))
    if m := re.fullmatch(r"The (\w+) book is at neither end of the shelf\.", text):
        return 0 < where[m.group(1)] < n - 1
    if m := re.fullmatch(r"The (\w+) book is somewhere to the left of the (\w+) book\.", text):
        return where[m.group(1)] < where[m.group(2)]
    if m := re.fullmatch(r"The (\w+) book is directly to the left of the (\w+) book\.", text):
        return where[m.group(1)] + 1 == where[m.group(2)]
    if m := re.fullmatch(r"The (\w+) book is (\d+) places to the left of the (\w+) book\.", text):
        return where[m.group(3)] - where[m.group(1)] == int(m.group(2))
    raise AssertionError(text)


def test_exactly_one_row_satisfies_the_shown_clues() -> None:
    for level in range(6):
        for item in create_dataset("logical_deduction", level=level, seed=4, size=20):
            colours = item["question"].split("colour: ", 1)[1].split(".\n", 1)[0].split(", ")
            clues = re.findall(r"^\d+\. (.+)$", item["question"], flags=re.MULTILINE)
            rows = [row for row in itertools.permutations(colours) if all(_check(c, row) for c in clues)]
            assert len(rows) == 1, item["question"]
            assert ", ".join(rows[0]) == item["answer"]


def test_bitsets_agree_with_the_clue_predicate() -> None:
    rng = random.Random(0)
    for n in (3, 4, 5):
        orders = ld._orders(n)
        for _ in range(200):
            clue = ld._random_clue(orders[rng.randrange(len(orders))], 0.5, rng)
            mask = ld.satisfying(clue, n)
            assert all((mask >> i & 1) == ld.holds(clue, order) for i, order in enumerate(orders)), clue


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("logical_deduction", level=3, seed=6, size=20):
        gold = item["answer"]
        row = gold.split(", ")
        for form in (gold, gold.upper(), " ".join(row), f"[{gold}]", f"Answer: {gold}"):
            assert score("logical_deduction", form, item) == 1.0, form
        assert score("logical_deduction", ", ".join(reversed(row)), item) == 0.0
        assert score("logical_deduction", ", ".join([row[1], row[0], *row[2:]]), item) == 0.0
        assert score("logical_deduction", ", ".join(row[:-1]), item) == 0.0
        assert score("logical_deduction", ", ".join(sorted(row)), item) == 0.0 or sorted(row) == row
        assert score("logical_deduction", f"{gold}, {gold}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("logical_deduction", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ((item["answer"] + ", ") * 30_000, "red, " * 200_000):
        assert score("logical_deduction", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
