"""acre: the gold agrees with an enumeration of every blicket set consistent with the trials,
labels are balanced, and hedged or stuffed answers score 0."""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

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


def _scaled(value: int, count: int) -> int:
    return value * count >> 32


def _reference(config: acre.Config, rng: random.Random) -> tuple[str, list[tuple[int, bool]], int, list[str]]:
    """The 2.2.0 construction written plainly: tables by brute force over every mask, each
    draw spelled out (label, trials, blickets, query, names)."""
    n, limit = config.objects, config.max_trial_size
    every = range(1 << n)
    wanted = rng.choice(acre.LABELS)

    def draw(largest: int) -> int:
        r = rng.getrandbits(64)
        size = _scaled(r >> 32, largest) + 1
        group = [m for m in every if bin(m).count("1") == size]
        return group[_scaled(r & 0xFFFFFFFF, len(group))]

    def within(mask: int, most: int) -> list[int]:
        return [q for q in every if q & ~mask == 0 and bin(q).count("1") <= most]

    while True:
        masks: list[int] = []
        while len(masks) < config.trials:
            mask = draw(limit)
            if mask not in masks:
                masks.append(mask)
        blickets = draw(max(1, n // 3))
        while not any(mask & blickets for mask in masks):
            blickets = draw(max(1, n // 3))
        trials = [(mask, bool(mask & blickets)) for mask in masks]
        possible = (1 << n) - 1
        for mask, lit in trials:
            if not lit:
                possible &= ~mask
        cores = [mask & possible for mask, lit in trials if lit]
        query = None
        if wanted == "off":
            table = within(((1 << n) - 1) & ~possible, limit)[1:]
            for _ in range(4 if table else 0):
                candidate = table[_scaled(rng.getrandbits(32), len(table))]
                if candidate not in masks:
                    query = candidate
                    break
        elif wanted == "on":
            for _ in range(4):
                r = rng.getrandbits(64)
                core = cores[_scaled(r >> 32, len(cores))]
                table = within(((1 << n) - 1) & ~core, limit - bin(core).count("1"))
                candidate = core | table[_scaled(r & 0xFFFFFFFF, len(table))]
                if candidate not in masks:
                    query = candidate
                    break
        else:
            members = [i for i in range(n) if possible >> i & 1]
            for _ in range(8):
                r = rng.getrandbits(64)
                member = 1 << members[_scaled(r >> 32, len(members))]
                table = within(((1 << n) - 1) & ~member, limit - 1)
                candidate = member | table[_scaled(r & 0xFFFFFFFF, len(table))]
                if candidate not in masks and all(core & ~candidate for core in cores):
                    query = candidate
                    break
        if query is not None:
            return wanted, trials, query, rng.sample(acre._NAMES, n)


def test_generate_is_the_plain_construction() -> None:
    """Items, names and the generator's state after equal the plain walk's at every level."""
    for level, knobs in enumerate(acre.LEVELS):
        config = acre.Config(**knobs)
        for seed in range(40):
            ours, theirs = random.Random(seed * 10 + level), random.Random(seed * 10 + level)
            problem = acre.generate(config, ours)
            wanted, trials, query, names = _reference(config, theirs)
            assert problem.answer == wanted
            assert problem.extra["trials"] == [[mask, lit] for mask, lit in trials]
            assert problem.extra["query"] == query
            for mask, lit in trials:
                listed = ", ".join(names[i] for i in range(config.objects) if mask >> i & 1)
                assert f"{listed} -> detector {'on' if lit else 'off'}\n" in problem.question + "\n"
            assert "Now " + ", ".join(names[i] for i in range(config.objects) if query >> i & 1) + " are placed" in (
                problem.question
            )
            assert ours.getstate() == theirs.getstate()


def test_trials_are_distinct_bounded_and_some_light() -> None:
    for level, knobs in enumerate(acre.LEVELS):
        config = acre.Config(**knobs)
        rng = random.Random(level)
        for _ in range(300):
            meta = acre.generate(config, rng).extra
            masks = [mask for mask, _ in meta["trials"]]
            assert len(set(masks)) == len(masks) == config.trials
            assert any(lit for _, lit in meta["trials"])
            for mask in [*masks, meta["query"]]:
                assert 0 < mask < 1 << config.objects
                assert bin(mask).count("1") <= config.max_trial_size


def test_impossible_trial_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="distinct trials"):
        acre.generate(acre.Config(objects=3, trials=12, max_trial_size=1), random.Random(0))


def test_within_tables_equal_the_scan() -> None:
    """The sub-mask tables built from combinations of a mask's bits equal the scan of every
    number up to the mask (the sub-masks with at most ``limit`` bits, ascending)."""
    for mask in range(1 << 9):
        for limit in range(6):
            assert acre._within(mask, limit) == tuple(
                q for q in range(mask + 1) if q & ~mask == 0 and q.bit_count() <= limit
            )
