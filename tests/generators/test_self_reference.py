"""self_reference: reading the shown statements independently, a brute force over all 2^n
truth assignments finds exactly one consistent assignment, whose true statements are the
gold; incomplete, padded or stuffed sets score 0."""

from __future__ import annotations

import re
import time

from generators.dataset import create_dataset, score


def _holds(text: str, truths: tuple[bool, ...]) -> bool:
    n, t = len(truths), sum(truths)
    f = n - t
    if m := re.fullmatch(r"At least (\d+) of these \d+ statements are true\.", text):
        return t >= int(m.group(1))
    if m := re.fullmatch(r"At most (\d+) of these \d+ statements are false\.", text):
        return f <= int(m.group(1))
    if m := re.fullmatch(r"Exactly (\d+) of these \d+ statements are true\.", text):
        return t == int(m.group(1))
    if m := re.fullmatch(r"Exactly (\d+) of these \d+ statements are false\.", text):
        return f == int(m.group(1))
    if text == "The number of true statements is a prime number.":
        return t > 1 and all(t % d for d in range(2, t))
    if text == "The number of false statements is a composite number.":
        return f > 1 and any(f % d == 0 for d in range(2, f))
    if text == "The number of true statements is even.":
        return t % 2 == 0
    if text.startswith("The number of false statements is a perfect square"):
        return int(f**0.5) ** 2 == f
    if m := re.fullmatch(r"Statement (\d+) is (true|false)\.", text):
        return truths[int(m.group(1)) - 1] == (m.group(2) == "true")
    if m := re.fullmatch(r"Either statement (\d+) or statement (\d+) is true, but not both\.", text):
        return truths[int(m.group(1)) - 1] != truths[int(m.group(2)) - 1]
    raise AssertionError(text)


def _consistent(item: dict) -> list[tuple[bool, ...]]:
    texts = re.findall(r"^\d+\. (.+)$", item["question"], flags=re.MULTILINE)
    n = len(texts)
    out = []
    for mask in range(1 << n):
        truths = tuple(bool(mask >> i & 1) for i in range(n))
        if all(_holds(text, truths) == truths[i] for i, text in enumerate(texts)):
            out.append(truths)
    return out


def test_exactly_one_consistent_assignment_and_it_is_the_gold() -> None:
    kinds = set()
    for level in range(6):
        for item in create_dataset("self_reference", level=level, seed=2, size=25):
            found = _consistent(item)
            assert len(found) == 1, item["question"]
            true_numbers = [str(i + 1) for i, v in enumerate(found[0]) if v]
            assert item["answer"] == (", ".join(true_numbers) or "none")
            kinds.update(kind for kind, _, _ in item["metadata"]["statements"])
    assert {"either", "is_true", "true_prime", "exactly_false"} <= kinds


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("self_reference", level=3, seed=6, size=20):
        gold = item["answer"]
        numbers = gold.split(", ")
        n = len(item["metadata"]["statements"])
        for form in (gold, ", ".join(reversed(numbers)), f"[{gold}]", f"Answer: {gold}"):
            assert score("self_reference", form, item) == 1.0, form
        assert score("self_reference", ", ".join(str(i) for i in range(1, n + 1)), item) == 0.0
        if len(numbers) > 1:
            assert score("self_reference", ", ".join(numbers[1:]), item) == 0.0
        extra = next(str(i) for i in range(1, n + 1) if str(i) not in numbers)
        assert score("self_reference", f"{gold}, {extra}", item) == 0.0
        assert score("self_reference", f"{gold}, {gold}", item) == 0.0
        assert score("self_reference", str(len(numbers)), item) == 0.0 or numbers == [str(len(numbers))]


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("self_reference", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1, " * 350_000, (item["answer"] + ", ") * 40_000):
        assert score("self_reference", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
