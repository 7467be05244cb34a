"""caesar_cipher: decoding recovers the gold, and hint-free items have exactly one English reading."""

from __future__ import annotations

import random

from generators.dataset import create_dataset
from generators.families._words import WORD_SET
from generators.families.algorithmic.caesar_cipher import shift_text


def test_shift_decodes_and_no_other_shift_reads_as_words() -> None:
    for level in range(6):
        for item in create_dataset("caesar_cipher", level=level, seed=1, size=40):
            meta = item["metadata"]
            cipher = meta["ciphertext"]
            assert shift_text(cipher, -meta["shift"]).lower() == item["answer"]
            readings = [s for s in range(26) if all(w in WORD_SET for w in shift_text(cipher, -s).lower().split())]
            if meta["hint"] == "none":
                assert readings == [meta["shift"] % 26]
            if meta["hint"] == "crib":
                with_crib = [s for s in range(26) if meta["crib"] in shift_text(cipher, -s).lower().split()]
                assert with_crib == [meta["shift"] % 26]


def test_plain_word_ambiguity_equals_decoding_the_ciphertext() -> None:
    """Without a crib, generate tests ambiguity from the plain words and the shift; over
    random messages (words that share shapes included) it equals the ciphertext test and
    decoding every shift in full."""
    from generators.families.algorithmic import caesar_cipher

    pool = sorted(caesar_cipher.WORD_SET)
    shaped = [w for w in pool if len(caesar_cipher._BY_SHAPE[caesar_cipher._shape(w)]) > 1]
    rng = random.Random(9)
    seen_true = 0
    for _ in range(4000):
        source = shaped if rng.random() < 0.5 else pool
        words = [rng.choice(source) for _ in range(rng.randint(1, 3))]
        shift = rng.randint(1, 25)
        cipher = caesar_cipher.shift_text(" ".join(words), shift).upper()
        full = any(
            all(w in caesar_cipher.WORD_SET for w in caesar_cipher.shift_text(cipher, -other).lower().split())
            for other in range(1, 26)
            if other != shift
        )
        assert caesar_cipher._ambiguous_plain(words, shift) == caesar_cipher._ambiguous(cipher, shift, None) == full
        seen_true += full
    assert seen_true > 50  # the ambiguous case is exercised
