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


class _Entailment:
    """What a consistent set of premises leaves possible, to test many conclusions fast.

    A conclusion follows iff adding its negation leaves no model. A particular negation
    (I/O) needs one allowed region: one AND. A universal negation (A/E) empties regions:
    every particular requirement must still find an allowed one.
    """

    __slots__ = ("allowed", "needs", "num_terms")

    def __init__(self, premises: list[Statement], num_terms: int, existential_import: bool) -> None:
        empty = 0
        needs: list[int] = []
        masks = _statement_masks(num_terms)
        for premise in premises:
            universal, mask = masks[premise]
            if universal:
                empty |= mask
            else:
                needs.append(mask)
        if existential_import:
            needs.extend(_members_masks(num_terms))
        self.allowed = ((1 << (1 << num_terms)) - 1) & ~empty
        self.needs = needs
        self.num_terms = num_terms

    def consistent(self) -> bool:
        return all(need & self.allowed for need in self.needs)

    def follows(self, conclusion: Statement) -> bool:
        form, s, p = conclusion
        negation = _NEGATION[form]
        mask = _region_mask(self.num_terms, s, p, negation in ("E", "I"))
        if negation in ("I", "O"):
            return not mask & self.allowed
        allowed = self.allowed & ~mask
        return not all(need & allowed for need in self.needs)


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


def _random_chain(forms: tuple[str, ...], k: int, rng: random.Random) -> list[Statement]:
    """Premises linking terms ``i`` and ``i + 1`` with random forms and directions."""
    chain: list[Statement] = []
    random_, getrandbits = rng.random, rng.getrandbits
    n = len(forms)
    bits = n.bit_length()
    for i in range(k):
        a, b = (i, i + 1) if random_() < 0.5 else (i + 1, i)
        r = getrandbits(bits)  # rng.choice(forms), its draws inline
        while r >= n:
            r = getrandbits(bits)
        chain.append((forms[r], a, b))
    return chain


_SHAPES = {False: ("A", "E", "E2"), True: ("A", "E", "E2", "I", "O", "O2")}
"""The valid figures ``_valid_chain`` draws from, without and with particular premises."""


def _valid_chain(particular: bool, k: int, rng: random.Random) -> list[Statement]:
    """A sorites from term 0 to term ``k`` with a valid conclusion (random valid figure).

    Random chains almost never entail anything once k >= 4, so valid items are built
    from these shapes; invalid ones are often the same shapes with one premise altered.
    """
    shape = rng.choice(_SHAPES[particular])
    forward = [("A", i, i + 1) for i in range(k)]  # T0 in T1 in ... in Tk
    backward = [("A", i + 1, i) for i in range(1, k)]  # Tk in ... in T1
    if shape == "A":
        chain = forward
    elif shape == "E":
        chain = [*forward[:-1], ("E", k - 1, k)]
    elif shape == "I":
        chain = [("I", 0, 1), *forward[1:]]
    elif shape == "O":
        chain = [("I", 0, 1), *forward[1:-1], ("E", k - 1, k)]
    elif shape == "E2":
        chain = [("E", 0, 1), *backward]
    else:  # O2: some T0 are not T1, and Tk is inside T1
        chain = [("O", 0, 1), *backward]
    # "No"/"some" statements read the same both ways round.
    return [(f, b, a) if f in ("E", "I") and rng.random() < 0.5 else (f, a, b) for f, a, b in chain]


def _alter(chain: list[Statement], forms: tuple[str, ...], rng: random.Random) -> list[Statement]:
    """Change one premise: reverse an "all"/"some not" statement or swap its form."""
    out = list(chain)
    i = rng.randrange(len(out))
    form, a, b = out[i]
    if form in ("A", "O") and rng.random() < 0.5:
        out[i] = (form, b, a)
    else:
        out[i] = (rng.choice([f for f in forms if f != form]), a, b)
    return out


def _draw(config: Config, want_valid: bool, rng: random.Random) -> tuple[list[Statement], int]:
    forms = ("A", "E", "I", "O") if config.particular else ("A", "E")
    k = config.num_premises
    roll = rng.random()
    if roll < 0.4:
        premises = _random_chain(forms, k, rng)
    else:
        premises = _valid_chain(config.particular, k, rng)
        if not want_valid:
            premises = _alter(premises, forms, rng)
    num_terms = k + 1
    if config.distractors:
        # rng.randrange(num_terms), rng.random() and rng.choice(forms) per distractor, the
        # integer draws inline (the same getrandbits calls)
        getrandbits, random_ = rng.getrandbits, rng.random
        n = len(forms)
        form_bits = n.bit_length()
        for _ in range(config.distractors):
            bits = num_terms.bit_length()
            anchor = getrandbits(bits)
            while anchor >= num_terms:
                anchor = getrandbits(bits)
            extra = num_terms
            num_terms += 1
            a, b = (anchor, extra) if random_() < 0.5 else (extra, anchor)
            r = getrandbits(form_bits)
            while r >= n:
                r = getrandbits(form_bits)
            premises.append((forms[r], a, b))
    return premises, num_terms


@functools.cache
def _candidate_tests(chain_terms: int, num_terms: int) -> tuple[tuple[bool, int], ...]:
    """Per candidate of ``_candidates(chain_terms)``: whether its negation is particular, and
    the region mask that negation constrains (what ``_Entailment.follows`` computes per call)."""
    tests = []
    for form, s, p in _candidates(chain_terms):
        negation = _NEGATION[form]
        tests.append((negation in ("I", "O"), _region_mask(num_terms, s, p, negation in ("E", "I"))))
    return tuple(tests)


