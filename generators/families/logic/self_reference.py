"""Self-referential statements: which of them are true?

Tests reasoning about a fixed point: a list of statements talks about how many of the
statements are true or false ("at least 3 of these statements are true", "the number of
false statements is prime", "statement 2 is false", "either statement 1 or statement 4 is
true, but not both"). A statement is true exactly when what it says holds for the whole
list. Every item has exactly one consistent assignment, checked by the family's solver, and
the answer is the set of numbers of the true statements. The assignment is planted (one to
n - 1 statements true, each statement drawn to agree with it), so answers spread over many
sets instead of piling up on "none". Harder levels
use more statements, unlock the number-property and cross-reference kinds, and reference
other statements more often, which ties the cases together.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "self_reference"

_COUNT_KINDS = ("at_least_true", "at_most_false", "exactly_true", "exactly_false")
_PROPERTY_KINDS = ("true_prime", "false_composite", "true_even", "false_square")
_REFERENCE_KINDS = ("is_true", "is_false", "either")
_PRIMES = {2, 3, 5, 7, 11, 13}
_MAX_TRIES = 300

Statement = tuple[str, int, int]
"""(kind, a, b): a is the count for count kinds, the referenced statement(s) for references."""


@dataclass(frozen=True)
class Config(Knobs):
    statements: int = 4
    tiers: int = 1
    """1: counting statements; 2: adds number properties; 3: adds references to other statements."""
    reference_rate: float = 0.0

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "statements": (3, 10),
        "tiers": (1, 3),
        "reference_rate": (0.0, 0.6),
    }


LEVELS = (
    {"statements": 5, "tiers": 2, "reference_rate": 0.0},
    {"statements": 6, "tiers": 2, "reference_rate": 0.0},
    {"statements": 6, "tiers": 3, "reference_rate": 0.2},
    {"statements": 7, "tiers": 3, "reference_rate": 0.25},
    {"statements": 8, "tiers": 3, "reference_rate": 0.3},
    {"statements": 9, "tiers": 3, "reference_rate": 0.35},
)


def claim(statement: Statement, truths: tuple[bool, ...]) -> bool:
    """Whether what ``statement`` says holds when the statements have truth values ``truths``."""
    kind, a, b = statement
    n, t = len(truths), sum(truths)
    f = n - t
    if kind == "at_least_true":
        return t >= a
    if kind == "at_most_false":
        return f <= a
    if kind == "exactly_true":
        return t == a
    if kind == "exactly_false":
        return f == a
    if kind == "true_prime":
        return t in _PRIMES
    if kind == "false_composite":
        return f >= 4 and f not in _PRIMES
    if kind == "true_even":
        return t % 2 == 0
    if kind == "false_square":
        return f in (0, 1, 4, 9)
    if kind == "is_true":
        return truths[a]
    if kind == "is_false":
        return not truths[a]
    if kind == "either":
        return truths[a] != truths[b]
    raise ValueError(f"unknown statement kind {kind!r}")


@cache
def _count_table(n: int) -> dict[tuple[str, int], tuple[bool, ...]]:
    """For ``n`` statements: each count or property statement ``(kind, a)`` -> its truth for
    0..n true statements, read off :func:`claim`. Such a statement depends on that number
    only, and the solver and the draws asked it hundreds of times per item."""
    table: dict[tuple[str, int], tuple[bool, ...]] = {}
    for kind in _COUNT_KINDS + _PROPERTY_KINDS:
        for a in range(n + 1) if kind in _COUNT_KINDS else (0,):
            table[kind, a] = tuple(claim((kind, a, 0), tuple(i < t for i in range(n))) for t in range(n + 1))
    return table


@cache
def _combos_by_ones(refs: int) -> dict[int, list[int]]:
    """The ``refs``-bit masks grouped by how many bits they set."""
    by_ones: dict[int, list[int]] = {}
    for combo in range(1 << refs):
        by_ones.setdefault(combo.bit_count(), []).append(combo)
    return by_ones


def _holds(statement: Statement, truths: tuple[bool, ...] | list[bool], true_count: int) -> bool:
    """:func:`claim` with the number of true statements already counted (a table look-up
    for count and property kinds)."""
    kind, a, b = statement
    if kind == "is_true":
        return truths[a]
    if kind == "is_false":
        return not truths[a]
    if kind == "either":
        return truths[a] != truths[b]
    return _count_table(len(truths))[kind, a][true_count]


def solutions(statements: list[Statement], limit: int = 2) -> list[tuple[bool, ...]]:
    """Consistent truth assignments (up to ``limit``). Statements about counts are decided by
    the number of true statements, so only that number and the truth of the referring
    statements are enumerated."""
    n = len(statements)
    table = _count_table(n)
    refs = [i for i, s in enumerate(statements) if s[0] in _REFERENCE_KINDS]
    ref_statements = [(i, statements[i]) for i in refs]
    count_rows = [None if s[0] in _REFERENCE_KINDS else table[s[0], s[1]] for s in statements]
    by_ones = _combos_by_ones(len(refs))
    found: list[tuple[bool, ...]] = []
    for true_count in range(n + 1):
        fixed = [False if row is None else row[true_count] for row in count_rows]
        # The references must supply exactly the true statements the count ones leave over.
        for combo in by_ones.get(true_count - sum(fixed), []):
            truths = list(fixed)
            for k, i in enumerate(refs):
                truths[i] = bool(combo >> k & 1)
            # Count statements already agree with true_count; only the references need checking.
            for i, (kind, a, b) in ref_statements:
                if kind == "is_true":
                    holds = truths[a]
                elif kind == "is_false":
                    holds = not truths[a]
                else:
                    holds = truths[a] != truths[b]
                if holds != truths[i]:
                    break
            else:
                found.append(tuple(truths))
                if len(found) >= limit:
                    return found
    return found


_COUNT_AND_PROPERTY_KINDS = _COUNT_KINDS + _PROPERTY_KINDS
_COUNT_KINDS_SIZE = len(_COUNT_KINDS)


@cache
def _others(n: int, index: int) -> tuple[int, ...]:
    """The statements other than ``index``, which a reference may name (built once)."""
    return tuple(i for i in range(n) if i != index)


def _draw(config: Config, index: int, n: int, rng: random.Random) -> Statement:
    if config.tiers >= 3 and rng.random() < config.reference_rate:
        kind = rng.choice(_REFERENCE_KINDS)
        # rng.sample(others, 2) with its two draws inline (its pool branch, n <= 10).
        others = _others(n, index)
        getrandbits = rng.getrandbits
        m = len(others)
        bits = m.bit_length()
        j = getrandbits(bits)
        while j >= m:
            j = getrandbits(bits)
        bits = (m - 1).bit_length()
        k = getrandbits(bits)
        while k >= m - 1:
            k = getrandbits(bits)
        a, b = others[j], others[m - 1] if k == j else others[k]
        return (kind, min(a, b), max(a, b)) if kind == "either" else (kind, a, 0)
    # rng.choice(kinds), then rng.randint(0, n) for a count kind, with their draws inline.
    kinds = _COUNT_AND_PROPERTY_KINDS if config.tiers >= 2 else _COUNT_KINDS
    getrandbits = rng.getrandbits
    size = len(kinds)
    bits = size.bit_length()
    r = getrandbits(bits)
    while r >= size:
        r = getrandbits(bits)
    if r >= _COUNT_KINDS_SIZE:  # the kinds list the count kinds first
        return (kinds[r], 0, 0)
    bits = (n + 1).bit_length()
    a = getrandbits(bits)
    while a > n:
        a = getrandbits(bits)
    return (kinds[r], a, 0)


_PHRASES = {
    "at_least_true": "At least {a} of these {n} statements are true.",
    "at_most_false": "At most {a} of these {n} statements are false.",
    "exactly_true": "Exactly {a} of these {n} statements are true.",
    "exactly_false": "Exactly {a} of these {n} statements are false.",
    "true_prime": "The number of true statements is a prime number.",
    "false_composite": "The number of false statements is a composite number.",
    "true_even": "The number of true statements is even.",
    "false_square": "The number of false statements is a perfect square (0, 1, 4, 9, ...).",
    "is_true": "Statement {a1} is true.",
    "is_false": "Statement {a1} is false.",
    "either": "Either statement {a1} or statement {b1} is true, but not both.",
}
"""One template per kind: only the statement's own sentence is formatted."""


