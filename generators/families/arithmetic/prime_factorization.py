"""Prime factorisation of a composite number, written as a product of prime powers.

The number is built from random primes, so the answer is known by construction and
generation never factors anything. Scoring parses the factor multiset, so ``2^3 * 3``,
``2**3 × 3`` and ``2*2*2*3`` all count, while any extra or missing factor does not.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "prime_factorization"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"min_factors": (1, 20), "max_factors": (1, 20), "max_prime": (2, 100_000)}

    min_factors: int = 2
    max_factors: int = 4
    max_prime: int = 30

    def check(self) -> None:
        if self.min_factors > self.max_factors:
            raise ValueError(f"Config.min_factors ({self.min_factors}) exceeds max_factors ({self.max_factors})")


LEVELS = (
    {"min_factors": 2, "max_factors": 4, "max_prime": 50},
    {"min_factors": 3, "max_factors": 5, "max_prime": 80},
    {"min_factors": 3, "max_factors": 6, "max_prime": 100},
    {"min_factors": 4, "max_factors": 7, "max_prime": 300},
    {"min_factors": 4, "max_factors": 8, "max_prime": 1000},
    {"min_factors": 5, "max_factors": 9, "max_prime": 5000},
)


@cache
def primes_up_to(limit: int) -> tuple[int, ...]:
    """Sieve of Eratosthenes; cached because levels reuse a handful of limits."""
    sieve = bytearray([1]) * (limit + 1)
    sieve[0] = sieve[1] = 0
    for p in range(2, int(limit**0.5) + 1):
        if sieve[p]:
            sieve[p * p :: p] = bytearray(len(range(p * p, limit + 1, p)))
    return tuple(i for i in range(2, limit + 1) if sieve[i])


def format_factors(factors: Mapping[int, int]) -> str:
    """``2^3 * 3^2 * 5``: the primes in increasing order, an exponent only above 1 (the
    answer's form; ``generate`` writes it from its sorted draws)."""
    return " * ".join([f"{p}^{k}" if k > 1 else str(p) for p, k in sorted(factors.items())])


@cache
def _table(limit: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The primes up to ``limit`` and their decimals, by the same index: a drawn index gives
    both, and no ``str`` is made per factor in the answer."""
    primes = primes_up_to(limit)
    return primes, tuple(str(p) for p in primes)


_TERM = re.compile(r"^(\d+)(?:\s*(?:\^|\*\*)\s*(\d+))?$")


def parse_factors(text: str) -> Counter[int] | None:
    """Multiset of factors from ``2^3 * 3``-like text, or ``None`` if it is not one product."""
    cleaned = text.replace("×", "*").replace("·", "*").replace("\\cdot", "*").replace("\\times", "*")
    cleaned = re.sub(r"\^\{(\d+)\}", r"^\1", cleaned)
    if "=" in cleaned:
        cleaned = cleaned.rsplit("=", 1)[1]
    cleaned = cleaned.replace("**", "^")
    factors: Counter[int] = Counter()
    for term in cleaned.split("*"):
        match = _TERM.match(term.strip())
        if not match:
            return None
        base, exponent = int(match.group(1)), int(match.group(2) or 1)
        if base < 2 or exponent < 1 or exponent > 64:
            return None
        factors[base] += exponent
    return factors


def generate(config: Config, rng: random.Random) -> Problem:
    primes, texts = _table(config.max_prime)
    getrandbits = rng.getrandbits
    # ``rng.randint(min_factors, max_factors)`` and ``rng.choice(primes)`` per factor with
    # their draws inline (the same getrandbits calls).
    low = config.min_factors
    span = config.max_factors - low + 1
    bits = span.bit_length()
    r = getrandbits(bits)
    while r >= span:
        r = getrandbits(bits)
    size = len(primes)
    bits = size.bit_length()
    # The drawn indices, sorted: the primes in increasing order with repeats side by side,
    # so the answer is written in one pass (no dict of exponents and no sort of its items).
    drawn: list[int] = []
    append = drawn.append
    number = 1
    for _ in range(low + r):
        r = getrandbits(bits)
        while r >= size:
            r = getrandbits(bits)
        append(r)
        number *= primes[r]
    drawn.sort()
    parts: list[str] = []
    previous, k = drawn[0], 0
    for r in drawn:
        if r == previous:
            k += 1
        else:
            parts.append(f"{texts[previous]}^{k}" if k > 1 else texts[previous])
            previous, k = r, 1
    parts.append(f"{texts[previous]}^{k}" if k > 1 else texts[previous])
    question = (
        f"Find the prime factorization of {number}. Write it as a product of prime powers in "
        "increasing order, for example 2^3 * 3^2 * 5."
    )
    return Problem(question, " * ".join(parts), {"number": number})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    try:
        got = parse_factors(extract_answer(answer_text))
        want = parse_factors(str(item["answer"]))
        return 1.0 if got is not None and want is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:prime_factorization",
    description="Prime factorisation of a number built from random primes.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    notes="Level 0 (2-4 prime factors up to 50) has about 3,900 distinct numbers.",
)
