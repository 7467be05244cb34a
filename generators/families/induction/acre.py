"""Abstract causal reasoning: which objects switch the detector on (blicket detection).

Tests causal induction with explaining away and screening off: the detector lights up when
at least one "blicket" is on it; the trials show sets of objects and whether it lit. The
question puts a new set on the detector: will it be on, off, or is that undetermined by the
evidence? Objects in an "off" trial are certainly not blickets; an "on" trial proves that
one of its other objects is, without saying which. Harder levels use more objects and more
trials, so more inferences have to be chained.

The gold is decided over every set of blickets consistent with the trials (the tests
enumerate them all): "on" if each such set meets the query, "off" if none does, else
"undetermined". The three labels are drawn evenly (``choices=3``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "acre"

LABELS = ("on", "off", "undetermined")
_COLOURS = ("red", "blue", "green", "yellow", "purple", "grey", "brown", "cyan")
_MATERIALS = ("metal", "rubber", "wooden", "glass", "plastic")
_SHAPES = ("cube", "sphere", "cylinder", "cone", "ring")
_MAX_TRIES = 200


@dataclass(frozen=True)
class Config(Knobs):
    objects: int = 4
    trials: int = 3
    max_trial_size: int = 2

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "objects": (3, 10),
        "trials": (2, 12),
        "max_trial_size": (1, 5),
    }


LEVELS = (
    {"objects": 4, "trials": 3, "max_trial_size": 2},
    {"objects": 5, "trials": 4, "max_trial_size": 2},
    {"objects": 6, "trials": 4, "max_trial_size": 3},
    {"objects": 7, "trials": 5, "max_trial_size": 3},
    {"objects": 8, "trials": 6, "max_trial_size": 4},
    {"objects": 9, "trials": 7, "max_trial_size": 4},
)


def verdict(trials: list[tuple[int, bool]], query: int, objects: int) -> str | None:
    """The label of ``query`` (a bitmask) given ``(bitmask, lit)`` trials; None if no set of
    blickets explains the trials. Closed form of the enumeration over all blicket sets:
    the possible blickets are the objects in no "off" trial; the query is "off" when it holds
    none of them, "on" when some "on" trial's possible blickets all lie in the query."""
    possible = (1 << objects) - 1
    for mask, lit in trials:
        if not lit:
            possible &= ~mask
    lit_sets = [mask & possible for mask, lit in trials if lit]
    if any(not candidates for candidates in lit_sets):
        return None
    if not query & possible:
        return "off"
    if any(candidates & ~query == 0 for candidates in lit_sets):
        return "on"
    return "undetermined"


_OBJECTS = tuple((c, m, s) for c in _COLOURS for m in _MATERIALS for s in _SHAPES)
"""Every nameable object, built once: the sample drawn from it is the same as from a fresh list."""


def _subset(objects: int, max_size: int, rng: random.Random) -> int:
    """The mask of ``rng.sample(range(objects), rng.randint(1, max_size))``, with those calls'
    draws done inline (the sample's pool branch: ``objects`` is at most 10): one Python
    frame instead of five per set, and a set is drawn about 17 times per item."""
    getrandbits = rng.getrandbits
    bits = max_size.bit_length()
    size = getrandbits(bits)
    while size >= max_size:
        size = getrandbits(bits)
    pool = list(range(objects))
    mask = 0
    for m in range(objects, objects - size - 1, -1):
        bits = m.bit_length()
        j = getrandbits(bits)
        while j >= m:
            j = getrandbits(bits)
        mask |= 1 << pool[j]
        pool[j] = pool[m - 1]
    return mask


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.objects
    wanted = rng.choice(LABELS)
    for _ in range(_MAX_TRIES):
        blickets = _subset(n, max(1, n // 3), rng)
        trials = []
        for _ in range(config.trials):
            mask = _subset(n, config.max_trial_size, rng)
            trials.append((mask, bool(mask & blickets)))
        shown_masks = {mask for mask, _ in trials}
        if not any(lit for _, lit in trials) or len(shown_masks) < len(trials):
            continue
        for _ in range(10):
            query = _subset(n, config.max_trial_size, rng)
            if query not in shown_masks and verdict(trials, query, n) == wanted:
                break
        else:
            continue
        break
    else:
        raise ValueError("acre: no trial set gives the wanted label")
    names = [f"{colour} {material} {shape}" for colour, material, shape in rng.sample(_OBJECTS, n)]

    def listing(mask: int) -> str:
        return ", ".join(names[i] for i in range(n) if mask >> i & 1)

    shown = "\n".join(f"{listing(mask)} -> detector {'on' if lit else 'off'}" for mask, lit in trials)
    question = (
        "Some objects are blickets. A detector lights up (on) when at least one blicket is placed on it and "
        "stays off otherwise; other objects do nothing. These trials put objects on the detector together:\n"
        f"{shown}\n\nNow {listing(query)} are placed on it. Is the detector on, off, or is that undetermined "
        "from the trials? Answer with one word: on, off or undetermined."
    )
    meta = {"trials": [[mask, lit] for mask, lit in trials], "query": query, "objects": n}
    return Problem(question, wanted, meta)


FAMILY = Family(
    name=NAME,
    description="Blicket detection: will a new set of objects turn the detector on, off, or is it undetermined?",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    choices=3,
    counterpart="reasoning_gym:acre",
)
