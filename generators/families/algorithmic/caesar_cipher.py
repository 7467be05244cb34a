"""Decode a Caesar-shifted message of common English words.

Tests letter arithmetic modulo 26 applied consistently over a whole message. Harder levels
use longer messages and larger shifts (more wrap-around past ``z``) and then take the hint
away: first the shift is replaced by a known plaintext word (a crib), then nothing is given
and the solver must try shifts until the text reads as English. Without a shift, every item
is checked so that no other shift also decodes to a sequence of dictionary words, keeping
the answer unique.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORD_SET, WORDS, words_by_length

NAME = "caesar_cipher"

HINTS = ("shift", "crib", "none")


@dataclass(frozen=True)
class Config(Knobs):
    min_words: int = 1
    max_words: int = 2
    min_word_len: int = 3
    max_word_len: int = 5
    min_shift: int = 1
    max_shift: int = 3
    hint: str = "shift"
    """``shift``: the shift is stated; ``crib``: one plaintext word is given; ``none``."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_words": (1, 20),
        "max_words": (1, 20),
        "min_word_len": (3, 10),
        "max_word_len": (3, 10),
        "min_shift": (1, 25),
        "max_shift": (1, 25),
    }

    def check(self) -> None:
        if self.min_words > self.max_words:
            raise ValueError("caesar_cipher: min_words must be <= max_words")
        if self.min_word_len > self.max_word_len:
            raise ValueError("caesar_cipher: min_word_len must be <= max_word_len")
        if self.min_shift > self.max_shift:
            raise ValueError("caesar_cipher: min_shift must be <= max_shift")
        if self.hint not in HINTS:
            raise ValueError(f"caesar_cipher: hint must be one of {HINTS}, got {self.hint!r}")
        if self.hint == "crib" and self.max_words < 2:
            raise ValueError("caesar_cipher: a crib needs messages of at least 2 words")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_words": 1, "max_words": 2, "min_word_len": 3, "max_word_len": 5, "min_shift": 1, "max_shift": 3},
    {"min_words": 2, "max_words": 3, "min_word_len": 3, "max_word_len": 6, "min_shift": 1, "max_shift": 13},
    {"min_words": 3, "max_words": 5, "min_word_len": 3, "max_word_len": 7, "min_shift": 1, "max_shift": 25},
    {
        "min_words": 4,
        "max_words": 6,
        "min_word_len": 4,
        "max_word_len": 8,
        "min_shift": 1,
        "max_shift": 25,
        "hint": "crib",
    },
    {
        "min_words": 5,
        "max_words": 8,
        "min_word_len": 4,
        "max_word_len": 8,
        "min_shift": 1,
        "max_shift": 25,
        "hint": "none",
    },
    {
        "min_words": 8,
        "max_words": 12,
        "min_word_len": 4,
        "max_word_len": 10,
        "min_shift": 1,
        "max_shift": 25,
        "hint": "none",
    },
)


def _shift_table(shift: int) -> dict[int, int]:
    lower = {97 + i: 97 + (i + shift) % 26 for i in range(26)}
    upper = {65 + i: 65 + (i + shift) % 26 for i in range(26)}
    return {**lower, **upper}


_SHIFT_TABLES = tuple(_shift_table(shift) for shift in range(26))
"""``str.translate`` tables, one per shift (0..25): one C call per text instead of a loop."""


def shift_text(text: str, shift: int) -> str:
    """Shift every lowercase/uppercase letter by ``shift`` places; other characters stay."""
    return text.translate(_SHIFT_TABLES[shift % 26])


def _ambiguous(cipher: str, shift: int, crib: str | None) -> bool:
    """Whether a different shift also explains the ciphertext under the given hint.

    Word by word and short-circuiting: with a crib, the crib shifted forward by ``other``
    is looked up among the cipher's words (the same test as decoding every word and
    looking the crib up); without one, each decoded word is looked up until one is not a
    word, which for all but the true shift is almost always the first.
    """
    words = cipher.lower().split()
    if crib is not None:
        present = set(words)
        return any(other != shift and shift_text(crib, other) in present for other in range(1, 26))
    first, rest = words[0], words[1:]
    for other in _first_word_shifts(first):
        if other == shift or other == 0:
            continue
        table = _SHIFT_TABLES[-other % 26]
        if first.translate(table) in WORD_SET and all(word.translate(table) in WORD_SET for word in rest):
            return True
    return False


_LOWER_ONLY = re.compile("[a-z]+")


def _first_word_shifts(first: str) -> Iterable[int]:
    """The shifts that may turn ``first`` into a word: one per first letter among the
    words of its shape (every shift for a word that is not all lowercase letters)."""
    if not _LOWER_ONLY.fullmatch(first):  # pragma: no cover - ciphertexts are letters and spaces
        return range(1, 26)
    start = ord(first[0])
    return {(start - letter) % 26 for letter in _FIRST_LETTERS.get(_shape(first), ())}


