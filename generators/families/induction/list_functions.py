"""Induce a hidden list function from input/output examples and apply it to a new input.

Tests program induction: the hidden function is one primitive or a composition of two
(add or multiply every element, keep evens/odds/large values, sort, reverse, take or drop a
prefix, remove duplicates, running sums). Harder levels unlock more primitives, compose two
of them and use longer lists, so more candidate rules fit at a glance and the examples
have to be read together.

The examples are checked to determine the answer: every rule of the level's candidate set
(each primitive and each composition of two, with all their parameters) that reproduces all
examples gives the same output on the query; otherwise an example is added or the item is
redrawn. The answer is the output list, compared as an ordered list.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "list_functions"

Items = tuple[int, ...]
_MAX_TRIES = 40


def _unique(xs: Items) -> Items:
    """The values in order of first appearance (a dict keeps its keys' insertion order)."""
    return tuple(dict.fromkeys(xs))


def _cumsum(xs: Items) -> Items:
    return tuple(itertools.accumulate(xs))


def _tiered() -> list[list[tuple[str, Callable[[Items], Items]]]]:
    """Primitives by tier; tier k is unlocked at ``tiers >= k + 1``.

    They run some thirty times an item (the proof that the examples fix the answer), so each
    is one C-level pass where Python has one: ``map``/``filter`` over a bound int method
    rather than a generator, slices through ``itemgetter`` (no Python frame at all); the
    values are those of the plain loops (``x & 1`` has the parity of ``x % 2`` for negative
    ``x`` too)."""
    odd = (1).__and__
    basic: list[tuple[str, Callable[[Items], Items]]] = [
        *((f"add {k}", lambda xs, k=k.__add__: tuple(map(k, xs))) for k in (-3, -2, -1, 1, 2, 3, 5)),
        *((f"mul {k}", lambda xs, k=k.__mul__: tuple(map(k, xs))) for k in (2, 3)),
        ("reverse", itemgetter(slice(None, None, -1))),
        ("sort", lambda xs: tuple(sorted(xs))),
    ]
    shaping: list[tuple[str, Callable[[Items], Items]]] = [
        ("sort desc", lambda xs: tuple(sorted(xs, reverse=True))),
        ("evens", lambda xs: tuple(itertools.filterfalse(odd, xs))),
        ("odds", lambda xs: tuple(filter(odd, xs))),
        *((f"take {k}", itemgetter(slice(None, k))) for k in (2, 3)),
        *((f"drop {k}", itemgetter(slice(k, None))) for k in (1, 2)),
    ]
    advanced: list[tuple[str, Callable[[Items], Items]]] = [
        *((f"above {k}", lambda xs, k=k.__lt__: tuple(filter(k, xs))) for k in (5, 10)),
        ("unique", _unique),
        ("cumsum", _cumsum),
        ("mul -1", lambda xs: tuple(map(int.__neg__, xs))),
    ]
    return [basic, shaping, advanced]


_TIERS = _tiered()
_ODD = (1).__and__
"""1 for an odd value, 0 for an even one (negative ones too), called from C by ``map``."""


@dataclass(frozen=True)
class Config(Knobs):
    tiers: int = 1
    depth: int = 1
    """1: one primitive; 2: a composition of two."""
    examples: int = 3
    min_length: int = 4
    max_length: int = 6
    max_value: int = 9

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "tiers": (1, len(_TIERS)),
        "depth": (1, 2),
        "examples": (2, 8),
        "min_length": (2, 12),
        "max_length": (2, 12),
        "max_value": (5, 99),
    }

    def check(self) -> None:
        if self.min_length > self.max_length:
            raise ValueError("Config.min_length must be <= max_length")


