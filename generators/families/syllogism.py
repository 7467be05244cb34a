"""Categorical syllogisms and chains of them (sorites): valid or invalid?

Tests deductive validity independent of world knowledge: the terms are nonsense words.
Validity is decided exactly on Venn-diagram regions: universal statements empty a set of
regions, particular ones require a non-empty region, and a conclusion is valid iff the
premises plus its negation are unsatisfiable. Harder levels chain more premises, mix in
"some"/"some ... not" forms, shuffle the premises, add irrelevant premises, and drop the
assumption that every kind has members (so, for instance, "all A are B" no longer gives
"some A are B").
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "syllogism"

_TERMS = (
    "blickets", "wugs", "daxes", "feps", "toves", "zorbs", "glorps", "snarks", "plinks",
    "murks", "quibs", "vords", "frells", "grobs", "yints", "kelts", "norbs", "spleeks",
    "tharns", "drobes", "mimsies", "borogs", "jubjubs", "whiffles",
)
_MAX_TRIES = 400

Statement = tuple[str, int, int]
"""``(form, subject, predicate)`` with form in A (all), E (no), I (some), O (some not)."""

_NEGATION = {"A": "O", "O": "A", "E": "I", "I": "E"}


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
    valid_rate: float = 0.5

    RANGES: ClassVar = {
        "num_premises": (2, 5),
        "distractors": (0, 2),
        "valid_rate": (0.0, 1.0),
    }


LEVELS = (
    {"num_premises": 2},
    {"num_premises": 2, "particular": True},
    {"num_premises": 3, "particular": True, "shuffled": True},
    {"num_premises": 3, "particular": True, "shuffled": True, "existential_import": False,
     "distractors": 1},
    {"num_premises": 4, "particular": True, "shuffled": True, "existential_import": False,
     "distractors": 1},
    {"num_premises": 5, "particular": True, "shuffled": True, "existential_import": False,
     "distractors": 2},
)


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


def valid(premises: list[Statement], conclusion: Statement, num_terms: int, existential_import: bool) -> bool:
    form, s, p = conclusion
    return not consistent(premises + [(_NEGATION[form], s, p)], num_terms, existential_import)


def _phrase(statement: Statement, terms: list[str]) -> str:
    form, s, p = statement
    if form == "A":
        return f"All {terms[s]} are {terms[p]}."
    if form == "E":
        return f"No {terms[s]} are {terms[p]}."
    if form == "I":
        return f"Some {terms[s]} are {terms[p]}."
    return f"Some {terms[s]} are not {terms[p]}."


def _random_chain(forms: tuple[str, ...], k: int, rng: random.Random) -> list[Statement]:
    """Premises linking terms ``i`` and ``i + 1`` with random forms and directions."""
    chain: list[Statement] = []
    for i in range(k):
        a, b = (i, i + 1) if rng.random() < 0.5 else (i + 1, i)
        chain.append((rng.choice(forms), a, b))
    return chain


def _valid_chain(particular: bool, k: int, rng: random.Random) -> list[Statement]:
    """A sorites from term 0 to term ``k`` with a valid conclusion (random valid figure).

    Random chains almost never entail anything once k >= 4, so valid items are built
    from these shapes; invalid ones are often the same shapes with one premise altered.
    """
    shapes = ["A", "E", "E2"] + (["I", "O", "O2"] if particular else [])
    shape = rng.choice(shapes)
    forward = [("A", i, i + 1) for i in range(k)]  # T0 in T1 in ... in Tk
    backward = [("A", i + 1, i) for i in range(1, k)]  # Tk in ... in T1
    if shape == "A":
        chain = forward
    elif shape == "E":
        chain = forward[:-1] + [("E", k - 1, k)]
    elif shape == "I":
        chain = [("I", 0, 1)] + forward[1:]
    elif shape == "O":
        chain = [("I", 0, 1)] + forward[1:-1] + [("E", k - 1, k)]
    elif shape == "E2":
        chain = [("E", 0, 1)] + backward
    else:  # O2: some T0 are not T1, and Tk is inside T1
        chain = [("O", 0, 1)] + backward
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
    for _ in range(config.distractors):
        anchor = rng.randrange(num_terms)
        extra = num_terms
        num_terms += 1
        a, b = (anchor, extra) if rng.random() < 0.5 else (extra, anchor)
        premises.append((rng.choice(forms), a, b))
    return premises, num_terms


def generate(config: Config, rng: random.Random) -> Problem:
    want_valid = rng.random() < config.valid_rate
    imp = config.existential_import
    end = config.num_premises
    for _ in range(_MAX_TRIES):
        premises, num_terms = _draw(config, want_valid, rng)
        if not consistent(premises, num_terms, imp):
            continue
        candidates = [(f, s, p) for f in "AEIO" for s, p in ((0, end), (end, 0))]
        good = [c for c in candidates if valid(premises, c, num_terms, imp)]
        bad = [c for c in candidates if c not in good]
        if want_valid and good:
            conclusion = rng.choice(good)
            break
        if not want_valid and bad:
            # Prefer near misses: same form or same subject as a valid conclusion.
            near = [c for c in bad if any(c[0] == g[0] or c[1:] == g[1:] for g in good)]
            conclusion = rng.choice(near if near and rng.random() < 0.7 else bad)
            break
    else:
        raise ValueError(f"{NAME}: no instance with the wanted validity in {_MAX_TRIES} draws")
    is_valid = valid(premises, conclusion, num_terms, imp)
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
    question = (
        "Premises:\n"
        + "\n".join(f"{i + 1}. {_phrase(st, terms)}" for i, st in enumerate(shown))
        + f"\nConclusion: {_phrase(conclusion, terms)}\n{assumption}\n"
        "Does the conclusion follow necessarily from the premises? Answer with valid or invalid."
    )
    return Problem(
        question=question,
        answer="valid" if is_valid else "invalid",
        extra={
            "premises": [[f, terms[s], terms[p]] for f, s, p in shown],
            "conclusion": [conclusion[0], terms[conclusion[1]], terms[conclusion[2]]],
            "existential_import": imp,
        },
    )


FAMILY = Family(
    name=NAME,
    description="Decide whether a categorical conclusion follows from chained premises.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    notes="Level 0 has only a few dozen logical shapes (two universal premises); distinct "
    "texts come from the drawn nonsense terms.",
)
