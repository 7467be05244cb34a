"""base_conversion: the inline draws equal ``rng.sample`` and ``rng.randint``, and the gold
is the value written in the target base."""

from __future__ import annotations

import random

import pytest

from generators.families.arithmetic import base_conversion


@pytest.mark.parametrize("level", range(6))
def test_inline_draws_equal_sample_and_randint(level: int) -> None:
    """Levels 0-1 draw from 4 bases (the sample's pool branch), levels 2-5 from 15 or 35
    (pool branch, then its selected-set branch over 21)."""
    config = base_conversion.FAMILY.config_for_level(level)
    ours, theirs = random.Random(level), random.Random(level)
    for _ in range(500):
        problem = base_conversion.generate(config, ours)
        source, target = theirs.sample(base_conversion._bases(config), 2)
        value = theirs.randint(1, config.max_value)
        assert (problem.extra["source_base"], problem.extra["target_base"], problem.extra["value"]) == (
            source,
            target,
            value,
        )
        assert int(problem.answer, target) == value
        assert int(base_conversion.to_base(value, source), source) == value
    assert ours.getstate() == theirs.getstate()
