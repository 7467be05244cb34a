"""Categorical syllogisms and chains of them (sorites): which conclusions follow?

Tests deductive validity independent of world knowledge: the terms are nonsense words.
Validity is decided exactly on Venn-diagram regions: universal statements empty a set of
regions, particular ones require a non-empty region, and a conclusion is valid iff the
premises plus its negation are unsatisfiable. Harder levels chain more premises, mix in
"some"/"some ... not" forms, shuffle the premises, add irrelevant premises, and drop the
assumption that every kind has members (so, for instance, "all A are B" no longer gives
"some A are B").

Each item lists several candidate conclusions (about any two terms, none a restated
premise) and asks for the set of those that follow, so a fixed answer ("A", "none",
"valid") earns little: how many follow is drawn with weights that keep every exact set
rare.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.fastrandom import _WIDTHS

NAME = "syllogism"

_TERMS = (
    "blickets",
    "wugs",
    "daxes",
    "feps",
    "toves",
    "zorbs",
    "glorps",
    "snarks",
    "plinks",
    "murks",
    "quibs",
    "vords",
    "frells",
    "grobs",
    "yints",
    "kelts",
    "norbs",
    "spleeks",
    "tharns",
    "drobes",
    "mimsies",
    "borogs",
    "jubjubs",
    "whiffles",
)
_MAX_TRIES = 400

Statement = tuple[str, int, int]
"""``(form, subject, predicate)`` with form in A (all), E (no), I (some), O (some not)."""

_NEGATION = {"A": "O", "O": "A", "E": "I", "I": "E"}
_LETTERS = "ABCDE"
_FOLLOW_WEIGHTS = {shown: tuple(math.comb(shown, k) for k in range(shown + 1)) for shown in range(2, 6)}
"""Weights of how many shown conclusions follow (index = count): binomial, so that every
set of letters, "none" included, is equally likely (1 in 16 with four shown)."""
_FOLLOW_CUMULATIVE = {shown: list(itertools.accumulate(weights)) for shown, weights in _FOLLOW_WEIGHTS.items()}


@dataclass(frozen=True)
class Config(Knobs):
    num_premises: int = 2
    particular: bool = False
    """Allow "some" and "some ... are not" premises (otherwise only "all" and "no")."""
    existential_import: bool = True
    """Tell the solver every kind has at least one member."""
    shuffled: bool = False
    distractors: int = 0
    """Premises about an extra term that the conclusion does not depend on."""
    shown: int = 4
    """Candidate conclusions listed; the answer is the set of those that follow."""

    RANGES: ClassVar = {
        "num_premises": (2, 5),
        "distractors": (0, 2),
        "shown": (2, 5),
    }


LEVELS = (
    {"num_premises": 2},
    {"num_premises": 2, "particular": True},
    {"num_premises": 3, "particular": True, "shuffled": True},
    {"num_premises": 3, "particular": True, "shuffled": True, "existential_import": False, "distractors": 1},
    {"num_premises": 4, "particular": True, "shuffled": True, "existential_import": False, "distractors": 1},
    {"num_premises": 5, "particular": True, "shuffled": True, "existential_import": False, "distractors": 2},
)


@functools.cache
def _region_mask(num_terms: int, subject: int, predicate: int, predicate_in: bool) -> int:
    """Regions (bit patterns of term membership) inside subject and in/out of predicate."""
    mask = 0
    for region in range(1 << num_terms):
        if region >> subject & 1 and bool(region >> predicate & 1) == predicate_in:
            mask |= 1 << region
    return mask


def consistent(statements: list[Statement], num_terms: int, existential_import: bool) -> bool:
    """Is there a model? Make every allowed region non-empty, then check the particulars."""
    empty = 0
    needs: list[int] = []
    for form, s, p in statements:
        # A empties S-and-not-P, E empties S-and-P; I/O need those regions non-empty.
        mask = _region_mask(num_terms, s, p, form in ("E", "I"))
        if form in ("A", "E"):
            empty |= mask
        else:
            needs.append(mask)
    if existential_import:
        needs.extend(_region_mask(num_terms, t, t, True) for t in range(num_terms))
    allowed = ((1 << (1 << num_terms)) - 1) & ~empty
    return all(need & allowed for need in needs)


@functools.cache
def _statement_masks(num_terms: int) -> dict[Statement, tuple[bool, int]]:
    """Per statement over ``num_terms`` terms: whether it is universal (empties its regions)
    and its ``_region_mask``; one dict lookup per premise, keyed by the premise itself."""
    return {
        (form, s, p): (form in ("A", "E"), _region_mask(num_terms, s, p, form in ("E", "I")))
        for form in "AEIO"
        for s in range(num_terms)
        for p in range(num_terms)
    }


@functools.cache
def _members_masks(num_terms: int) -> tuple[int, ...]:
    """Each term's regions: what existential import requires to be non-empty."""
    return tuple(_region_mask(num_terms, t, t, True) for t in range(num_terms))