LEVELS = (
    {"tiers": 1, "depth": 1, "examples": 3, "min_length": 4, "max_length": 6, "max_value": 9},
    {"tiers": 2, "depth": 1, "examples": 3, "min_length": 5, "max_length": 7, "max_value": 12},
    {"tiers": 2, "depth": 2, "examples": 3, "min_length": 5, "max_length": 7, "max_value": 15},
    {"tiers": 3, "depth": 2, "examples": 3, "min_length": 5, "max_length": 8, "max_value": 20},
    {"tiers": 3, "depth": 2, "examples": 4, "min_length": 6, "max_length": 9, "max_value": 20},
    {"tiers": 3, "depth": 2, "examples": 4, "min_length": 7, "max_length": 10, "max_value": 30},
)


@cache
def _primitives(tiers: int) -> tuple[tuple[str, Callable[[Items], Items]], ...]:
    """The primitives of the first ``tiers`` tiers, in order (built once per ``tiers``)."""
    return tuple(prim for tier in _TIERS[:tiers] for prim in tier)


(_ADD, _MUL, _REVERSE, _SORT, _SORT_DESC, _CUMSUM, _TAKE, _DROP, _EVENS, _ODDS, _ABOVE, _UNIQUE) = range(12)
_KINDS = {
    "add": _ADD,
    "mul": _MUL,
    "reverse": _REVERSE,
    "sort": _SORT,
    "sort desc": _SORT_DESC,
    "cumsum": _CUMSUM,
    "take": _TAKE,
    "drop": _DROP,
    "evens": _EVENS,
    "odds": _ODDS,
    "above": _ABOVE,
    "unique": _UNIQUE,
}


@cache
def _second_steps(tiers: int) -> tuple[tuple[Callable[[Items], Items], int, int], ...]:
    """Per primitive, in order: the function, its kind (what its output's length and first
    value can be, read by :func:`_steps_into`) and its number ``k`` (0 when it has none)."""
    steps = []
    for name, f in _primitives(tiers):
        word, _, argument = name.partition(" ")
        if name in _KINDS:
            steps.append((f, _KINDS[name], 0))
        elif word in _KINDS and argument.lstrip("-").isdigit():
            steps.append((f, _KINDS[word], int(argument)))
        else:
            raise ValueError(f"list_functions: no output shape known for primitive {name!r}")
    return tuple(steps)


Step = Callable[[Items], Items]


@cache
def _step_groups(tiers: int) -> dict[int, list[tuple[Step, int]]]:
    """The second steps of :func:`_second_steps` grouped by kind, as (function, k)."""
    groups: dict[int, list[tuple[Step, int]]] = {kind: [] for kind in _KINDS.values()}
    for f, kind, k in _second_steps(tiers):
        groups[kind].append((f, k))
    return groups


@dataclass
class _Lookups:
    """:func:`_step_groups` arranged for :func:`_steps_into`: "add k" by k, each kind's
    functions as one list, and the take/drop steps per (input length, output length)."""

    groups: dict[int, list[tuple[Step, int]]]
    steps: tuple[Step, ...]
    add: dict[int, list[Step]]
    mul: list[tuple[Step, int]]
    mul_by: dict[int, Step]
    """"mul k" by k (one step per k)."""
    reverse: list[Step]
    sort: list[Step]
    sort_desc: list[Step]
    cumsum: list[Step]
    evens: list[Step]
    odds: list[Step]
    above: list[tuple[Step, int]]
    unique: list[Step]
    shaped: dict[tuple[int, int], list[tuple[Step, int]]]

    def take_drop(self, length: int, size: int) -> list[tuple[Step, int]]:
        """The take/drop steps whose output has ``size`` values from ``length``, each with the
        index of the input value its output starts with."""
        key = (length, size)
        found = self.shaped.get(key)
        if found is None:
            groups = self.groups
            found = [(f, 0) for f, k in groups[_TAKE] if min(k, length) == size]
            found += [(f, k) for f, k in groups[_DROP] if max(length - k, 0) == size]
            self.shaped[key] = found
        return found