@functools.cache
def _candidate_index(chain_terms: int) -> dict[Statement, int]:
    return {candidate: index for index, candidate in enumerate(_candidates(chain_terms))}


def _pick_conclusions(
    premises: list[Statement],
    num_terms: int,
    config: Config,
    wanted: int,
    rng: random.Random,
    entailment: _Entailment | None = None,
) -> tuple[list[Statement], list[Statement]] | None:
    """``wanted`` conclusions that follow and ``shown - wanted`` that do not, or None.

    Candidates are any form over any ordered pair of chain terms that is not a premise,
    tried in random order until both quotas are met (most items need a handful of checks).
    The draw is ``rng.choice(candidates)`` written out (same ``getrandbits`` calls), and a
    candidate's entailment test is ``_Entailment.follows`` on precomputed masks: this loop
    was most of the family's generation time.
    """
    need_bad = config.shown - wanted
    # Conclusions about the chain's terms (not the distractors), where most that follow are.
    chain_terms = config.num_premises + 1
    candidates = _candidates(chain_terms)
    tests = _candidate_tests(chain_terms, num_terms)
    index = _candidate_index(chain_terms)
    n = len(candidates)
    skip = bytearray(n)  # a premise, or tried already
    for premise in premises:
        at = index.get(premise)
        if at is not None:
            skip[at] = 1
    if entailment is None:
        entailment = _Entailment(premises, num_terms, config.existential_import)
    allowed, needs = entailment.allowed, entailment.needs
    good: list[Statement] = []
    bad: list[Statement] = []
    getrandbits, bits = rng.getrandbits, n.bit_length()
    attempts = 2 * n
    missing_good, missing_bad = wanted, need_bad  # counters, not len() per draw
    while (missing_good or missing_bad) and attempts:
        attempts -= 1
        r = getrandbits(bits)
        while r >= n:
            r = getrandbits(bits)
        if skip[r]:
            continue
        skip[r] = 1
        particular, mask = tests[r]
        if particular:
            follows = not mask & allowed
        else:
            rest = allowed & ~mask
            follows = False
            for need in needs:
                if not need & rest:
                    follows = True
                    break
        if follows:
            if missing_good:
                good.append(candidates[r])
                missing_good -= 1
        elif missing_bad:
            bad.append(candidates[r])
            missing_bad -= 1
    if missing_good or missing_bad:
        return None
    return good, bad


def generate(config: Config, rng: random.Random) -> Problem:
    # How many of the shown conclusions follow, weighted so that every exact set of
    # letters (and "none") is equally likely, whatever a policy answers without reading.
    # ``rng.choices(range(shown + 1), weights=...)[0]`` as ``random.Random.choices`` computes
    # it (one ``random()``, a bisect of the running sums), with the running sums built once.
    cumulative = _FOLLOW_CUMULATIVE[config.shown]
    wanted = bisect.bisect(cumulative, rng.random() * (cumulative[-1] + 0.0), 0, config.shown)
    imp = config.existential_import
    for _ in range(_MAX_TRIES):
        premises, num_terms = _draw(config, wanted > 0, rng)
        # ``consistent`` and the picks' entailment tests read the same masks: built once.
        entailment = _Entailment(premises, num_terms, imp)
        if not entailment.consistent():
            continue
        picked = _pick_conclusions(premises, num_terms, config, wanted, rng, entailment)
        if picked is not None:
            break
    else:
        raise ValueError(f"{NAME}: no instance with {wanted} following conclusions in {_MAX_TRIES} draws")
    good, bad = picked
    options = good + bad
    rng.shuffle(options)
    terms = rng.sample(_TERMS, num_terms)
    shown = list(premises)
    if config.shuffled:
        rng.shuffle(shown)
    assumption = (
        "Assume every kind mentioned has at least one member."
        if imp
        else 'Do not assume that any kind has members: "All X are Y" is true even when there are '
        'no X, and "Some X are Y" means at least one X is a Y.'
    )
    letters = _LETTERS[: len(options)]
    follow = [letter for letter, option in zip(letters, options, strict=True) if option in good]  # in order
    # ``_phrase`` inline, its words looked up: one list of lines joined once.
    lines = ["Premises:"]
    append = lines.append
    for number, (form, s, p) in enumerate(shown, 1):
        lead, verb = _WORDS[form]
        append(f"{number}. {lead}{terms[s]}{verb}{terms[p]}.")
    append("Candidate conclusions:")
    for letter, (form, s, p) in zip(letters, options, strict=True):
        lead, verb = _WORDS[form]
        append(f"{letter}. {lead}{terms[s]}{verb}{terms[p]}.")
    append(assumption)
    append(
        "Which candidate conclusions follow necessarily from the premises? Answer with the letters "
        "of all that follow, separated by commas (e.g. A, C), or none if none of them follows."
    )
    question = "\n".join(lines)
    return Problem(
        question=question,
        answer=", ".join(follow) if follow else "none",
        extra={
            "premises": [[f, terms[s], terms[p]] for f, s, p in shown],
            "conclusions": [[f, terms[s], terms[p]] for f, s, p in options],
            "existential_import": imp,
        },
    )


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
