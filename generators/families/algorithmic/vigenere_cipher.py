"""Encrypt or decrypt a message with the Vigenère cipher and a given key.

Tests keeping two cursors in step (message letter and key letter) while doing modular
letter arithmetic. The rules are spelled out (A=0 .. Z=25, the key advances only on
letters, spaces are copied), so the answer is unique. Harder levels use longer keys (less
repetition to exploit), longer messages (more places to lose the key position) and the
inverse direction, decryption, where each key letter is subtracted.
"""

from __future__ import annotations

import random
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS, words_by_length

NAME = "vigenere_cipher"

MODES = ("encrypt", "decrypt", "mixed")


@dataclass(frozen=True)
class Config(Knobs):
    min_words: int = 1
    max_words: int = 1
    min_word_len: int = 3
    max_word_len: int = 5
    min_key_len: int = 2
    max_key_len: int = 2
    mode: str = "encrypt"
    """``encrypt``, ``decrypt`` or ``mixed`` (either, chosen per item)."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_words": (1, 20),
        "max_words": (1, 20),
        "min_word_len": (3, 10),
        "max_word_len": (3, 10),
        "min_key_len": (1, 12),
        "max_key_len": (1, 12),
    }

    def check(self) -> None:
        for low, high in (("min_words", "max_words"), ("min_word_len", "max_word_len"), ("min_key_len", "max_key_len")):
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"vigenere_cipher: {low} must be <= {high}")
        if self.mode not in MODES:
            raise ValueError(f"vigenere_cipher: mode must be one of {MODES}, got {self.mode!r}")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_words": 1, "max_words": 1, "min_word_len": 3, "max_word_len": 5, "min_key_len": 2, "max_key_len": 2},
    {"min_words": 1, "max_words": 2, "min_word_len": 3, "max_word_len": 6, "min_key_len": 2, "max_key_len": 3},
    {
        "min_words": 2,
        "max_words": 3,
        "min_word_len": 3,
        "max_word_len": 6,
        "min_key_len": 3,
        "max_key_len": 4,
        "mode": "mixed",
    },
    {
        "min_words": 2,
        "max_words": 4,
        "min_word_len": 4,
        "max_word_len": 7,
        "min_key_len": 3,
        "max_key_len": 5,
        "mode": "decrypt",
    },
    {
        "min_words": 3,
        "max_words": 5,
        "min_word_len": 4,
        "max_word_len": 8,
        "min_key_len": 4,
        "max_key_len": 7,
        "mode": "mixed",
    },
    {
        "min_words": 5,
        "max_words": 8,
        "min_word_len": 4,
        "max_word_len": 9,
        "min_key_len": 6,
        "max_key_len": 9,
        "mode": "decrypt",
    },
)


def vigenere(text: str, key: str, decrypt: bool = False) -> str:
    """Apply the cipher to the letters of ``text``; the key advances only on letters."""
    sign = -1 if decrypt else 1
    out = []
    k = 0
    for ch in text.upper():
        if ch in string.ascii_uppercase:
            shift = ord(key[k % len(key)].upper()) - 65
            out.append(chr((ord(ch) - 65 + sign * shift) % 26 + 65))
            k += 1
        else:
            out.append(ch)
    return "".join(out)


def generate(config: Config, rng: random.Random) -> Problem:
    pool = words_by_length(WORDS, config.min_word_len, config.max_word_len)
    words = [rng.choice(pool) for _ in range(rng.randint(config.min_words, config.max_words))]
    plain = " ".join(words).upper()
    key_len = rng.randint(config.min_key_len, config.max_key_len)
    # Avoid the all-'A' key (identity) by forcing at least one non-A letter.
    key = "".join(rng.choice(string.ascii_uppercase) for _ in range(key_len))
    if set(key) == {"A"}:
        key = key[:-1] + rng.choice(string.ascii_uppercase[1:])
    mode = config.mode if config.mode != "mixed" else rng.choice(("encrypt", "decrypt"))
    cipher = vigenere(plain, key)
    rules = (
        "Rules: letters are numbered A=0, B=1, ..., Z=25. The key is repeated along the message and "
        "advances by one position only on letters; spaces are copied unchanged and do not use up a "
        "key letter. Encryption adds the key letter's number to the message letter's number modulo 26; "
        "decryption subtracts it modulo 26."
    )
    if mode == "encrypt":
        task = f'Encrypt the message "{plain}" with the Vigenère cipher using the key "{key}".'
        answer = cipher
        fmt = "Answer with the ciphertext only, in uppercase letters, keeping the spaces in the same places."
    else:
        task = f'Decrypt the ciphertext "{cipher}", which was encrypted with the Vigenère cipher using the key "{key}".'
        answer = plain.lower()
        fmt = "Answer with the decrypted message only, in lowercase letters, words separated by single spaces."
    question = f"{task}\n{rules}\n{fmt}"
    return Problem(
        question=question,
        answer=answer,
        extra={"mode": mode, "key": key, "plaintext": plain.lower(), "ciphertext": cipher},
    )


FAMILY = Family(
    name=NAME,
    description="Encrypt or decrypt a message with the Vigenère cipher and a stated key.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    notes="Answers are compared case-insensitively; the question still asks for a fixed letter case.",
)