@cache
def _lookups(tiers: int) -> _Lookups:
    groups = _step_groups(tiers)
    add: dict[int, list[Step]] = {}
    for f, k in groups[_ADD]:
        add.setdefault(k, []).append(f)

    def plain(kind: int) -> list[Step]:
        return [f for f, _ in groups[kind]]

    return _Lookups(
        groups=groups,
        steps=tuple(f for f, _, _ in _second_steps(tiers)),
        add=add,
        mul=list(groups[_MUL]),
        mul_by={k: f for f, k in groups[_MUL]},
        reverse=plain(_REVERSE),
        sort=plain(_SORT),
        sort_desc=plain(_SORT_DESC),
        cumsum=plain(_CUMSUM),
        evens=plain(_EVENS),
        odds=plain(_ODDS),
        above=list(groups[_ABOVE]),
        unique=plain(_UNIQUE),
        shaped={},
    )


def _steps_into(lookups: _Lookups, mids: Sequence[Items], target: Items) -> list[tuple[int, Step]]:
    """Every (position in ``mids``, primitive) with ``primitive(mids[position]) == target``.

    A primitive is run on a middle list only when cheap necessary conditions hold, so most
    pairs are ruled out without running anything: conditions on ``target`` alone first (a
    filter's output is all even, all odd, above its bound or without repeats; a sort's is
    in order), then on the middle list: its length, and where ``target``'s first and last
    values can come from. "add k" is the one k that maps the first value; a take or drop
    gives a known slice, so both ends are read; a sort's ends are the list's least and
    greatest, a running sum's its first value and its sum; a filter's output starts
    (ends) with the list's first (last) value whenever that value passes the filter, and
    "unique" always starts with it. These are only the conditions: a step that meets them
    is still run.
    """
    found: list[tuple[int, Step]] = []
    size = len(target)
    if not size:  # an empty output (never one the generator shows): run every step
        steps = lookups.steps
        for at, mid in enumerate(mids):
            found.extend((at, g) for g in steps if not g(mid))
        return found
    head, last = target[0], target[-1]
    filters: list[Step] = []  # every filter that could give target (for a list equal to it)
    parity: list[Step] = []  # evens or odds, when target is all even or all odd
    odd = head & 1
    aboves: list[tuple[Step, int]] = []
    unique: list[Step] = []
    if lookups.evens:  # tier 2 and up: the filters and the descending sort
        if sum(map(_ODD, target)) == (size if odd else 0):  # every value of head's parity
            parity = lookups.odds if odd else lookups.evens
        low = min(target)
        aboves = [(g, k) for g, k in lookups.above if low > k]
        if lookups.unique and len(set(target)) == size:
            unique = lookups.unique
        filters = parity + [g for g, _ in aboves] + unique
    # The sorts can give ``target`` only if it is in order: read when a list's ends first
    # allow a sort, and the sort dropped for the rest of the lists if it is not.
    ascending, descending = lookups.sort, lookups.sort_desc
    adds, muls, reverse, cumsum = lookups.add, lookups.mul, lookups.reverse, lookups.cumsum
    shaped, take_drop = lookups.shaped, lookups.take_drop
    shapes: list[tuple[Step, int]] = []
    shapes_length = -1  # the length ``shapes`` is for: most middle lists share one
    end_at = size - 1  # a slice's last value is at its start + size - 1
    mul_by = lookups.mul_by
    for at, mid in enumerate(mids):  # each step that meets the conditions is run at once
        length = len(mid)
        if length < size:  # no step lengthens a list
            continue
        first, end = mid[0], mid[-1]
        if length == size:  # the length-preserving steps
            shift = head - first
            step = adds.get(shift)
            if step and end + shift == last:
                found += [(at, g) for g in step if g(mid) == target]
            if first:  # "mul k" maps first to head only for k = head / first
                factor, left = divmod(head, first)
                if not left and factor in mul_by and end * factor == last:
                    g = mul_by[factor]
                    if g(mid) == target:
                        found.append((at, g))
            elif not head:  # first 0: every k maps it to head 0
                found += [(at, g) for g, k in muls if end * k == last and g(mid) == target]
            if end == head and first == last:
                found += [(at, g) for g in reverse if g(mid) == target]
            if cumsum and first == head and sum(mid) == last:
                found += [(at, g) for g in cumsum if g(mid) == target]
            if ascending and min(mid) == head and max(mid) == last:
                if list(target) == sorted(target):
                    found += [(at, g) for g in ascending if g(mid) == target]
                else:
                    ascending = []
            if descending and max(mid) == head and min(mid) == last:
                if list(target) == sorted(target, reverse=True):
                    found += [(at, g) for g in descending if g(mid) == target]
                else:
                    descending = []
            if filters and mid == target:  # a filter that keeps every value
                found += [(at, g) for g in filters if g(mid) == target]
        elif filters and head in mid:
            if parity and (first & 1 != odd or first == head) and (end & 1 != odd or end == last):
                found += [(at, g) for g in parity if g(mid) == target]
            for g, k in aboves:
                if (first <= k or first == head) and (end <= k or end == last) and g(mid) == target:
                    found.append((at, g))
            if unique and first == head:
                found += [(at, g) for g in unique if g(mid) == target]
        if length != shapes_length:
            shapes_length = length
            shapes = shaped.get((length, size)) or take_drop(length, size)
        for g, start in shapes:
            if mid[start] == head and mid[start + end_at] == last and g(mid) == target:
                found.append((at, g))
    return found


