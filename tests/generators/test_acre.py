"""acre: the gold agrees with an enumeration of every blicket set consistent with the trials,
labels are balanced, and hedged or stuffed answers score 0."""

from __future__ import annotations

import random
import time
from collections import Counter

from generators.dataset import create_dataset, score
from generators.families.induction import acre


def _enumerated(trials: list[tuple[int, bool]], query: int, n: int) -> str | None:
    hits = set()
    consistent = False
    for blickets in range(1 << n):
        if all(bool(mask & blickets) == lit for mask, lit in trials):
            consistent = True
            hits.add(bool(query & blickets))
    if not consistent:
        return None
    return "undetermined" if len(hits) == 2 else ("on" if hits == {True} else "off")


def test_closed_form_matches_enumeration_on_random_cases() -> None:
    rng = random.Random(0)
    for _ in range(2000):
        n = rng.randint(2, 7)
        trials = [(rng.randrange(1, 1 << n), rng.random() < 0.5) for _ in range(rng.randint(1, 5))]
        query = rng.randrange(1, 1 << n)
        assert acre.verdict(trials, query, n) == _enumerated(trials, query, n), (trials, query, n)


def test_gold_is_the_enumerated_verdict_and_labels_are_balanced() -> None:
    counts: Counter[str] = Counter()
    for level in range(6):
        for item in create_dataset("acre", level=level, seed=3, size=60):
            meta = item["metadata"]
            trials = [(mask, lit) for mask, lit in meta["trials"]]
            assert _enumerated(trials, meta["query"], meta["objects"]) == item["answer"]
            assert meta["query"] not in [mask for mask, _ in trials]
            counts[item["answer"]] += 1
    assert set(counts) == set(acre.LABELS)
    assert max(counts.values()) / sum(counts.values()) < 0.40


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("acre", level=2, seed=5, size=30):
        gold = item["answer"]
        for form in (gold, gold.upper(), f"**{gold}**", f"Answer: {gold}"):
            assert score("acre", form, item) == 1.0, form
        for other in acre.LABELS:
            if other != gold:
                assert score("acre", other, item) == 0.0
                assert score("acre", f"{gold} or {other}", item) == 0.0
                assert score("acre", f"{gold}, {other}", item) == 0.0
        assert score("acre", "unknown", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("acre", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ((item["answer"] + " ") * 100_000, "on" * 500_000):
        assert score("acre", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
