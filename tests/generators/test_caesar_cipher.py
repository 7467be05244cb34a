"""caesar_cipher: decoding recovers the gold, and hint-free items have exactly one English reading."""

from __future__ import annotations

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