def fitting_outputs(
    examples: list[tuple[Items, Items]],
    query: Items,
    tiers: int,
    depth: int,
    known: tuple[tuple[Step, ...], Items] | None = None,
) -> set[Items]:
    """The query outputs of every rule (one primitive, or two composed when ``depth`` is 2)
    that reproduces all ``examples``.

    Only rules that reproduce the first example are built (:func:`_steps_into`): at depth 1
    the primitives that turn its input into its output; at depth 2 every primitive's result
    on its input (not grouped by value: nearly all 23 differ at tier 3, and hashing them cost
    more than the few repeats save), each judged as a middle list, and the single
    primitives whose result is its output. The other examples are then checked per rule.
    ``known`` is a rule that made the examples (so reproduces them all) with its output on
    ``query``: when found it is taken as it is, not run on every example again (the
    generator knows its own rule). The same set as :func:`fitting_outputs_reference`.
    """
    first_in, first_out = examples[0]
    lookups = _lookups(tiers)
    rest = examples[1:]
    answers: set[Items] = set()
    if depth < 2:  # one primitive: each that fits the first example is run on the rest directly
        for _, f in _steps_into(lookups, (first_in,), first_out):
            for given, wanted in rest:
                if f(given) != wanted:
                    break
            else:
                answers.add(f(query))
        return answers
    steps = lookups.steps
    mids = [f(first_in) for f in steps]
    if first_out in mids:  # a single step gives the first output (read in C before walking)
        for f, mid in zip(steps, mids, strict=True):
            if mid == first_out:
                for given, wanted in rest:
                    if f(given) != wanted:
                        break
                else:
                    answers.add(f(query))
    known_first, known_second = known[0] if known is not None and len(known[0]) == 2 else (None, None)
    for at, g in _steps_into(lookups, mids, first_out):
        f = steps[at]
        if f is known_first and g is known_second and known is not None:
            answers.add(known[1])
            continue
        for given, wanted in rest:
            if g(f(given)) != wanted:
                break
        else:
            answers.add(g(f(query)))
    return answers