@functools.cache
def _candidates(num_terms: int) -> tuple[Statement, ...]:
    """Every statement about two distinct terms among the first ``num_terms``."""
    return tuple((f, s, p) for f in "AEIO" for s in range(num_terms) for p in range(num_terms) if s != p)


def valid(premises: list[Statement], conclusion: Statement, num_terms: int, existential_import: bool) -> bool:
    form, s, p = conclusion
    return not consistent([*premises, (_NEGATION[form], s, p)], num_terms, existential_import)


_WORDS = {"A": ("All ", " are "), "E": ("No ", " are "), "I": ("Some ", " are "), "O": ("Some ", " are not ")}
"""The words before and between the terms, by form: what ``_phrase`` writes."""


def _phrase(statement: Statement, terms: list[str]) -> str:
    """One statement in words (``generate`` writes the same text inline from ``_WORDS``)."""
    form, s, p = statement
    lead, verb = _WORDS[form]
    return f"{lead}{terms[s]}{verb}{terms[p]}."


_SHAPES = {False: ("A", "E", "E2"), True: ("A", "E", "E2", "I", "O", "O2")}
"""The valid figures a sorites is built from, without and with particular premises."""


def _figure(shape: str, k: int) -> tuple[Statement, ...]:
    """The sorites of ``shape`` from term 0 to term ``k`` before its "no"/"some" statements
    are turned round: ``A`` T0 in T1 in ... in Tk; ``E`` the last link "no"; ``I`` the first
    link "some"; ``O`` both; ``E2``/``O2`` "no"/"some not" T0 T1, then Tk in ... in T1.
    Random chains almost never entail anything once k >= 4, so valid items are built from
    these shapes; invalid ones are often the same shapes with one premise altered."""
    forward = [("A", i, i + 1) for i in range(k)]
    backward = [("A", i + 1, i) for i in range(1, k)]
    chains = {
        "A": forward,
        "E": [*forward[:-1], ("E", k - 1, k)],
        "I": [("I", 0, 1), *forward[1:]],
        "O": [("I", 0, 1), *forward[1:-1], ("E", k - 1, k)],
        "E2": [("E", 0, 1), *backward],
        "O2": [("O", 0, 1), *backward],
    }
    return tuple(chains[shape])


