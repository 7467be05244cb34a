"""Apply a chain of precisely specified string operations and report the result.

Tests faithful step-by-step execution with exact bookkeeping of characters, case and word
boundaries. Harder levels chain more operations over longer strings, draw from trickier
operation tiers (position-based ones such as "delete every k-th character" or alternating
case, where off-by-one slips are easy), and may end with counting letters in the result.
The count is over two to four letters at once: a single letter occurs once in about half
of the final strings, so a constant "1" would earn reward, while the total spreads out.
Items whose intermediate strings would gain leading, trailing or doubled spaces are
resampled, so the expected output is always one unambiguous line.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS, words_by_length

NAME = "string_manipulation"

VOWELS = "aeiouAEIOU"


@dataclass(frozen=True)
class Config(Knobs):
    min_words: int = 2
    max_words: int = 3
    min_ops: int = 1
    max_ops: int = 1
    tier: int = 1
    """Operation pool: 1 simple, 2 adds per-word and letter edits, 3 adds position-based ones."""
    count_probability: float = 0.0
    """Chance that the question ends by counting some letters in the final string."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_words": (1, 12),
        "max_words": (1, 12),
        "min_ops": (1, 8),
        "max_ops": (1, 8),
        "tier": (1, 3),
        "count_probability": (0.0, 1.0),
    }

    def check(self) -> None:
        if self.min_words > self.max_words:
            raise ValueError("string_manipulation: min_words must be <= max_words")
        if self.min_ops > self.max_ops:
            raise ValueError("string_manipulation: min_ops must be <= max_ops")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_words": 2, "max_words": 3, "min_ops": 1, "max_ops": 1, "tier": 1},
    {"min_words": 3, "max_words": 4, "min_ops": 2, "max_ops": 2, "tier": 1},
    {"min_words": 3, "max_words": 5, "min_ops": 2, "max_ops": 3, "tier": 2},
    {"min_words": 4, "max_words": 6, "min_ops": 3, "max_ops": 3, "tier": 2, "count_probability": 0.3},
    {"min_words": 5, "max_words": 7, "min_ops": 4, "max_ops": 4, "tier": 3, "count_probability": 0.3},
    {"min_words": 6, "max_words": 8, "min_ops": 5, "max_ops": 6, "tier": 3, "count_probability": 0.3},
)

Op = tuple[str, Callable[[str], str]]


def _alternate_case(s: str) -> str:
    return "".join(c.upper() if i % 2 == 0 else c.lower() for i, c in enumerate(s))


def _drop_every(s: str, k: int) -> str:
    return "".join(c for i, c in enumerate(s, start=1) if i % k != 0)


def _sort_words(s: str) -> str:
    return " ".join(sorted(s.split(), key=str.lower))


def _make_op(name: str, s: str, rng: random.Random) -> Op:
    """A (description, function) pair; parameters are drawn so the op changes something."""
    if name == "reverse_string":
        return "Reverse the entire string character by character.", lambda t: t[::-1]
    if name == "reverse_words":
        return "Reverse the order of the words (each word keeps its letters).", lambda t: " ".join(t.split()[::-1])
    if name == "upper":
        return "Convert every letter to uppercase.", str.upper
    if name == "lower":
        return "Convert every letter to lowercase.", str.lower
    if name == "reverse_each":
        return (
            "Reverse the letters inside each word, keeping the words in their order.",
            lambda t: " ".join(w[::-1] for w in t.split()),
        )
    if name == "capitalize":
        return (
            "Make the first letter of every word uppercase and all its other letters lowercase.",
            lambda t: " ".join(w[:1].upper() + w[1:].lower() for w in t.split()),
        )
    if name == "remove_vowels":
        return (
            "Delete every vowel (a, e, i, o, u, in either case); y is not a vowel.",
            lambda t: "".join(c for c in t if c not in VOWELS),
        )
    if name == "replace":
        letters = sorted({c for c in s if c.isalpha()})
        old = rng.choice(letters) if letters else "a"
        new = rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != old.lower()])
        if old.isupper():
            new = new.upper()
        return f"Replace every '{old}' with '{new}' (case-sensitive).", lambda t: t.replace(old, new)
    if name == "sort_words":
        return "Sort the words alphabetically, ignoring letter case.", _sort_words
    if name == "rotate_words":
        k = rng.randint(1, 3)
        what = "first word" if k == 1 else f"first {k} words"
        return (
            f"Move the {what} to the end of the string, keeping the order of the moved words.",
            lambda t: " ".join(t.split()[k:] + t.split()[:k]),
        )
    if name == "alternate_case":
        return (
            "Make the characters at odd positions (1st, 3rd, 5th, ...) uppercase and those at even positions "
            "lowercase, counting every character including spaces.",
            _alternate_case,
        )
    if name == "drop_every":
        k = rng.randint(2, 4)
        ordinal = {2: "2nd", 3: "3rd", 4: "4th"}[k]
        return (
            f"Delete every {ordinal} character (positions {k}, {2 * k}, {3 * k}, ... counted from 1 in the "
            "current string, including spaces).",
            lambda t: _drop_every(t, k),
        )
    raise ValueError(f"unknown op {name}")


