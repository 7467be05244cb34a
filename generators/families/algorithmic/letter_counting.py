"""Count how many times a letter occurs in a passage of words.

Counting letters is a known weak spot of token-based models, which see words rather than
letters. The count is drawn uniformly first and the passage built to hit it, so the answers
are flat and no constant pays: a run of words holding the letter whose occurrences add up to
the count, and ``filler_words`` words without it, mixed in random order. Harder levels use
longer passages and larger counts, with the letter sometimes doubled inside a word.

The runs are read from two fixed, shuffled word streams per letter (words holding it, words
without it; built once, from a fixed seed, out of the same word list), at a random start
each: the holding run ends where the stream's running count reaches the drawn count (its last
word swapped for one holding the letter exactly as often as is still missing when the next
word would overshoot), and the shorter run is then inserted word by word at uniform random
places in the longer. An item takes a handful of draws plus one per inserted word, not one per
word and one per shuffle step.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._words import WORDS

NAME = "letter_counting"

LETTERS = "aeinorst"


def _pools() -> tuple[dict[str, tuple[str, ...]], dict[str, dict[int, tuple[str, ...]]]]:
    without: dict[str, tuple[str, ...]] = {}
    exactly: dict[str, dict[int, tuple[str, ...]]] = {}
    for letter in LETTERS:
        without[letter] = tuple(w for w in WORDS if letter not in w)
        most = max(w.count(letter) for w in WORDS)
        exactly[letter] = {r: tuple(w for w in WORDS if w.count(letter) == r) for r in range(1, most + 1)}
    return without, exactly


WITHOUT, EXACTLY = _pools()
"""letter -> words without it; letter -> r -> words holding it exactly r times (in list order)."""

STREAM = 4096
"""Start positions per stream (a power of two: 12 random bits): each stream is this long plus a
wrapped tail."""
_MAX_COUNT = 80
_MAX_FILLER = 200
_STREAM_SEED = 20261129


def _stream(words: tuple[str, ...], rng: random.Random, tail: int) -> list[str]:
    """Whole shuffles of ``words`` cut to ``STREAM``, then its first ``tail`` again (slices
    of it are new lists, which generate inserts into)."""
    out: list[str] = []
    while len(out) < STREAM:
        batch = list(words)
        rng.shuffle(batch)
        out += batch
    del out[STREAM:]
    return out + out[:tail]


_STREAMS: dict[str, tuple[list[str], list[int], list[str]]] = {}
"""letter -> (holding, running, filler): ``STREAM`` words holding the letter (whole shuffles of
them) then the first ``_MAX_COUNT`` again; ``running[i]``, the letter's occurrences in
``holding[:i]``; ``STREAM`` words without the letter, then the first ``_MAX_FILLER`` again."""
_LAST = STREAM - 1


def _streams() -> dict[str, tuple[list[str], list[int], list[str]]]:
    """Every letter's streams, built on first use from a fixed seed (the same on every machine)."""
    if _STREAMS:
        return _STREAMS
    rng = random.Random(_STREAM_SEED)
    built: dict[str, tuple[list[str], list[int], list[str]]] = {}  # filled whole before it is shared
    for letter in LETTERS:
        holding = _stream(tuple(w for w in WORDS if letter in w), rng, _MAX_COUNT)
        running = [0]
        total = 0
        for word in holding:
            total += word.count(letter)
            running.append(total)
        built[letter] = (holding, running, _stream(WITHOUT[letter], rng, _MAX_FILLER))
    _STREAMS.update(built)
    return _STREAMS


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_count": (4, 80), "filler_words": (0, 200)}

    max_count: int = 20
    """The count is uniform on 1..max_count."""
    filler_words: int = 10
    """Words without the letter mixed in."""


LEVELS = (
    {"max_count": 20, "filler_words": 8},
    {"max_count": 24, "filler_words": 12},
    {"max_count": 28, "filler_words": 16},
    {"max_count": 32, "filler_words": 22},
    {"max_count": 40, "filler_words": 30},
    {"max_count": 50, "filler_words": 40},
)


def generate(config: Config, rng: random.Random) -> Problem:
    getrandbits = rng.getrandbits
    # One 59-bit draw: the letter (3 bits: 8 letters), the two starts (12 bits each) and
    # the count (32 bits scaled to 1..max_count: bias below 1e-7).
    x = getrandbits(59)
    letter = LETTERS[x & 7]
    holding_stream, running, filler_stream = (_STREAMS or _streams())[letter]
    start = (x >> 3) & _LAST
    filler_start = (x >> 15) & _LAST
    target = 1 + ((x >> 27) * config.max_count >> 32)
    wanted = running[start] + target
    end = bisect_left(running, wanted, start + 1)
    holding = holding_stream[start:end]
    if running[end] != wanted:  # the last word overshoots: one holding exactly what is missing
        holding[-1] = rng.choice(EXACTLY[letter][wanted - running[end - 1]])
    filler = filler_stream[filler_start : filler_start + config.filler_words]
    # The shorter run goes into the longer, each word at a uniform place among the gaps
    # there are when it goes in, so every order of the passage's words is as likely: a
    # 21-bit draw scaled to the gap count (one-digit ints; with at most 281 gaps, no place's
    # chance is off by more than 1.4e-4 of itself).
    if len(holding) <= len(filler):
        words, inserted = filler, holding
    else:
        words, inserted = holding, filler
    insert = words.insert
    gaps = len(words)
    for word in inserted:
        gaps += 1
        insert(getrandbits(21) * gaps >> 21, word)
    passage = " ".join(words)
    question = (
        f'How many times does the letter "{letter}" appear in the text below? Count every occurrence, '
        f'including repeats inside a word.\n\n"{passage}"\n\nGive a single integer.'
    )
    return Problem(question, str(target), {"letter": letter})


FAMILY = Family(
    name=NAME,
    description="Occurrences of one letter in a passage of words (count drawn uniformly).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="int",
    counterpart="reasoning_gym:letter_counting",
)
