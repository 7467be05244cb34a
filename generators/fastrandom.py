"""``FastRandom``: ``random.Random`` with the same draws and fewer Python frames per draw.

Every family draws through ``rng.randint`` / ``choice`` / ``randrange`` / ``shuffle`` /
``sample``. In CPython each of those is two or three Python frames deep
(``randint`` -> ``randrange`` -> ``_randbelow_with_getrandbits``) around one C
``getrandbits`` call, and those frames, not the Mersenne Twister, were most of a cheap
family's generation time in the profiles (``benchmarks/GENERATORS.md``). The methods
here do the same arithmetic inline: the same ``getrandbits(k)`` calls in the same order
with the same rejection loop, so every result and the generator's state afterwards are
those of ``random.Random`` (the tests compare long streams of every method against it).
Arguments outside the plain-``int`` fast path (floats, bools, steps other than 1, empty
sequences, ``counts=``) go to ``random.Random``'s own code, errors included.
"""

from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from math import ceil, log
from typing import Any, TypeVar

__all__ = ["FastRandom"]

T = TypeVar("T")

_PLAIN_SEQUENCES = frozenset({list, tuple, range, str})
_WIDTHS = tuple(n.bit_length() for n in range(1025))
"""``n.bit_length()`` by ``n``, for ``shuffle`` and ``sample``."""
_SETSIZES = tuple(21 + (4 ** ceil(log(k * 3, 4)) if k > 5 else 0) for k in range(257))
"""``random.Random.sample``'s ``setsize`` by ``k`` (which branch it takes), computed once."""


class FastRandom(random.Random):
    """``random.Random`` whose integer draws skip the intermediate Python frames."""

    def randint(self, a: int, b: int) -> int:
        if type(a) is int and type(b) is int and b >= a:
            n = b - a + 1
            k = n.bit_length()
            getrandbits = self.getrandbits
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            return a + r
        return super().randint(a, b)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:  # type: ignore[override]
        if type(step) is int and step > 0 and type(start) is int and (stop is None or type(stop) is int):
            if stop is None:
                low, n = 0, (start if step == 1 else 0)  # a step without a stop: Random's error
            else:
                low, n = start, (stop - start + step - 1) // step
            if n > 0:
                k = n.bit_length()
                getrandbits = self.getrandbits
                r = getrandbits(k)
                while r >= n:
                    r = getrandbits(k)
                return low + step * r
        return super().randrange(start, stop, step)

    def choice(self, seq: Sequence[T]) -> T:  # type: ignore[override]
        n = len(seq)
        if n:
            k = n.bit_length()
            getrandbits = self.getrandbits
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            return seq[r]
        return super().choice(seq)

    def shuffle(self, x: MutableSequence[Any]) -> None:  # type: ignore[override]
        """Random's swaps from the top down; the bit widths of up to 1,024 items are looked
        up, not computed per swap."""
        getrandbits = self.getrandbits
        size = len(x)
        widths = _WIDTHS if size < len(_WIDTHS) else [n.bit_length() for n in range(size + 1)]
        for n in range(size, 1, -1):  # n = i + 1 for Random's i from size - 1 down to 1
            k = widths[n]
            j = getrandbits(k)
            while j >= n:
                j = getrandbits(k)
            i = n - 1
            x[i], x[j] = x[j], x[i]

    def sample(self, population: Sequence[T], k: int, *, counts: Any = None) -> list[T]:  # type: ignore[override]
        """Both branches of ``random.Random.sample`` inline (pool and selected-set); ``counts=``
        and errors are delegated. A list, tuple, range or str skips the ``Sequence`` check,
        an ABC lookup that cost as much as the draws for a small sample."""
        if counts is not None or type(k) is not int:
            return super().sample(population, k, counts=counts)
        if type(population) not in _PLAIN_SEQUENCES and not isinstance(population, Sequence):
            return super().sample(population, k)
        n = len(population)
        if not 0 <= k <= n:
            return super().sample(population, k)
        setsize = _SETSIZES[k] if k < len(_SETSIZES) else 21 + 4 ** ceil(log(k * 3, 4))
        getrandbits = self.getrandbits
        if n > setsize:
            bits = n.bit_length()
            selected: set[int] = set()
            selected_add = selected.add
            picked = []
            for _ in range(k):
                j = getrandbits(bits)
                while j >= n or j in selected:  # Random's two loops make these same draws
                    j = getrandbits(bits)
                selected_add(j)
                picked.append(population[j])
            return picked
        pool = list(population)
        result = [pool[0]] * k if k else []
        widths = _WIDTHS if n < len(_WIDTHS) else [m.bit_length() for m in range(n + 1)]
        for i in range(k):
            m = n - i
            bits = widths[m]
            j = getrandbits(bits)
            while j >= m:
                j = getrandbits(bits)
            result[i] = pool[j]
            pool[j] = pool[m - 1]
        return result
