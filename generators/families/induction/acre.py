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

import itertools
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
    queries that keep to a given set of objects, looked up instead of drawn and rejected.

    Built on first use from the combinations of the mask's own bits (at most a few hundred
    sums) rather than by testing every number up to the mask: at 9 objects a config meets
    some 2,000 of these tables, and building them by the scan was a third of the first few
    thousand items' time."""
    key = (mask, limit)
    table = _WITHIN.get(key)
    if table is None:
        members = [1 << i for i in _BITS[mask]]
        subsets = [0]
        for size in range(1, min(limit, len(members)) + 1):
            subsets += map(sum, itertools.combinations(members, size))
        subsets.sort()
        table = _WITHIN[key] = tuple(subsets)
    return table


@dataclass(frozen=True)
class _Plan:
    """What ``generate`` reads of a config, fixed by it: looked up once per config object
    rather than rebuilt (and the trial count checked) every item."""

    objects: int
    full: int
    max_size: int
    trial_sets: tuple[tuple[int, ...], ...]
    blicket_sets: tuple[tuple[int, ...], ...]
    trials: int
    possible: bool
    """Whether ``trials`` distinct sets of at most ``max_size`` objects exist."""


_PLANS: dict[int, tuple[Config, _Plan]] = {}
_UNNAMED = bytes(len(_NAMES)) + b"\x01" * (256 - len(_NAMES))
"""``rng.sample(_NAMES, n)``'s marks: 1 for a draw past the last name (drawn again, as
``randbelow`` rejects it); a name taken is marked 1 too (drawn again, as ``sample``'s
selected-set branch does: 200 names are more than its set size for any ``n`` up to 10)."""
_INTRO = (
    "Some objects are blickets. A detector lights up (on) when at least one blicket is placed on it and "
    "stays off otherwise; other objects do nothing. These trials put objects on the detector together:\n"
)
_OUTRO = (
    " are placed on it. Is the detector on, off, or is that undetermined from the trials? "
    "Answer with one word: on, off or undetermined."
)


def _plan(config: Config) -> _Plan:
    entry = _PLANS.get(id(config))
    if entry is not None and entry[0] is config:
        return entry[1]
    n, max_size = config.objects, config.max_trial_size
    trial_sets = _sized(n, max_size)
    plan = _Plan(
        objects=n,
        full=(1 << n) - 1,
        max_size=max_size,
        trial_sets=trial_sets,
        blicket_sets=_sized(n, max(1, n // 3)),
        trials=config.trials,
        possible=sum(map(len, trial_sets)) >= config.trials,
    )
    if len(_PLANS) >= 64:
        _PLANS.clear()
    _PLANS[id(config)] = (config, plan)
    return plan


def generate(config: Config, rng: random.Random) -> Problem:
    """One item, in one frame: ``rng.choice`` of the label and ``rng.sample`` of the names
    written out over ``getrandbits`` (their draws, in their order), every set drawn as a
    size and a set of that size scaled from the high and low 32 bits of one 64-bit draw,
    what the config fixes read from :func:`_plan`, the text built as pieces joined once.

    The query is drawn straight from the sets that give the wanted label (a few tries,
    else new trials): "off" a non-empty set of objects seen in "off" trials; "on" an "on"
    trial's possible blickets plus any other objects; "undetermined" a possible blicket
    plus any others, kept when it covers no "on" trial's possible blickets. The tests walk
    the same construction plainly (``tests/generators/test_acre.py``)."""
    entry = _PLANS.get(id(config))
    plan = entry[1] if entry is not None and entry[0] is config else _plan(config)
    getrandbits = rng.getrandbits
    r = getrandbits(2)  # rng.choice(LABELS)
    while r >= 3:
        r = getrandbits(2)
    wanted = LABELS[r]
    n, full, max_size, trial_count = plan.objects, plan.full, plan.max_size, plan.trials
    if not plan.possible:
        raise ValueError(f"acre: {trial_count} distinct trials of at most {max_size} of {n} objects do not exist")
    trial_sets, blicket_sets = plan.trial_sets, plan.blicket_sets
    sizes, blicket_sizes = len(trial_sets), len(blicket_sets)
    for _ in range(_MAX_TRIES):
        # The trials: distinct sets, each a size then a set of that size from one draw (a
        # set already shown is drawn again). Then the blickets, drawn again until some trial
        # holds one (the trials' union is never empty), so that some trial lights up.
        masks: list[int] = []
        union = 0
        left = trial_count
        while left:
            r = getrandbits(64)
            by_size = trial_sets[(r >> 32) * sizes >> 32]
            mask = by_size[(r & 0xFFFFFFFF) * len(by_size) >> 32]
            if mask not in masks:
                masks.append(mask)
                union |= mask
                left -= 1
        while True:
            r = getrandbits(64)
            by_size = blicket_sets[(r >> 32) * blicket_sizes >> 32]
            blickets = by_size[(r & 0xFFFFFFFF) * len(by_size) >> 32]
            if blickets & union:
                break
        # _query: the possible blickets are the objects in no "off" trial.
        possible = full
        for mask in masks:
            if not mask & blickets:
                possible &= ~mask
        lit_sets = [mask & possible for mask in masks if mask & blickets]
        query = 0
        if wanted == "off":
            table = _WITHIN.get((full & ~possible, max_size)) or _within(full & ~possible, max_size)
            if len(table) > 1:
                for _ in range(4):
                    candidate = table[1 + (getrandbits(32) * (len(table) - 1) >> 32)]
                    if candidate not in masks:
                        query = candidate
                        break
        elif wanted == "on":
            for _ in range(4):
                r = getrandbits(64)
                core = lit_sets[(r >> 32) * len(lit_sets) >> 32]
                key = (full & ~core, max_size - core.bit_count())
                table = _WITHIN.get(key) or _within(*key)
                candidate = core | table[(r & 0xFFFFFFFF) * len(table) >> 32]
                if candidate not in masks:
                    query = candidate
                    break
        else:
            members = _BITS[possible]
            for _ in range(8):
                r = getrandbits(64)
                member = 1 << members[(r >> 32) * len(members) >> 32]
                key = (full & ~member, max_size - 1)
                table = _WITHIN.get(key) or _within(*key)
                candidate = member | table[(r & 0xFFFFFFFF) * len(table) >> 32]
                if candidate not in masks:
                    for core in lit_sets:
                        if not core & ~candidate:
                            break
                    else:
                        query = candidate
                        break
        if query:
            break
    else:
        raise ValueError("acre: no trial set gives the wanted label")
    taken = bytearray(_UNNAMED)
    names: list[str] = []
    for _ in range(n):
        j = getrandbits(8)
        while taken[j]:
            j = getrandbits(8)
        taken[j] = 1
        names.append(_NAMES[j])
    name = names.__getitem__
    bits = _BITS
    parts = [_INTRO]
    for mask in masks:
        parts += (", ".join(map(name, bits[mask])), " -> detector on\n" if mask & blickets else " -> detector off\n")
    parts += ("\nNow ", ", ".join(map(name, bits[query])), _OUTRO)
    meta = {"trials": [[mask, mask & blickets != 0] for mask in masks], "query": query, "objects": n}
    return Problem("".join(parts), wanted, meta)


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
