"""Solve a letter-arithmetic addition: each letter stands for a different digit.

The puzzle is built from a true sum of random numbers whose digits are replaced by
letters (one letter per digit, consistently); leading letters are never zero. The solver
searches for an assignment of digits under the column and carry constraints. Harder
levels add more and longer addends, so there are more letters and carries to track.

Any assignment that makes the sum true is accepted: the scorer substitutes the answer's
digits and checks the addition, that every letter has a digit, that different letters
have different digits and that no number starts with 0. A partial mapping, two digits
for one letter or a mapping that breaks the sum scores 0.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "cryptarithm"

_PAIR = re.compile(r"([A-Za-z])=(\d)")
_ATTEMPTS = 50


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"addends": (2, 5), "min_digits": (1, 8), "max_digits": (1, 8)}

    addends: int = 2
    min_digits: int = 2
    max_digits: int = 3

    def check(self) -> None:
        if self.min_digits > self.max_digits:
            raise ValueError("Config.min_digits must be <= max_digits")


LEVELS = (
    {"addends": 2, "min_digits": 2, "max_digits": 3},
    {"addends": 2, "min_digits": 3, "max_digits": 3},
    {"addends": 2, "min_digits": 3, "max_digits": 4},
    {"addends": 3, "min_digits": 3, "max_digits": 4},
    {"addends": 3, "min_digits": 4, "max_digits": 5},
    {"addends": 4, "min_digits": 4, "max_digits": 5},
)


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_ATTEMPTS):
        numbers = [
            rng.randint(10 ** (d - 1), 10**d - 1)
            for d in (rng.randint(config.min_digits, config.max_digits) for _ in range(config.addends))
        ]
        total = sum(numbers)
        digits = sorted({ch for n in [*numbers, total] for ch in str(n)})
        if len(digits) >= 3:
            break
    letters = rng.sample(string.ascii_uppercase, len(digits))
    code = dict(zip(digits, letters))
    words = ["".join(code[ch] for ch in str(n)) for n in numbers]
    result = "".join(code[ch] for ch in str(total))
    width = len(result)
    layout = (
        "\n".join(f"  {w:>{width}}" for w in words[:-1])
        + f"\n+ {words[-1]:>{width}}\n"
        + "-" * (width + 2)
        + f"\n  {result}"
    )
    question = (
        "Solve this addition puzzle: each letter stands for a digit, different letters for different digits, and "
        f"no number starts with 0.\n\n{layout}\n\n"
        f"Give a digit for every letter as letter=digit pairs separated by commas, for example A=1, B=2."
    )
    answer = ", ".join(f"{code[d]}={d}" for d in sorted(digits, key=lambda d: code[d]))
    return Problem(question, answer, {"addends": words, "result": result})


def parse_mapping(text: str, limit: int) -> dict[str, int] | None:
    """``A=1, B=2`` (commas, semicolons or spaces between pairs) as a dict; None otherwise."""
    if len(text) > 12 * limit + 32:
        return None
    body = re.sub(r"\s*=\s*", "=", text.strip().strip("{}"))
    mapping: dict[str, int] = {}
    for part in re.split(r"[,;\s]+", body):
        if not part:
            continue
        match = _PAIR.fullmatch(part)
        if match is None:
            return None
        letter = match.group(1).upper()
        if letter in mapping:
            return None
        mapping[letter] = int(match.group(2))
    return mapping or None


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for any letter-to-digit assignment that makes the printed addition true."""
    try:
        meta = item.get("metadata") or {}
        words = [str(w) for w in meta["addends"]]
        result = str(meta["result"])
        letters = {ch for word in [*words, result] for ch in word}
        mapping = parse_mapping(extract_answer(answer_text), len(letters))
        if mapping is None or set(mapping) != letters or len(set(mapping.values())) != len(mapping):
            return 0.0
        if any(mapping[word[0]] == 0 for word in [*words, result] if len(word) > 1):
            return 0.0

        def value(word: str) -> int:
            return int("".join(str(mapping[ch]) for ch in word))

        return 1.0 if sum(value(w) for w in words) == value(result) else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Letter-arithmetic addition: any digit assignment that makes the sum true (verified).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:cryptarithm",
)
