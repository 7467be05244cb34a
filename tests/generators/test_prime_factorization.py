"""prime_factorization: the inline draws and the looked-up answer text are those of the plain
form (``randint``, ``choice`` per factor, ``format_factors``), and the gold scores."""

from __future__ import annotations

import random
from typing import Any

import pytest

from generators.dataset import create_dataset, score
from generators.families.arithmetic import prime_factorization as pf

NAME = "prime_factorization"


def _reference_generate(config: Any, rng: random.Random) -> tuple[int, str]:
    """The generator's draws in their plain form."""
    primes = pf.primes_up_to(config.max_prime)
    factors: dict[int, int] = {}
    number = 1
    for _ in range(rng.randint(config.min_factors, config.max_factors)):
        p = rng.choice(primes)
        factors[p] = factors.get(p, 0) + 1
        number *= p
    return number, pf.format_factors(factors)


@pytest.mark.parametrize("level", range(6))
def test_inline_draws_equal_the_plain_form(level: int) -> None:
    config = pf.FAMILY.config_for_level(level)
    ours, theirs = random.Random(level), random.Random(level)
    for _ in range(200):
        problem = pf.generate(config, ours)
        number, answer = _reference_generate(config, theirs)
        assert problem.extra["number"] == number and problem.answer == answer
        assert f"factorization of {number}." in problem.question
    assert ours.getstate() == theirs.getstate()


def test_one_factor_count_and_the_gold_scores() -> None:
    config = pf.Config(min_factors=3, max_factors=3, max_prime=7)
    ours, theirs = random.Random(1), random.Random(1)
    for _ in range(50):
        assert pf.generate(config, ours).answer == _reference_generate(config, theirs)[1]
    assert ours.getstate() == theirs.getstate()
    item = create_dataset(NAME, level=5, seed=2, size=1)[0]
    assert score(NAME, item["answer"], item) == 1.0
    assert score(NAME, item["answer"] + " * 2", item) == 0.0
