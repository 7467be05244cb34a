"""letter_counting: the gold equals str.count over the quoted passage, counts are flat, and
wrong, stuffed or huge answers score 0."""

from __future__ import annotations

import hashlib
import random
import re
from collections import Counter
from typing import Any

import pytest

from generators.dataset import create_dataset, score
from generators.families.algorithmic import letter_counting

NAME = "letter_counting"
STREAMS_DIGEST = "16771762d3c1e2d6"
"""The first 16 hex digits of SHA-256 over every letter's streams: they are part of every item."""


def test_gold_counts_the_quoted_passage() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=40):
            letter = re.search(r'letter "(\w)"', item["question"]).group(1)  # type: ignore[union-attr]
            passage = item["question"].split('\n\n"')[1].split('"\n\n')[0]
            assert int(item["answer"]) == sum(1 for ch in passage if ch == letter)


def test_counts_are_flat_and_exploits_fail() -> None:
    # 2,000 items: each of the 20 counts is 5 % (100 +- 10 items); a count at 7 % is 4 sd out
    items = create_dataset(NAME, level=0, seed=1, size=2000)
    assert max(Counter(item["answer"] for item in items).values()) / len(items) < 0.07
    item = items[0]
    gold = int(item["answer"])
    assert score(NAME, f"Counting each one gives {gold}.\nAnswer: {gold}", item) == 1.0
    for wrong in (str(gold + 1), f"{gold}, {gold + 1}", f"{gold} or {gold - 1}", f"{gold} times", "1" * 1_000_000):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]


def _reference_generate(config: Any, rng: random.Random) -> tuple[str, str]:
    """letter_counting's draws in their plain form: one 59-bit draw for the letter, the two
    stream starts and the count (32 bits scaled to 1..max_count), the holding run walked word by word, then each word
    of the shorter run inserted at a scaled 21-bit draw."""
    x = rng.getrandbits(59)
    letter = letter_counting.LETTERS[x % 8]
    holding_stream, _, filler_stream = letter_counting._streams()[letter]
    start, filler_start = (x >> 3) % 4096, (x >> 15) % 4096
    target = 1 + (x >> 27) * config.max_count // 2**32
    holding, total, i = [], 0, start
    while total < target:
        word = holding_stream[i]
        if total + word.count(letter) > target:
            word = rng.choice(letter_counting.EXACTLY[letter][target - total])
        holding.append(word)
        total += word.count(letter)
        i += 1
    filler = filler_stream[filler_start : filler_start + config.filler_words]
    words, inserted = (filler, holding) if len(holding) <= len(filler) else (holding, filler)
    for word in inserted:
        words.insert(rng.getrandbits(21) * (len(words) + 1) // 2**21, word)
    return " ".join(words), str(target)


@pytest.mark.parametrize("level", range(6))
def test_generate_equals_the_plain_form(level: int) -> None:
    config = letter_counting.FAMILY.config_for_level(level)
    ours, theirs = random.Random(level), random.Random(level)
    for _ in range(300):
        problem = letter_counting.generate(config, ours)
        passage, answer = _reference_generate(config, theirs)
        assert f'"{passage}"' in problem.question and problem.answer == answer
    assert ours.getstate() == theirs.getstate()


def test_streams_are_fixed_and_whole() -> None:
    streams = letter_counting._streams()
    digest = hashlib.sha256()
    for letter in letter_counting.LETTERS:
        holding_stream, running, filler_stream = streams[letter]
        stream = letter_counting.STREAM
        holding = [w for w in letter_counting.WORDS if letter in w]
        # whole shuffles of the word list, then the wrapped tail
        assert Counter(holding_stream[: len(holding)]) == Counter(holding)
        assert Counter(filler_stream[: len(letter_counting.WITHOUT[letter])]) == Counter(
            letter_counting.WITHOUT[letter]
        )
        assert holding_stream[stream:] == holding_stream[: len(holding_stream) - stream]
        assert filler_stream[stream:] == filler_stream[: len(filler_stream) - stream]
        assert running == [sum(w.count(letter) for w in holding_stream[:i]) for i in range(len(holding_stream) + 1)]
        digest.update(" ".join(holding_stream + filler_stream).encode())
    assert digest.hexdigest()[:16] == STREAMS_DIGEST


def test_passage_holds_the_filler_and_mixes_it() -> None:
    for level in (0, 5):
        config = letter_counting.FAMILY.config_for_level(level)
        first_is_filler = 0
        for item in create_dataset(NAME, level=level, seed=9, size=400):
            letter = item["metadata"]["letter"]
            words = item["question"].split('\n\n"')[1].split('"\n\n')[0].split(" ")
            without = [w for w in words if letter not in w]
            assert len(without) == config.filler_words
            assert sum(w.count(letter) for w in words) == int(item["answer"])
            first_is_filler += letter not in words[0]
        # the first word is a filler word about as often as fillers make up the passage
        share = first_is_filler / 400
        assert 0.2 < share < 0.8, share