TIER_OPS: tuple[tuple[str, ...], ...] = (
    ("reverse_string", "reverse_words", "upper"),
    (
        "reverse_string",
        "reverse_words",
        "upper",
        "lower",
        "reverse_each",
        "capitalize",
        "remove_vowels",
        "replace",
        "sort_words",
    ),
    (
        "reverse_string",
        "reverse_words",
        "upper",
        "lower",
        "reverse_each",
        "capitalize",
        "remove_vowels",
        "replace",
        "sort_words",
        "rotate_words",
        "alternate_case",
        "drop_every",
    ),
)


def _clean(s: str) -> bool:
    return bool(s) and s == " ".join(s.split())


def _sort_is_ambiguous(s: str) -> bool:
    words = s.split()
    by_lower: dict[str, str] = {}
    return any(by_lower.setdefault(w.lower(), w) != w for w in words)


def generate(config: Config, rng: random.Random) -> Problem:
    pool = words_by_length(WORDS, 3, 8)
    ops_pool = TIER_OPS[config.tier - 1]
    for _ in range(200):
        start = " ".join(rng.sample(pool, rng.randint(config.min_words, config.max_words)))
        current = start
        steps: list[str] = []
        ok = True
        previous = ""
        for _ in range(rng.randint(config.min_ops, config.max_ops)):
            name = rng.choice([n for n in ops_pool if n != previous])
            previous = name
            if name == "sort_words" and _sort_is_ambiguous(current):
                ok = False
                break
            text, fn = _make_op(name, current, rng)
            result = fn(current)
            if not _clean(result) or result == current:
                ok = False
                break
            steps.append(text)
            current = result
        if ok:
            break
    else:
        raise ValueError("string_manipulation: could not build a clean operation chain")
    listing = "\n".join(f"{i}. {step}" for i, step in enumerate(steps, start=1))
    if rng.random() < config.count_probability:
        # Several letters at once: one letter's count is 1 about half the time, a constant
        # "1" would earn reward; the total over 2-4 letters spreads over a dozen values.
        pool_letters = sorted({c.lower() for c in current if c.isalpha()})
        if len(pool_letters) < 4:
            pool_letters = sorted({c.lower() for c in current + start if c.isalpha()})
        letters = sorted(rng.sample(pool_letters, min(rng.randint(2, 4), len(pool_letters))))
        answer = str(sum(current.lower().count(letter) for letter in letters))
        named = ", ".join(f"'{letter}'" for letter in letters)
        ask = (
            f"After the last step, how many characters of the string are one of the letters {named} (in either "
            "case)? Count every occurrence of each of them and answer with a single integer: the total."
        )
    else:
        answer = current
        ask = "Answer with the final string only, exactly (letter case and single spaces matter), without quotes."
    question = (
        f'Start with the string: "{start}"\n'
        f"Apply these operations in order, each to the result of the previous one:\n{listing}\n\n{ask}"
    )
    return Problem(question=question, answer=answer, extra={"start": start, "steps": steps, "final": current})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:string_manipulation",
    description="Execute a chain of exact string operations (reversals, case changes, deletions, ...).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    notes="Answers are case-sensitive exact strings; counting questions have plain integer answers.",
)
