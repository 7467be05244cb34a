"""Label priors: no constant answer farms a family × level (see ``generators.priors``).

The full check (500 items per family × level, the figure the bound is stated for) is
slow; the fast variant runs every family at its easiest and hardest level on fewer
items with a margin for sampling noise.
"""

from __future__ import annotations

import pytest
from generators_sweep import GRID

from generators import priors, registry
from generators.dataset import create_dataset, score

IDS = [f"{name}-L{level}" for name, level in GRID]
SEED = 7
KNOWN_PRIORS: dict[tuple[str, int], str] = {}
"""Family × level pairs whose constant-answer prior is still above the bound: measured by
``benchmarks/generators_bench.py --constant``; they are reported as expected failures
while above it, and any other pair above it fails."""


def _check(name: str, level: int, size: int, slack: float) -> None:
    result = priors.measure(name, level, size=size, seed=SEED)
    assert result.items >= min(size, 50)
    message = (
        f"{name} L{level}: constant {result.answer!r} earns {result.reward:.3f} on {result.items} items "
        f"(bound {result.bound:.3f})"
    )
    if (name, level) in KNOWN_PRIORS and result.reward > result.bound + slack:
        pytest.xfail(f"{message}: {KNOWN_PRIORS[name, level]}")
    assert result.reward <= result.bound + slack, message


@pytest.mark.slow
@pytest.mark.parametrize(("name", "level"), GRID, ids=IDS)
def test_best_constant_answer_is_bounded(name: str, level: int) -> None:
    _check(name, level, 500, 0.0)


FAST_GRID = [(name, level) for name, level in GRID if level in (0, 5)]


@pytest.mark.parametrize(("name", "level"), FAST_GRID, ids=[f"{n}-L{lv}" for n, lv in FAST_GRID])
def test_best_constant_answer_is_bounded_fast(name: str, level: int) -> None:
    _check(name, level, 120, 0.06)


def test_bound_declares_choices() -> None:
    assert priors.constant_bound(None) == pytest.approx(0.10)
    assert priors.constant_bound(7) == pytest.approx(1 / 7 + 0.05)
    assert priors.constant_bound(50) == pytest.approx(0.10)
    for bad in (1, 0, True, 2.5):
        with pytest.raises(ValueError):
            priors.constant_bound(bad)  # type: ignore[arg-type]
    for name in registry.list_families():
        choices = registry.get_family(name).choices
        assert choices is None or (isinstance(choices, int) and choices >= 2), name


def test_declared_choices_are_balanced() -> None:
    """A k-choice family draws its labels evenly: no label far above 1/k on 700 items."""
    for name in registry.list_families():
        family = registry.get_family(name)
        if family.choices is None:
            continue
        for level in range(len(family.levels)):
            items = create_dataset(name, level=level, seed=SEED, size=700, on_shortfall="truncate")
            counts: dict[str, int] = {}
            for item in items:
                counts[item["answer"]] = counts.get(item["answer"], 0) + 1
            top = max(counts.values()) / len(items)
            assert top <= 1 / family.choices + 0.05, f"{name} L{level}: top label share {top:.3f}"


def test_candidates_rank_frequent_golds_first() -> None:
    candidates = priors.constant_candidates(["3", "5", "3", "x", "5", "3"], extra=("yes", "3"), top=2)
    assert candidates == ["3", "5", "yes"]


def test_best_constant_finds_the_majority_label() -> None:
    items = [{"answer": answer} for answer in ("7", "7", "7", "2")]
    answer, reward = priors.best_constant("gcd_lcm", items, ["2", "7", "junk"])
    assert (answer, reward) == ("7", 0.75)


def _same_int(junk: str, gold: object) -> bool:
    """Whether a junk constant is the gold's own integer ("0" for a gold of "0x0")."""
    try:
        return int(junk, 0) == int(str(gold).strip(), 0)
    except ValueError:
        return False


@pytest.mark.parametrize(("name", "level"), FAST_GRID, ids=[f"{n}-L{lv}" for n, lv in FAST_GRID])
def test_constant_and_wrong_answers_score_zero(name: str, level: int) -> None:
    """Junk constants score 0 on every item whose gold they are not."""
    items = list(create_dataset(name, level=level, seed=SEED, size=10, on_shortfall="truncate"))
    for item in items:
        for junk in priors.JUNK_ANSWERS:
            if junk.strip().casefold() == str(item["answer"]).strip().casefold() or _same_int(junk, item["answer"]):
                continue
            value = score(name, junk, item)
            assert value == 0.0, f"{name} L{level}: {junk!r} scored {value} (gold {item['answer']!r})"