@dataclass(frozen=True)
class _Plan:
    """Everything about a config that ``generate`` would otherwise look up or rebuild per
    item: the draws' bit widths, the figures, the premise masks, and per candidate
    conclusion its index, whether its negation is particular and the regions it constrains.
    Built once per config object (:func:`_plan`)."""

    cumulative: list[int]
    shown: int
    forms: tuple[str, ...]
    form_bits: int
    others: dict[str, tuple[str, ...]]
    """Per form, the other forms: what an altered premise's new form is drawn from."""
    shapes: tuple[tuple[tuple[Statement, ...], tuple[tuple[int, Statement], ...]], ...]
    """Per figure, its statements and, for each "no"/"some" one (in order), its index and
    the statement turned round (what a draw below 0.5 puts there)."""
    shape_bits: int
    k_bits: int
    masks: dict[Statement, tuple[bool, int, int]]
    """Per statement: whether it is universal, its regions (``_statement_masks``) and its
    index among the candidates (the spare last mark of ``state`` when it is none)."""
    members: tuple[int, ...]
    """Each term's regions when every kind has members (none otherwise)."""
    full: int
    candidates: tuple[Statement, ...]
    tests: tuple[int, ...]
    """Per candidate, the regions its negation constrains: as they are when the negation
    is particular (it needs one of them), complemented (negative) when it is universal (it
    empties them)."""
    sample_pool: bool
    """Whether ``rng.sample`` of the terms takes its pool branch (else its selected-set one)."""
    state: bytes
    """The picks' starting marks: 0 per candidate, 2 for each draw above the last one, and
    a spare one the premises that are no candidate mark."""


_PLANS: dict[int, tuple[Config, _Plan]] = {}


def _plan(config: Config) -> _Plan:
    entry = _PLANS.get(id(config))
    if entry is not None and entry[0] is config:
        return entry[1]
    k = config.num_premises
    forms = ("A", "E", "I", "O") if config.particular else ("A", "E")
    num_terms = k + 1 + config.distractors
    chain_terms = k + 1
    candidates = _candidates(chain_terms)
    negations = [(_NEGATION[f], s, p) for f, s, p in candidates]
    terms = len(_TERMS)
    n = len(candidates)
    index = {candidate: at for at, candidate in enumerate(candidates)}
    state = bytes(n) + b"\x02" * ((1 << n.bit_length()) - n) + b"\x00"
    plan = _Plan(
        cumulative=_FOLLOW_CUMULATIVE[config.shown],
        shown=config.shown,
        forms=forms,
        form_bits=len(forms).bit_length(),
        others={form: tuple(f for f in forms if f != form) for form in forms},
        shapes=tuple(
            (figure, tuple((i, (f, b, a)) for i, (f, a, b) in enumerate(figure) if f in ("E", "I")))
            for figure in (_figure(shape, k) for shape in _SHAPES[config.particular])
        ),
        shape_bits=len(_SHAPES[config.particular]).bit_length(),
        k_bits=k.bit_length(),
        masks={
            statement: (universal, mask, index.get(statement, len(state) - 1))
            for statement, (universal, mask) in _statement_masks(num_terms).items()
        },
        members=_members_masks(num_terms) if config.existential_import else (),
        full=(1 << (1 << num_terms)) - 1,
        candidates=candidates,
        tests=tuple(
            mask if f in ("I", "O") else ~mask
            for f, mask in ((f, _region_mask(num_terms, s, p, f in ("E", "I"))) for f, s, p in negations)
        ),
        state=state,
        sample_pool=terms <= 21 + (4 ** math.ceil(math.log(num_terms * 3, 4)) if num_terms > 5 else 0),
    )
    if len(_PLANS) >= 64:
        _PLANS.clear()
    _PLANS[id(config)] = (config, plan)
    return plan


