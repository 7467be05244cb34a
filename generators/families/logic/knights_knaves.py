"""Knights (always truthful) and knaves (always lying): who is a knight?

Tests case analysis over self-referential statements. Every puzzle is checked by brute
force over all 2^n knight/knave assignments to have exactly one consistent solution.
Harder levels add inhabitants and richer statement forms (conjunctions, disjunctions,
"same kind", implications, counting claims), which multiply the cases to consider.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "knights_knaves"

_NAMES = (
    "Alice",
    "Bob",
    "Carol",
    "Dave",
    "Erin",
    "Frank",
    "Grace",
    "Heidi",
    "Ivan",
    "Judy",
    "Ken",
    "Liam",
    "Mia",
    "Nora",
    "Oscar",
    "Pam",
    "Quinn",
    "Rosa",
    "Sam",
    "Tina",
)
_MAX_TRIES = 400
_ALL_KNAVE_KEEP = 0.35

Statement = tuple
"""A tagged tuple; see ``_holds`` for the forms."""

_FORMS_BY_COMPLEXITY = {
    1: ("is", "and", "or"),
    2: ("is", "and", "or", "same", "diff"),
    3: ("is", "and", "or", "same", "diff", "imp", "count", "notcount"),
}


@dataclass(frozen=True)
class Config(Knobs):
    num_people: int = 2
    complexity: int = 1
    """1: single facts, "both", "at least one"; 2: adds same/different kind; 3: adds
    implications and "exactly k of us are knights"."""

    RANGES: ClassVar = {"num_people": (2, 8), "complexity": (1, 3)}


LEVELS = (
    {"num_people": 2, "complexity": 1},
    {"num_people": 3, "complexity": 1},
    {"num_people": 3, "complexity": 2},
    {"num_people": 4, "complexity": 2},
    {"num_people": 5, "complexity": 3},
    {"num_people": 6, "complexity": 3},
)


def _holds(statement: Statement, knights: tuple[bool, ...]) -> bool:
    """Truth of a statement when ``knights[i]`` says whether person ``i`` is a knight."""
    form = statement[0]
    if form == "is":
        _, a, va = statement
        return knights[a] == va
    if form in ("and", "or", "imp"):
        _, a, va, b, vb = statement
        left, right = knights[a] == va, knights[b] == vb
        if form == "and":
            return left and right
        if form == "or":
            return left or right
        return (not left) or right
    if form in ("same", "diff"):
        _, a, b = statement
        return (knights[a] == knights[b]) == (form == "same")
    if form in ("count", "notcount"):
        _, k = statement
        return (sum(knights) == k) == (form == "count")
    raise ValueError(f"unknown statement form {form!r}")


def _negate(statement: Statement) -> Statement:
    """A statement that is true exactly when ``statement`` is false."""
    form = statement[0]
    if form == "is":
        return ("is", statement[1], not statement[2])
    if form == "and":
        _, a, va, b, vb = statement
        return ("or", a, not va, b, not vb)
    if form == "or":
        _, a, va, b, vb = statement
        return ("and", a, not va, b, not vb)
    if form == "imp":
        _, a, va, b, vb = statement
        return ("and", a, va, b, not vb)
    if form in ("same", "diff"):
        return ("diff" if form == "same" else "same", statement[1], statement[2])
    return ("notcount" if form == "count" else "count", statement[1])


def _random_statement(speaker: int, n: int, forms: tuple[str, ...], rng: random.Random) -> Statement:
    others = [i for i in range(n) if i != speaker]
    form = rng.choice(forms)
    if form == "is":
        return ("is", rng.choice(others), rng.random() < 0.5)
    if form in ("count", "notcount"):
        return (form, rng.randint(0, n))
    # Two-person forms may mention the speaker ("I am ...") plus someone else.
    a = rng.choice(range(n))
    b = rng.choice([i for i in range(n) if i != a])
    if form in ("same", "diff"):
        return (form, a, b)
    return (form, a, rng.random() < 0.5, b, rng.random() < 0.5)


def solutions(statements: list[list[Statement]], n: int) -> list[tuple[bool, ...]]:
    """All assignments where each speaker's statements are true iff the speaker is a knight."""
    found = []
    for knights in itertools.product((True, False), repeat=n):
        if all(_holds(s, knights) == knights[i] for i in range(n) for s in statements[i]):
            found.append(knights)
    return found


