"""Levenshtein edit distance between two strings.

Tests alignment reasoning: the second string is derived from the first by random
insertions, deletions and substitutions, but the minimal number of edits can be smaller
than the number applied. Harder levels use longer strings, more edits and a smaller
alphabet (more accidental matches, so position-by-position counting is wrong).
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "edit_distance"


@dataclass(frozen=True)
class Config(Knobs):
    length: int = 5
    edits: int = 2
    """Most random edits applied; each item applies 1 to this many, so distances spread
    over many values and no single count is a good guess."""
    alphabet_size: int = 26
    indels: bool = True
    """Allow insertions and deletions (otherwise only substitutions, i.e. Hamming-like)."""

    RANGES: ClassVar = {"length": (2, 40), "edits": (1, 30), "alphabet_size": (2, 26)}


LEVELS = (
    {"length": 18, "edits": 18, "alphabet_size": 26, "indels": False},
    {"length": 20, "edits": 18, "alphabet_size": 26},
    {"length": 24, "edits": 18, "alphabet_size": 10},
    {"length": 28, "edits": 18, "alphabet_size": 6},
    {"length": 36, "edits": 18, "alphabet_size": 4},
    {"length": 40, "edits": 20, "alphabet_size": 4},
)


def levenshtein(a: str, b: str) -> int:
    """Unit-cost insert/delete/substitute distance, bit-parallel (Myers 1999, Hyyrö 2001).

    One column of the Wagner-Fischer table is held as two bit vectors of vertical
    +1/-1 steps over ``a``'s positions, and each character of ``b`` updates them with a
    handful of integer operations: the same distances as the cell-by-cell table
    (the tests compare both), about ten times faster at the lengths used here.
    """
    if not a:
        return len(b)
    m = len(a)
    peq: dict[str, int] = {}
    for i, c in enumerate(a):
        peq[c] = peq.get(c, 0) | (1 << i)
    mask, last = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for c in b:
        eq = peq.get(c, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | ~(xh | pv)
        mh = pv & xh
        if ph & last:
            score += 1
        elif mh & last:
            score -= 1
        ph = (ph << 1) | 1
        mh <<= 1
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv & mask
    return score


def levenshtein_table(a: str, b: str) -> int:
    """Two-row Wagner-Fischer, cell by cell: the reference :func:`levenshtein` is tested against."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _mutate(word: list[str], letters: str, edits: int, indels: bool, rng: random.Random) -> list[str]:
    out = list(word)
    for _ in range(edits):
        ops = ["sub", "ins", "del"] if indels else ["sub"]
        if len(out) <= 1 and "del" in ops:
            ops.remove("del")
        op = rng.choice(ops)
        if op == "sub":
            i = rng.randrange(len(out))
            out[i] = rng.choice([c for c in letters if c != out[i]] or list(letters))
        elif op == "ins":
            out.insert(rng.randint(0, len(out)), rng.choice(letters))
        else:
            del out[rng.randrange(len(out))]
    return out


def generate(config: Config, rng: random.Random) -> Problem:
    letters = string.ascii_lowercase[: config.alphabet_size]
    first = [rng.choice(letters) for _ in range(config.length)]
    applied = rng.randint(1, config.edits)
    if config.indels:
        # Edits can cancel, so keep editing until the distance reaches the drawn count:
        # one edit moves the distance by at most 1, so it lands on it exactly.
        # ``bound`` caps the distance (one edit moves it by at most 1), so the distance is
        # only computed when it could have reached the count: the same edits, fewer tables.
        second = _mutate(first, letters, applied, config.indels, rng)
        source, bound = "".join(first), applied
        for _ in range(4 * config.edits):
            if bound >= applied:
                bound = levenshtein(source, "".join(second))
                if bound >= applied:
                    break
            second = _mutate(second, letters, 1, config.indels, rng)
            bound += 1
    else:  # substitutions at distinct positions: the distance is (nearly always) the count
        second = list(first)
        for i in rng.sample(range(len(first)), min(applied, len(first))):
            second[i] = rng.choice([c for c in letters if c != second[i]])
    a, b = "".join(first), "".join(second)
    if a == b:  # substitutions can cancel; always ask about a real difference
        b = b[:-1] + next(c for c in letters if c != b[-1])
    distance = levenshtein(a, b)
    question = (
        f'What is the edit (Levenshtein) distance between "{a}" and "{b}"? One edit inserts, '
        "deletes or replaces a single character. Answer with the minimum number of edits as an "
        "integer."
    )
    return Problem(question=question, answer=str(distance), extra={"a": a, "b": b})


FAMILY = Family(
    name=NAME,
    description="Levenshtein distance between two strings built by random edits.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
)
