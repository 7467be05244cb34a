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

Construction (2.2.0): the label is drawn first, then distinct trials (each a size, then a set
of that size, from one 64-bit draw over a table of the sets), then blickets that light at
least one trial, then a query drawn straight from the sets that give the label (for "off", a
set of objects seen in "off" trials; for "on", an "on" trial's possible blickets plus others;
for "undetermined", a possible blicket plus others that cover no "on" trial's possible
blickets). Before 2.2.0 whole trial sets were redrawn with random queries until the label
came out, about 17 sampled sets an item.
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


_NAMES = tuple(f"{colour} {material} {shape}" for colour in _COLOURS for material in _MATERIALS for shape in _SHAPES)
"""Every nameable object, built once: an item samples ``n`` of them."""
_BITS = tuple(tuple(i for i in range(10) if mask >> i & 1) for mask in range(1 << 10))
"""The objects (bit indices) in each mask of up to 10 objects, for listing a set."""
_TABLES: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}
_WITHIN: dict[tuple[int, int], tuple[int, ...]] = {}


def _sized(objects: int, max_size: int) -> tuple[tuple[int, ...], ...]:
    """Every set of ``objects`` by size: entry ``k - 1`` holds the masks of ``k`` objects in
    ascending order, for ``k`` in 1..``max_size``. A set is drawn from it by size, then by
    index, with one 64-bit draw instead of a sample's draw per member."""
    key = (objects, max_size)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = tuple(
            tuple(mask for mask in range(1 << objects) if mask.bit_count() == size) for size in range(1, max_size + 1)
        )
    return table


def _within(mask: int, limit: int) -> tuple[int, ...]:
    """Every sub-mask of ``mask`` with at most ``limit`` bits, ascending (0 first): the
    queries that keep to a given set of objects, looked up instead of drawn and rejected."""
    key = (mask, limit)
    table = _WITHIN.get(key)
    if table is None:
        table = _WITHIN[key] = tuple(q for q in range(mask + 1) if q & ~mask == 0 and q.bit_count() <= limit)
    return table


def _draw(table: tuple[tuple[int, ...], ...], rng: random.Random) -> int:
    """A set from a :func:`_sized` table: its size uniform, then the set uniform among that
    size's, both scaled from one 64-bit draw (the high and low 32 bits)."""
    r = rng.getrandbits(64)
    by_size = table[(r >> 32) * len(table) >> 32]
    return by_size[(r & 0xFFFFFFFF) * len(by_size) >> 32]


def _query(
    wanted: str,
    trials: list[tuple[int, bool]],
    objects: int,
    max_size: int,
    rng: random.Random,
) -> int | None:
    """A query of at most ``max_size`` objects, shown in no trial, whose verdict is
    ``wanted``; None if a few tries find none (the caller draws new trials).

    "off" is a non-empty set of objects each seen in an "off" trial; "on" is an "on" trial's
    possible blickets plus any other objects; "undetermined" is a possible blicket plus any
    other objects, kept when it covers no "on" trial's possible blickets. Each is drawn
    straight from the sets that qualify (:func:`_within`), two scaled values a 64-bit draw."""
    full = (1 << objects) - 1
    possible = full
    for mask, lit in trials:
        if not lit:
            possible &= ~mask
    lit_sets = [mask & possible for mask, lit in trials if lit]
    shown = {mask for mask, _ in trials}
    getrandbits = rng.getrandbits
    if wanted == "off":
        table = _within(full & ~possible, max_size)
        if len(table) == 1:
            return None
        for _ in range(4):
            query = table[1 + (getrandbits(32) * (len(table) - 1) >> 32)]
            if query not in shown:
                return query
        return None
    if wanted == "on":
        for _ in range(4):
            r = getrandbits(64)
            core = lit_sets[(r >> 32) * len(lit_sets) >> 32]
            table = _within(full & ~core, max_size - core.bit_count())
            query = core | table[(r & 0xFFFFFFFF) * len(table) >> 32]
            if query not in shown:
                return query
        return None
    members = _BITS[possible]
    for _ in range(8):
        r = getrandbits(64)
        member = 1 << members[(r >> 32) * len(members) >> 32]
        table = _within(full & ~member, max_size - 1)
        query = member | table[(r & 0xFFFFFFFF) * len(table) >> 32]
        if query not in shown and all(core & ~query for core in lit_sets):
            return query
    return None


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.objects
    max_size = config.max_trial_size
    wanted = rng.choice(LABELS)
    trial_sets = _sized(n, max_size)
    blicket_sets = _sized(n, max(1, n // 3))
    sizes = len(trial_sets)
    trial_count = config.trials
    if sum(map(len, trial_sets)) < trial_count:
        raise ValueError(f"acre: {trial_count} distinct trials of at most {max_size} of {n} objects do not exist")
    getrandbits = rng.getrandbits
    for _ in range(_MAX_TRIES):
        # The trials: distinct sets, each drawn like _draw (inline, one draw per set; a set
        # already shown is drawn again). Then the blickets, drawn again until some trial
        # holds one (the trials' union is never empty), so that some trial lights up.
        masks: list[int] = []
        union = 0
        while len(masks) < trial_count:
            r = getrandbits(64)
            by_size = trial_sets[(r >> 32) * sizes >> 32]
            mask = by_size[(r & 0xFFFFFFFF) * len(by_size) >> 32]
            if mask not in masks:
                masks.append(mask)
                union |= mask
        blickets = _draw(blicket_sets, rng)
        while not blickets & union:
            blickets = _draw(blicket_sets, rng)
        trials = [(mask, mask & blickets != 0) for mask in masks]
        query = _query(wanted, trials, n, max_size, rng)
        if query is not None:
            break
    else:
        raise ValueError("acre: no trial set gives the wanted label")
    names = rng.sample(_NAMES, n)
    bits = _BITS
    shown = "\n".join(
        f"{', '.join([names[i] for i in bits[mask]])} -> detector {'on' if lit else 'off'}" for mask, lit in trials
    )
    question = (
        "Some objects are blickets. A detector lights up (on) when at least one blicket is placed on it and "
        "stays off otherwise; other objects do nothing. These trials put objects on the detector together:\n"
        f"{shown}\n\nNow {', '.join([names[i] for i in bits[query]])} are placed on it. Is the detector on, off, "
        "or is that undetermined from the trials? Answer with one word: on, off or undetermined."
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