def _phrase(statement: Statement, n: int) -> str:
    kind, a, b = statement
    return _PHRASES[kind].format(a=a, n=n, a1=a + 1, b1=b + 1)


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.statements
    for _ in range(_MAX_TRIES):
        # Plant the answer: a random assignment with 1..n-1 true statements, each statement
        # drawn until it is true exactly when planted true; then keep only unique puzzles.
        # Unplanted draws made "none" the answer of a quarter of the items.
        planted = [False] * n
        for i in rng.sample(range(n), rng.randint(1, n - 1)):
            planted[i] = True
        truths = tuple(planted)
        true_count = sum(truths)
        statements = []
        for i in range(n):
            for _ in range(50):
                statement = _draw(config, i, n, rng)
                if _holds(statement, truths, true_count) == truths[i]:
                    break
            statements.append(statement)
        found = solutions(statements)
        if found == [truths]:
            break
    else:
        raise ValueError("self_reference: no statement list with exactly one consistent assignment")
    listing = "\n".join(f"{i + 1}. {_phrase(s, n)}" for i, s in enumerate(statements))
    question = (
        f"Consider these {n} statements about themselves. Each statement is either true or false, and it is "
        f"true exactly when what it says holds.\n{listing}\n\n"
        "Exactly one assignment of true and false to the statements is consistent. Which statements are true? "
        "Answer with their numbers separated by commas, or 'none' if no statement is true."
    )
    true_numbers = [str(i + 1) for i, value in enumerate(truths) if value]
    meta = {"statements": [list(s) for s in statements]}
    return Problem(question, ", ".join(true_numbers) or "none", meta)


FAMILY = Family(
    name=NAME,
    description="Which of n self-referential statements (counts, primes, cross-references) are true.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
    counterpart="reasoning_gym:self_reference",
)
