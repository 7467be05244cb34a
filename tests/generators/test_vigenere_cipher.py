"""vigenere_cipher: gold answers agree with an independent key-stream implementation."""

from __future__ import annotations

from generators.dataset import create_dataset


def _reference(text: str, key: str, sign: int) -> str:
    letters = [c for c in text.upper() if c.isalpha()]
    stream = iter((ord(c) - 65 + sign * (ord(key[i % len(key)]) - 65)) % 26 for i, c in enumerate(letters))
    return "".join(chr(next(stream) + 65) if c.isalpha() else c for c in text.upper())


def test_gold_matches_reference() -> None:
    for level in range(6):
        for item in create_dataset("vigenere_cipher", level=level, seed=2, size=40):
            meta = item["metadata"]
            assert _reference(meta["plaintext"], meta["key"], 1) == meta["ciphertext"]
            assert _reference(meta["ciphertext"], meta["key"], -1).lower() == meta["plaintext"]
            expected = meta["ciphertext"] if meta["mode"] == "encrypt" else meta["plaintext"]
            assert item["answer"] == expected