def fitting_outputs_reference(examples: list[tuple[Items, Items]], query: Items, tiers: int, depth: int) -> set[Items]:
    """:func:`fitting_outputs` rule by rule over every example: its reference in the tests."""
    prims = _primitives(tiers)
    first_in, first_out = examples[0]
    answers: set[Items] = set()
    chains: list[tuple[Callable[[Items], Items], ...]] = [(f,) for _, f in prims]
    if depth >= 2:
        # Group second steps by the first step's result on the first example: rules whose
        # first step gives the same list there are tried on it once.
        by_mid: dict[Items, list[Callable[[Items], Items]]] = {}
        for _, f in prims:
            by_mid.setdefault(f(first_in), []).append(f)
        for mid, firsts in by_mid.items():
            for _, g in prims:
                if g(mid) == first_out:
                    chains.extend((f, g) for f in firsts)
    for chain in chains:
        ok = True
        for given, wanted in examples:
            value = given
            for f in chain:
                value = f(value)
            if value != wanted:
                ok = False
                break
        if ok:
            value = query
            for f in chain:
                value = f(value)
            answers.add(value)
    return answers


def _show(xs: Items) -> str:
    """``[1, 2, 3]``: a list's own repr, the text the join of the values' ``str`` gives."""
    return repr(list(xs))


def generate(config: Config, rng: random.Random) -> Problem:
    prims = _primitives(config.tiers)

    # A list is ``rng.randint(min_length, max_length)`` values of ``rng.randint(0, max_value)``:
    # the draws are made inline (same getrandbits calls), one frame per list, not per value.
    getrandbits = rng.getrandbits
    low_length, length_span = config.min_length, config.max_length - config.min_length + 1
    length_bits = length_span.bit_length()
    value_span = config.max_value + 1
    value_bits = value_span.bit_length()

    def draw() -> Items:
        r = getrandbits(length_bits)
        while r >= length_span:
            r = getrandbits(length_bits)
        values: list[int] = []
        append = values.append
        for _ in range(low_length + r):
            v = getrandbits(value_bits)
            while v >= value_span:
                v = getrandbits(value_bits)
            append(v)
        return tuple(values)

    depth = config.depth
    count = len(prims)
    count_bits = count.bit_length()
    for _ in range(_MAX_TRIES):
        chain = []
        for _ in range(depth):  # ``rng.choice(prims)`` inline (same getrandbits calls)
            r = getrandbits(count_bits)
            while r >= count:
                r = getrandbits(count_bits)
            chain.append(prims[r])
        if depth == 2 and chain[0][0] == chain[1][0]:
            continue

        rule: Callable[[Items], Items]
        if depth == 1:
            rule = chain[0][1]
        else:

            def rule(xs: Items, f: Step = chain[0][1], g: Step = chain[1][1]) -> Items:
                return g(f(xs))

        examples = [(xs, rule(xs)) for xs in [draw() for _ in range(config.examples)]]
        query = draw()
        answer = rule(query)
        if len(answer) < 2:
            continue
        shown_as_is = False  # an example whose output is empty or its input unchanged
        for xs, out in examples:
            if not out or xs == out:
                shown_as_is = True
                break
        if shown_as_is:
            continue
        known = ((chain[0][1], chain[1][1]), answer) if depth == 2 else None
        for _ in range(3):
            fits = fitting_outputs(examples, query, config.tiers, config.depth, known)
            if fits == {answer}:
                break
            extra = draw()
            examples.append((extra, rule(extra)))
        else:
            continue
        break
    else:
        raise ValueError("list_functions: no item whose examples fix the answer")
    # ``_show`` inline: a list's repr is that text.
    shown = "\n".join([f"{list(given)!r} -> {list(out)!r}" for given, out in examples])
    question = (
        "A hidden function turns each input list into an output list:\n"
        f"{shown}\n\nWhat does it turn {list(query)!r} into? "
        "Answer with the output list in the same form, e.g. [1, 2, 3]."
    )
    extra_meta = {"rule": [name for name, _ in chain], "examples": len(examples)}
    return Problem(question, repr(list(answer)), extra_meta)


FAMILY = Family(
    name=NAME,
    description="Apply a hidden list function (map/filter/sort/take/... or two composed) induced from examples.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    counterpart="reasoning_gym:list_functions",
)