def generate(config: Config, rng: random.Random) -> Problem:
    """One item. The draws are ``random.Random``'s (``choice``, ``randrange``, ``shuffle``,
    ``sample``, ``choices``) written out over ``getrandbits`` and ``random``, in the order
    the helpers that once made them drew (``tests/generators/syllogism_reference.py``), so
    the items are theirs; what is fixed per config comes from :func:`_plan`. This function
    is most of the family's time, so the steps stay inline."""
    entry = _PLANS.get(id(config))
    plan = entry[1] if entry is not None and entry[0] is config else _plan(config)
    getrandbits, random_ = rng.getrandbits, rng.random
    # How many of the shown conclusions follow, weighted so that every exact set of letters
    # (and "none") is equally likely: ``rng.choices(range(shown + 1), weights=...)[0]``.
    cumulative, shown_count = plan.cumulative, plan.shown
    wanted = bisect.bisect(cumulative, random_() * (cumulative[-1] + 0.0), 0, shown_count)
    forms, form_bits, form_count = plan.forms, plan.form_bits, len(plan.forms)
    k = config.num_premises
    distractors = config.distractors
    masks, members, full = plan.masks, plan.members, plan.full
    candidates, tests = plan.candidates, plan.tests
    n = len(candidates)
    bits = n.bit_length()
    for _ in range(_MAX_TRIES):
        premises: list[Statement]
        if random_() < 0.4:  # a random chain: each link's direction, then its form
            premises = []
            for i in range(k):
                a, b = (i, i + 1) if random_() < 0.5 else (i + 1, i)
                r = getrandbits(form_bits)
                while r >= form_count:
                    r = getrandbits(form_bits)
                premises.append((forms[r], a, b))
        else:  # a valid figure, its "no"/"some" statements turned round at random
            shapes = plan.shapes
            r = getrandbits(plan.shape_bits)
            while r >= len(shapes):
                r = getrandbits(plan.shape_bits)
            shape, turns = shapes[r]
            premises = list(shape)
            for i, turned in turns:
                if random_() < 0.5:
                    premises[i] = turned
            if not wanted:  # alter one premise: turn an "all"/"some not" round, or change its form
                i = getrandbits(plan.k_bits)
                while i >= k:
                    i = getrandbits(plan.k_bits)
                form, a, b = premises[i]
                if (form == "A" or form == "O") and random_() < 0.5:
                    premises[i] = (form, b, a)
                else:
                    others = plan.others[form]
                    width = len(others).bit_length()
                    r = getrandbits(width)
                    while r >= len(others):
                        r = getrandbits(width)
                    premises[i] = (others[r], a, b)
        num_terms = k + 1
        for _ in range(distractors):  # a premise about a new term and one of the earlier ones
            width = num_terms.bit_length()
            anchor = getrandbits(width)
            while anchor >= num_terms:
                anchor = getrandbits(width)
            a, b = (anchor, num_terms) if random_() < 0.5 else (num_terms, anchor)
            num_terms += 1
            r = getrandbits(form_bits)
            while r >= form_count:
                r = getrandbits(form_bits)
            premises.append((forms[r], a, b))
        # The premises' models: universal premises empty regions, particular ones (and
        # existential import) need one region left. Inconsistent premises are drawn again.
        empty = 0
        needs = list(members)
        state = bytearray(plan.state)  # see the picks below
        for premise in premises:
            universal, mask, at = masks[premise]
            if universal:
                empty |= mask
            else:
                needs.append(mask)
            state[at] = 1
        allowed = full & ~empty
        for need in needs:
            if not need & allowed:
                break
        else:
            # Candidates tried in ``rng.choice`` order until ``wanted`` follow and the rest
            # do not. A conclusion follows iff its negation leaves no model: a particular
            # negation needs an allowed region, a universal one empties regions that some
            # requirement may have needed.
            # ``state`` is 1 for a premise or a candidate tried (a draw spent), 2 past the
            # last candidate (drawn again at once, as ``choice`` rejects it).
            missing_good, missing_bad = wanted, shown_count - wanted
            good: list[int] = []  # candidate indices, + n (a mark for the text below)
            bad: list[int] = []
            for _ in range(2 * n):  # attempts: a draw past the last candidate is none
                r = getrandbits(bits)
                seen = state[r]
                if seen:
                    while seen == 2:
                        r = getrandbits(bits)
                        seen = state[r]
                    if seen:
                        continue
                state[r] = 1
                test = tests[r]
                if test >= 0:
                    follows = not test & allowed
                else:
                    rest = allowed & test
                    follows = False
                    for need in needs:
                        if not need & rest:
                            follows = True
                            break
                if follows:
                    if missing_good:
                        good.append(r + n)
                        missing_good -= 1
                        if not (missing_good or missing_bad):
                            break
                elif missing_bad:
                    bad.append(r)
                    missing_bad -= 1
                    if not (missing_good or missing_bad):
                        break
            if not (missing_good or missing_bad):
                break
    else:
        raise ValueError(f"{NAME}: no instance with {wanted} following conclusions in {_MAX_TRIES} draws")
    # The options: those that follow (in the order found), then the others, shuffled.
    options = good + bad
    for i in range(len(options) - 1, 0, -1):  # rng.shuffle(options): j below i + 1
        width = _WIDTHS[i + 1]
        j = getrandbits(width)
        while j > i:
            j = getrandbits(width)
        options[i], options[j] = options[j], options[i]
    if plan.sample_pool:
        pool = list(_TERMS)
        terms = []
        for i in range(len(pool) - 1, len(pool) - 1 - num_terms, -1):  # j below i + 1
            width = _WIDTHS[i + 1]
            j = getrandbits(width)
            while j > i:
                j = getrandbits(width)
            terms.append(pool[j])
            pool[j] = pool[i]
    else:
        size = len(_TERMS)
        width = size.bit_length()
        selected: set[int] = set()
        terms = []
        for _ in range(num_terms):
            j = getrandbits(width)
            while j >= size or j in selected:
                j = getrandbits(width)
            selected.add(j)
            terms.append(_TERMS[j])
    shown = premises
    if config.shuffled:
        for i in range(len(shown) - 1, 0, -1):  # rng.shuffle(shown)
            width = _WIDTHS[i + 1]
            j = getrandbits(width)
            while j > i:
                j = getrandbits(width)
            shown[i], shown[j] = shown[j], shown[i]
    imp = config.existential_import
    # ``_phrase`` inline: the question is one list of pieces joined once, each line's
    # number or letter with its leading words from a table (``_LINES``).
    parts = ["Premises:"]
    stated = []
    for number, (form, s, p) in enumerate(shown, 1):
        subject, predicate = terms[s], terms[p]
        heads, verb = _LINES[form]
        parts += (heads[number], subject, verb, predicate, ".")
        stated.append([form, subject, predicate])
    parts.append("\nCandidate conclusions:")
    follow = []
    conclusions = []
    for at, r in enumerate(options):
        if r >= n:
            follow.append(_LETTERS[at])
            r -= n
        form, s, p = candidates[r]
        subject, predicate = terms[s], terms[p]
        heads, verb = _LINES[form]
        parts += (heads[at - 5], subject, verb, predicate, ".")
        conclusions.append([form, subject, predicate])
    parts.append(_CLOSING[imp])
    return Problem(
        "".join(parts),
        ", ".join(follow) if follow else "none",
        {"premises": stated, "conclusions": conclusions, "existential_import": imp},
    )


_ASSUMPTIONS = {
    True: "Assume every kind mentioned has at least one member.",
    False: 'Do not assume that any kind has members: "All X are Y" is true even when there are '
    'no X, and "Some X are Y" means at least one X is a Y.',
}
_ASK = (
    "Which candidate conclusions follow necessarily from the premises? Answer with the letters "
    "of all that follow, separated by commas (e.g. A, C), or none if none of them follows."
)
_CLOSING = {imp: f"\n{text}\n{_ASK}" for imp, text in _ASSUMPTIONS.items()}
"""The question's last two lines, by ``existential_import``."""
_LINES = {
    form: (tuple(f"\n{n}. {lead}" for n in range(8)) + tuple(f"\n{x}. {lead}" for x in _LETTERS), verb)
    for form, (lead, verb) in _WORDS.items()
}
"""Per form, a line's start and the words between its terms: ``\n3. All `` for premise 3
(index 3), ``\nB. All `` for conclusion B (index ``1 - 5``, counted from the end)."""


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:syllogism",
    description="Decide which candidate categorical conclusions follow from chained premises.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
    notes="Level 0 has only a few dozen logical shapes (two universal premises); distinct "
    "texts come from the drawn nonsense terms.",
)
