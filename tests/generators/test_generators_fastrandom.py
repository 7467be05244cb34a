"""FastRandom draws exactly what random.Random draws, method by method, and leaves the same state."""

from __future__ import annotations

import random
import string

import pytest

from generators.fastrandom import FastRandom


def _calls(rng: random.Random, driver: random.Random) -> list[object]:
    """A long mixed stream of the overridden methods, arguments chosen by ``driver``."""
    out: list[object] = []
    for _ in range(3000):
        kind = driver.randrange(8)
        if kind == 0:
            a = driver.randint(-(10**12), 10**12)
            out.append(rng.randint(a, a + driver.choice((0, 1, 2, 5, 63, 64, 65, 10**9, 2**70))))
        elif kind == 1:
            out.append(rng.randrange(driver.randint(1, 10**6)))
        elif kind == 2:
            a = driver.randint(-50, 50)
            out.append(rng.randrange(a, a + driver.randint(1, 300)))
            out.append(rng.randrange(a, a + driver.randint(1, 300), driver.randint(1, 40)))
        elif kind == 3:
            out.append(rng.choice(string.ascii_letters[: driver.randint(1, 52)]))
        elif kind == 4:
            items = list(range(driver.randint(0, 40)))
            rng.shuffle(items)
            out.append(items)
        elif kind == 5:
            population = range(driver.choice((1, 5, 21, 30, 500)))
            out.append(rng.sample(population, driver.randint(0, min(len(population), 12))))
        elif kind == 6:  # both branches at larger k, over every plain sequence type
            size = driver.choice((3, 40, 200, 3000))
            population = driver.choice((list(range(size)), tuple(range(size)), "x" * size, range(size)))
            out.append(rng.sample(population, driver.randint(0, min(size, 150))))
        else:
            out.append(rng.random())
    return out


@pytest.mark.parametrize("seed", [0, 1, 2**63 + 5, 987654321])
def test_every_method_draws_the_same_as_random_random(seed: int) -> None:
    plain, fast = random.Random(seed), FastRandom(seed)
    assert _calls(fast, random.Random(seed + 1)) == _calls(plain, random.Random(seed + 1))
    assert fast.getstate() == plain.getstate()


def test_shuffle_and_sample_past_their_tables_draw_the_same() -> None:
    """Sizes around the 1,024-entry table of bit widths and sample sizes around the 256-entry
    table of ``setsize`` (looked up below, computed above), both of sample's branches."""
    plain, fast = random.Random(9), FastRandom(9)
    for size in (0, 1, 2, 1023, 1024, 1025, 1026, 3000):
        ours, theirs = list(range(size)), list(range(size))
        fast.shuffle(ours)
        plain.shuffle(theirs)
        assert ours == theirs
    for size, k in ((1030, 150), (1024, 150), (1100, 256), (1100, 257), (1100, 300), (5000, 300), (26, 14)):
        assert fast.sample(range(size), k) == plain.sample(range(size), k)
    assert fast.getstate() == plain.getstate()


def test_cases_off_the_fast_path_behave_as_random_random() -> None:
    plain, fast = random.Random(4), FastRandom(4)
    assert fast.randrange(20, 0, -3) == plain.randrange(20, 0, -3)
    assert fast.randint(True, 5) == plain.randint(True, 5)
    assert fast.sample([1, 2, 3], 2, counts=[2, 1, 1]) == plain.sample([1, 2, 3], 2, counts=[2, 1, 1])
    assert fast.getstate() == plain.getstate()
    for bad in (
        lambda r: r.choice(""),
        lambda r: r.randint(5, 4),
        lambda r: r.randrange(0),
        lambda r: r.randrange(5, 5, 2),
        lambda r: r.randrange(5, step=2),
        lambda r: r.sample(range(3), 4),
    ):
        with pytest.raises((IndexError, ValueError, TypeError)):
            bad(fast)