def _shape(word: str) -> bytes:
    """What a word keeps under every Caesar shift: the steps between its letters, mod 26."""
    codes = word.encode("ascii")
    return bytes([len(codes)]) + bytes((b - a) % 26 for a, b in pairwise(codes))


def _shapes() -> dict[bytes, tuple[str, ...]]:
    shapes: dict[bytes, list[str]] = {}
    for word in sorted(WORD_SET):
        if _LOWER_ONLY.fullmatch(word):
            shapes.setdefault(_shape(word), []).append(word)
    return {shape: tuple(words) for shape, words in shapes.items()}


_BY_SHAPE = _shapes()
"""Dictionary words by shape: the words a shifted word can decode to are those of its shape."""
_FIRST_LETTERS = {shape: tuple(sorted({ord(word[0]) for word in words})) for shape, words in _BY_SHAPE.items()}
"""Per shape, the first letters (as code points) of its words: the candidate shifts of a
first word of that shape are read from these (at most 26) instead of from every word."""


_FIRST_DELTAS: dict[str, tuple[int, ...]] = {}
"""Per dictionary word w: the d with some word of w's shape starting d letters before w
(mod 26), built on first use (at most one entry per word of the list)."""


def _ambiguous_plain(words: list[str], shift: int) -> bool:
    """:func:`_ambiguous` without a crib, from the plain words (lowercase letters) and the
    shift. A first cipher word shift(w, shift) has the shape of w, so its candidate shifts
    are (d + shift) % 26 for w's deltas d, and decoding by one of them shifts each plain
    word by -d: the same tests, with the candidates read per plain word once."""
    first = words[0]
    deltas = _FIRST_DELTAS.get(first)
    if deltas is None:
        start = ord(first[0])
        letters = _FIRST_LETTERS.get(_shape(first), ())
        deltas = _FIRST_DELTAS[first] = tuple(sorted({(start - letter) % 26 for letter in letters}))
    for d in deltas:
        if d == 0 or (d + shift) % 26 == 0:  # the true shift, or the other shift 0
            continue
        table = _SHIFT_TABLES[-d % 26]
        if all(word.translate(table) in WORD_SET for word in words):
            return True
    return False


def generate(config: Config, rng: random.Random) -> Problem:
    pool = words_by_length(WORDS, config.min_word_len, config.max_word_len)
    # ``rng.randint`` and ``rng.choice`` with their draws inline (same getrandbits calls).
    getrandbits = rng.getrandbits
    size = len(pool)
    size_bits = size.bit_length()
    low_words, word_span = config.min_words, config.max_words - config.min_words + 1
    word_bits = word_span.bit_length()
    low_shift, shift_span = config.min_shift, config.max_shift - config.min_shift + 1
    shift_bits = shift_span.bit_length()
    hint = config.hint
    for _ in range(200):
        r = getrandbits(word_bits)
        while r >= word_span:
            r = getrandbits(word_bits)
        words = []
        for _ in range(low_words + r):
            r = getrandbits(size_bits)
            while r >= size:
                r = getrandbits(size_bits)
            words.append(pool[r])
        plain = " ".join(words)
        r = getrandbits(shift_bits)
        while r >= shift_span:
            r = getrandbits(shift_bits)
        shift = low_shift + r
        cipher = shift_text(plain, shift).upper()
        if hint == "crib":
            crib: str | None = rng.choice(words)
            if _ambiguous(cipher, shift, crib):
                continue
        else:
            crib = None
            if hint != "shift" and _ambiguous_plain(words, shift):
                continue
        break
    else:  # pragma: no cover - the word list makes this practically unreachable
        raise ValueError("caesar_cipher: could not build an unambiguous message")

    if hint == "shift":
        told = (
            f"Each letter of the original message was shifted forward by {shift} places in the alphabet "
            "(wrapping from Z back to A)."
        )
    elif hint == "crib":
        told = (
            f"Each letter was shifted forward by the same unknown number of places (wrapping from Z to A). "
            f'The original message contains the word "{crib}".'
        )
    else:
        told = (
            "Each letter was shifted forward by the same unknown number of places (wrapping from Z to A). "
            "The original message consists of common English words."
        )
    question = (
        "Decode this Caesar cipher.\n"
        f"{told} Spaces were kept as they are.\n\n"
        f"Ciphertext: {cipher}\n\n"
        "Answer with the decoded message only, in lowercase letters, words separated by single spaces."
    )
    return Problem(
        question=question, answer=plain, extra={"ciphertext": cipher, "shift": shift, "hint": config.hint, "crib": crib}
    )


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:caesar_cipher",
    description="Decode a Caesar-shifted message (shift given, a crib word given, or no hint).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    notes="Without a shift hint, items are rejected when another shift also decodes to dictionary words.",
)
