"""Decide which ransom notes can be built from the letters of one magazine.

Each magazine letter may be used once per note. Every note has the same length; each is
buildable with chance one half, independently. A note that is not buildable needs one
letter exactly once more than the magazine has, so only a careful count tells the two
kinds apart. Harder levels use longer notes and magazines over more letters, and more
notes.

The answer is the set of note numbers that can be built (``1, 3`` or ``none``); a
constant answer earns at most ``2**-notes`` and a guess no longer earns half the reward
(see ``_choose``).
"""

from __future__ import annotations

import random
import string
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem
from generators.families._choose import format_indices, parse_indices

NAME = "ransom_note"


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"notes": (4, 12), "note_length": (3, 60), "magazine_extra": (0, 100), "alphabet": (3, 26)}

    notes: int = 4
    note_length: int = 4
    magazine_extra: int = 4
    """Letters in the magazine beyond a note's length."""
    alphabet: int = 6


LEVELS = (
    {"notes": 4, "note_length": 4, "magazine_extra": 4, "alphabet": 6},
    {"notes": 4, "note_length": 6, "magazine_extra": 6, "alphabet": 8},
    {"notes": 5, "note_length": 8, "magazine_extra": 10, "alphabet": 10},
    {"notes": 5, "note_length": 12, "magazine_extra": 14, "alphabet": 12},
    {"notes": 6, "note_length": 16, "magazine_extra": 20, "alphabet": 16},
    {"notes": 8, "note_length": 24, "magazine_extra": 30, "alphabet": 20},
)


def _note(magazine: list[str], have: Counter[str], length: int, want: bool, rng: random.Random) -> str:
    if want:
        letters = rng.sample(magazine, length)
    else:
        # Prefer a letter the magazine has (a letter it lacks entirely is an easy tell).
        candidates = [ch for ch in sorted(have) if have[ch] + 1 <= max(1, length // 2)]
        short = rng.choice(candidates) if candidates else chr(ord(max(magazine)) + 1)
        rest = [ch for ch in magazine if ch != short]
        letters = [short] * (have[short] + 1) + rng.sample(rest, length - have[short] - 1)
        rng.shuffle(letters)
    note = "".join(letters)
    if all(have[ch] >= n for ch, n in Counter(note).items()) != want:
        raise ValueError("ransom_note: label does not match the note")
    return note


def generate(config: Config, rng: random.Random) -> Problem:
    pool = string.ascii_lowercase[: config.alphabet]
    magazine = [rng.choice(pool) for _ in range(config.note_length + config.magazine_extra)]
    labels = [rng.random() < 0.5 for _ in range(config.notes)]
    have = Counter(magazine)
    notes = [_note(magazine, have, config.note_length, want, rng) for want in labels]
    listed = "\n".join(f"{i}. {note}" for i, note in enumerate(notes, 1))
    question = (
        f"Magazine: {''.join(magazine)}\n"
        "Which of the ransom notes below can be written using the letters of the magazine, each magazine letter "
        f"used at most once (for each note separately)?\n{listed}\n"
        "Give the numbers of the notes that can be written, separated by commas (for example 1, 3), or none."
    )
    answer = format_indices([i for i, want in enumerate(labels, 1) if want])
    return Problem(question, answer, {"magazine": "".join(magazine), "notes": notes})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer names exactly the buildable notes (any order, or none)."""
    try:
        count = len((item.get("metadata") or {})["notes"])
        want = parse_indices(str(item["answer"]), count)
        got = parse_indices(extract_answer(answer_text), count)
        return 1.0 if want is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="Which of 4-8 ransom notes can be built from one magazine's letters? Set of note numbers.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
    score=score,
    counterpart="reasoning_gym:ransom_note",
)