def _phrase(statement: Statement, speaker: int, names: list[str]) -> str:
    def who(i: int) -> str:
        return "I" if i == speaker else names[i]

    def kind(v: bool) -> str:
        return "a knight" if v else "a knave"

    def fact(i: int, v: bool) -> str:
        verb = "am" if i == speaker else "is"
        return f"{who(i)} {verb} {kind(v)}"

    form = statement[0]
    if form == "is":
        return f"{fact(statement[1], statement[2])}."
    if form in ("and", "or", "imp"):
        _, a, va, b, vb = statement
        if form == "and":
            return f"{fact(a, va)} and {fact(b, vb)}."
        if form == "or":
            return f"{fact(a, va)} or {fact(b, vb)} (or both)."
        return f"If {fact(a, va)}, then {fact(b, vb)}."
    if form in ("same", "diff"):
        a, b = sorted(statement[1:], key=lambda i: i != speaker)
        pair = f"{who(a)} and {who(b)}" if a != speaker else f"{names[b]} and I"
        return f"{pair} are {'of the same kind' if form == 'same' else 'of different kinds'}."
    k = statement[1]
    noun = "knight" if k == 1 else "knights"
    if form == "count":
        return f"Exactly {k} of us {len(names)} {'is a' if k == 1 else 'are'} {noun}."
    return f"It is not true that exactly {k} of us {len(names)} {'is a' if k == 1 else 'are'} {noun}."


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.num_people
    forms = _FORMS_BY_COMPLEXITY[config.complexity]
    names = sorted(rng.sample(_NAMES, n))
    for _ in range(_MAX_TRIES):
        truth = tuple(rng.random() < 0.5 for _ in range(n))
        statements: list[list[Statement]] = []
        for speaker in range(n):
            s = _random_statement(speaker, n, forms, rng)
            if _holds(s, truth) != truth[speaker]:
                s = _negate(s)  # make the hidden assignment consistent
            statements.append([s])
        # All-knave puzzles come out unique more often; thin them so "none" is no shortcut.
        if len(solutions(statements, n)) == 1 and (any(truth) or rng.random() < _ALL_KNAVE_KEEP):
            break
    else:
        raise ValueError(f"{NAME}: no uniquely solvable puzzle in {_MAX_TRIES} draws")
    lines = [f'{names[i]} says: "{_phrase(statements[i][0], i, names)}"' for i in range(n)]
    if any(s[0] == "imp" for ss in statements for s in ss):
        lines.append('(A statement "If P, then Q" is false only when P is true and Q is false.)')
    question = (
        "On an island, knights always tell the truth and knaves always lie. Every inhabitant is "
        f"exactly one of the two. You meet {n}: {', '.join(names)}.\n"
        + "\n".join(lines)
        + "\nWho are the knights? Answer with the names of all knights as a comma-separated "
        "list (in any order), or none if there are no knights."
    )
    knights = [names[i] for i in range(n) if truth[i]]
    return Problem(
        question=question,
        answer=", ".join(knights) if knights else "none",
        extra={"names": names, "statements": [[list(s) for s in ss] for ss in statements], "knights": knights},
    )


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:knights_knaves",
    description="Knights and knaves puzzles with a unique solution; name all knights.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
    notes="Level 0 (two inhabitants) has a few hundred distinct statement pairs; the drawn "
    "names make the question texts distinct, but the underlying logic repeats.",
)
