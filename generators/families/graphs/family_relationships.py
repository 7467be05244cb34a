"""Name the relationship between two people of a family described in sentences.

A three-generation family is described as marriages and children ("Ann is married to
Tom. They have a son, Bob."); the question asks what one person is to another (mother,
grandson, aunt, cousin, father-in-law, ...). The family is a graph of marriage and
parent edges and the answer is a short path read off it. The relationship asked is drawn
uniformly among those present before a pair is picked, so answers are spread (a constant
word earns about 1/20). Harder levels have more children per couple and more married
children, so the description is longer and the path to read is longer.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer, normalize_text
from generators.base import Family, Knobs, Problem

NAME = "family_relationships"

MALE = [
    "Adam",
    "Ben",
    "Carl",
    "Dan",
    "Eli",
    "Finn",
    "Gus",
    "Hank",
    "Ivan",
    "Jack",
    "Karl",
    "Liam",
    "Max",
    "Ned",
    "Owen",
    "Paul",
    "Quinn",
    "Ray",
    "Sam",
    "Tom",
    "Umar",
    "Vic",
    "Walt",
    "Xavier",
    "Yusuf",
    "Zane",
    "Abel",
    "Boris",
    "Cole",
    "Dean",
    "Emil",
    "Felix",
    "Glen",
    "Hugo",
    "Igor",
    "Joel",
    "Kurt",
    "Leon",
    "Milo",
    "Nick",
    "Otto",
    "Pete",
    "Rick",
    "Seth",
]
FEMALE = [
    "Alice",
    "Beth",
    "Cara",
    "Dora",
    "Emma",
    "Fay",
    "Gina",
    "Hana",
    "Iris",
    "Jane",
    "Kate",
    "Lily",
    "Mia",
    "Nora",
    "Olga",
    "Pia",
    "Rosa",
    "Sara",
    "Tina",
    "Uma",
    "Vera",
    "Wendy",
    "Xena",
    "Yara",
    "Zoe",
    "Ada",
    "Bella",
    "Cleo",
    "Diana",
    "Elsa",
    "Flora",
    "Grace",
    "Hilda",
    "Ida",
    "Julia",
    "Kira",
    "Lena",
    "Maya",
    "Nina",
    "Opal",
    "Petra",
    "Ruth",
    "Sofia",
]

_WORDS: dict[str, tuple[str, str]] = {
    "spouse": ("husband", "wife"),
    "parent": ("father", "mother"),
    "child": ("son", "daughter"),
    "sibling": ("brother", "sister"),
    "grandparent": ("grandfather", "grandmother"),
    "grandchild": ("grandson", "granddaughter"),
    "pibling": ("uncle", "aunt"),
    "nibling": ("nephew", "niece"),
    "cousin": ("cousin", "cousin"),
    "parent_in_law": ("father-in-law", "mother-in-law"),
    "child_in_law": ("son-in-law", "daughter-in-law"),
    "sibling_in_law": ("brother-in-law", "sister-in-law"),
}


@dataclass(slots=True, eq=False)
class Person:
    """One person; compared by identity (``in`` over people tests each one by ``is`` in C,
    not a generated field-by-field ``__eq__`` that recursed through spouses)."""

    name: str
    male: bool
    spouse: Person | None = None
    parents: tuple[Person, ...] = ()
    children: list[Person] = field(default_factory=list)


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_children": (1, 5), "married_share": (0.0, 1.0), "max_grandchildren": (1, 4)}

    max_children: int = 2
    married_share: float = 0.5
    """Chance that a child of the first couple is married (and has children)."""
    max_grandchildren: int = 2


LEVELS = (
    {"max_children": 2, "married_share": 0.6, "max_grandchildren": 2},
    {"max_children": 3, "married_share": 0.6, "max_grandchildren": 2},
    {"max_children": 3, "married_share": 0.7, "max_grandchildren": 3},
    {"max_children": 4, "married_share": 0.7, "max_grandchildren": 3},
    {"max_children": 4, "married_share": 0.8, "max_grandchildren": 3},
    {"max_children": 5, "married_share": 0.8, "max_grandchildren": 4},
)


def _siblings(p: Person) -> list[Person]:
    return [c for c in p.parents[0].children if c is not p] if p.parents else []


def relation(a: Person, b: Person) -> str | None:
    """What ``a`` is to ``b`` (a key of ``_WORDS``), or None for anything more distant."""
    if b.spouse is a:
        return "spouse"
    if a in b.parents:
        return "parent"
    if b in a.parents:
        return "child"
    if a in _siblings(b):
        return "sibling"
    if any(a in parent.parents for parent in b.parents):
        return "grandparent"
    if any(b in parent.parents for parent in a.parents):
        return "grandchild"
    piblings = [s for parent in b.parents for s in _siblings(parent)]
    if a in piblings or any(s.spouse is a for s in piblings):
        return "pibling"
    niblings_of_b = [c for s in _siblings(b) for c in s.children]
    if b.spouse is not None:
        niblings_of_b += [c for s in _siblings(b.spouse) for c in s.children]
    if a in niblings_of_b:
        return "nibling"
    if any(x in _siblings(y) for x in a.parents for y in b.parents):
        return "cousin"
    if b.spouse is not None and a in b.spouse.parents:
        return "parent_in_law"
    if any(c.spouse is a for c in b.children):
        return "child_in_law"
    if (b.spouse is not None and a in _siblings(b.spouse)) or any(s.spouse is a for s in _siblings(b)):
        return "sibling_in_law"
    return None


def _family(config: Config, rng: random.Random) -> list[Person]:
    # Each person's name is drawn when the person is made, uniformly from the names of that
    # sex not given yet (a swap-remove from the pool): one draw a person, not a full
    # permutation of both name lists (about 150 draws) per item.
    getrandbits = rng.getrandbits
    men, women = MALE.copy(), FEMALE.copy()

    def person(male: bool) -> Person:
        pool = men if male else women
        m = len(pool)
        bits = m.bit_length()
        j = getrandbits(bits)
        while j >= m:
            j = getrandbits(bits)
        name = pool[j]
        pool[j] = pool[-1]
        pool.pop()
        return Person(name, male)

    def marry(p: Person) -> Person:
        q = person(not p.male)
        p.spouse, q.spouse = q, p
        return q

    root = person(rng.random() < 0.5)
    people = [root, marry(root)]
    for _ in range(rng.randint(2, max(2, config.max_children))):
        child = person(rng.random() < 0.5)
        child.parents = (root, root.spouse)  # type: ignore[assignment]
        root.children.append(child)
        root.spouse.children.append(child)  # type: ignore[union-attr]
        people.append(child)
        if rng.random() < config.married_share:
            people.append(marry(child))
            for _ in range(rng.randint(1, config.max_grandchildren)):
                grandchild = person(rng.random() < 0.5)
                grandchild.parents = (child, child.spouse)  # type: ignore[assignment]
                child.children.append(grandchild)
                child.spouse.children.append(grandchild)  # type: ignore[union-attr]
                people.append(grandchild)
    return people


def _describe(people: list[Person], rng: random.Random) -> str:
    lines = []
    for p in people:
        if p.spouse is not None and p.male and p.spouse in people:
            lines.append(f"{p.name} is married to {p.spouse.name}.")
        if p.children and not p.male:
            kids = ", ".join(f"a {'son' if c.male else 'daughter'}, {c.name}" for c in p.children)
            lines.append(f"{p.name} and {p.spouse.name if p.spouse else ''} have {kids}.")
    rng.shuffle(lines)
    return " ".join(lines)


def pairs_by_kind(people: list[Person]) -> dict[str, list[tuple[Person, Person]]]:
    """Every (a, b) with a named relationship, built from the tree's structure.

    The same answers as :func:`relation` over all pairs (the test checks this), without
    trying every pair: generation stays fast as families grow. Each kind's pairs are in
    the order of one walk over the people (a relation and its inverse appended together);
    kinds without a pair are left out. ``generate`` draws from this table without building
    it (:func:`kind_counts`, then :func:`pairs_of` for the drawn kind); the tests compare.
    """
    spouse: list[tuple[Person, Person]] = []
    parent_of: list[tuple[Person, Person]] = []
    child_of: list[tuple[Person, Person]] = []
    grandparent: list[tuple[Person, Person]] = []
    grandchild: list[tuple[Person, Person]] = []
    pibling: list[tuple[Person, Person]] = []
    nibling: list[tuple[Person, Person]] = []
    sibling: list[tuple[Person, Person]] = []
    sibling_in_law: list[tuple[Person, Person]] = []
    cousin: list[tuple[Person, Person]] = []
    parent_in_law: list[tuple[Person, Person]] = []
    child_in_law: list[tuple[Person, Person]] = []
    for p in people:
        partner = p.spouse
        if partner is not None:
            spouse.append((p, partner))
        for parent in p.parents:
            parent_of.append((parent, p))
            child_of.append((p, parent))
            for grand in parent.parents:
                grandparent.append((grand, p))
                grandchild.append((p, grand))
            for aunt in _siblings(parent):
                pibling.append((aunt, p))
                nibling.append((p, aunt))
                if aunt.spouse is not None:
                    pibling.append((aunt.spouse, p))
                    nibling.append((p, aunt.spouse))
        if p.parents:
            for other in _siblings(p):
                sibling.append((other, p))
                if other.spouse is not None:
                    sibling_in_law.append((other.spouse, p))
                for cousin_of in other.children:
                    for own in p.children:
                        cousin.append((cousin_of, own))
        if partner is not None:
            for parent in partner.parents:
                parent_in_law.append((parent, p))
                child_in_law.append((p, parent))
            for other in _siblings(partner):
                sibling_in_law.append((other, p))
    found = {
        "spouse": spouse,
        "parent": parent_of,
        "child": child_of,
        "grandparent": grandparent,
        "grandchild": grandchild,
        "pibling": pibling,
        "nibling": nibling,
        "sibling": sibling,
        "sibling_in_law": sibling_in_law,
        "cousin": cousin,
        "parent_in_law": parent_in_law,
        "child_in_law": child_in_law,
    }
    return {kind: pairs for kind, pairs in found.items() if pairs}


def kind_counts(people: list[Person]) -> dict[str, int]:
    """How many pairs :func:`pairs_by_kind` lists of each kind (kinds without one left out),
    counted in one pass without building a pair: generate draws the kind from these and
    then builds only that kind's pairs (:func:`pairs_of`), the same draws over the same
    lists as drawing from the whole table (the test checks the counts against it)."""
    spouse = parent = grandparent = pibling = sibling = sibling_in_law = cousin = parent_in_law = 0
    for p in people:
        partner = p.spouse
        if partner is not None:
            spouse += 1
            parent_in_law += len(partner.parents)
            sibling_in_law += len(_siblings(partner))
        if p.parents:
            parent += len(p.parents)
            for par in p.parents:
                grandparent += len(par.parents)
                for aunt in _siblings(par):
                    pibling += 1 if aunt.spouse is None else 2
            own = len(p.children)
            for other in _siblings(p):
                sibling += 1
                if other.spouse is not None:
                    sibling_in_law += 1
                cousin += len(other.children) * own
    counts = {
        "spouse": spouse,
        "parent": parent,
        "child": parent,
        "grandparent": grandparent,
        "grandchild": grandparent,
        "pibling": pibling,
        "nibling": pibling,
        "sibling": sibling,
        "sibling_in_law": sibling_in_law,
        "cousin": cousin,
        "parent_in_law": parent_in_law,
        "child_in_law": parent_in_law,
    }
    return {kind: count for kind, count in counts.items() if count}


def pairs_of(people: list[Person], kind: str) -> list[tuple[Person, Person]]:
    """``pairs_by_kind(people)[kind]`` (or ``[]``), the same pairs in the same order, from a
    walk that builds only that kind's pairs."""
    out: list[tuple[Person, Person]] = []
    add = out.append
    if kind == "spouse":
        for p in people:
            if p.spouse is not None:
                add((p, p.spouse))
    elif kind in ("parent", "child"):
        for p in people:
            for par in p.parents:
                add((par, p) if kind == "parent" else (p, par))
    elif kind in ("grandparent", "grandchild"):
        for p in people:
            for par in p.parents:
                for grand in par.parents:
                    add((grand, p) if kind == "grandparent" else (p, grand))
    elif kind in ("pibling", "nibling"):
        for p in people:
            for par in p.parents:
                for aunt in _siblings(par):
                    add((aunt, p) if kind == "pibling" else (p, aunt))
                    if aunt.spouse is not None:
                        add((aunt.spouse, p) if kind == "pibling" else (p, aunt.spouse))
    elif kind == "sibling":
        for p in people:
            for other in _siblings(p):
                add((other, p))
    elif kind == "sibling_in_law":
        for p in people:
            for other in _siblings(p):
                if other.spouse is not None:
                    add((other.spouse, p))
            if p.spouse is not None:
                for other in _siblings(p.spouse):
                    add((other, p))
    elif kind == "cousin":
        for p in people:
            for other in _siblings(p):
                for cousin_of in other.children:
                    for own in p.children:
                        add((cousin_of, own))
    elif kind in ("parent_in_law", "child_in_law"):
        for p in people:
            if p.spouse is not None:
                for par in p.spouse.parents:
                    add((par, p) if kind == "parent_in_law" else (p, par))
    return out


_BASIC = ("spouse", "parent", "child", "sibling")
_WITH_IN_LAWS = (
    *_BASIC,
    "grandparent",
    "grandchild",
    "pibling",
    "nibling",
    "sibling_in_law",
    "parent_in_law",
    "child_in_law",
)
_KINDS_BY_MARRIED = (tuple(sorted(_BASIC)), tuple(sorted(_WITH_IN_LAWS)), tuple(sorted((*_WITH_IN_LAWS, "cousin"))))
"""``sorted(kind_counts(people))`` by how many of the first couple's children are married
(0, 1, 2 or more; :func:`kinds_present`)."""


def kinds_present(people: list[Person]) -> tuple[str, ...]:
    """The kinds :func:`kind_counts` finds, sorted, read off the family's shape.

    ``_family`` gives the first couple (spouses) at least two children (parents, children,
    siblings); each married child brings a spouse and at least one grandchild, so one
    married child adds grandparents, piblings (the grandchild's parent has a sibling),
    siblings-in-law and parents-in-law, and a second adds cousins. The draw of a kind
    reads only which kinds have a pair, so the counts need not be taken (the tests compare
    with ``kind_counts`` at every level).
    """
    married = 0
    for child in people[0].children:
        if child.spouse is not None:
            married += 1
    return _KINDS_BY_MARRIED[min(married, 2)]


def generate(config: Config, rng: random.Random) -> Problem:
    people = _family(config, rng)
    kind = rng.choice(kinds_present(people))  # rng.choice(sorted(kind_counts(people))): the same list
    # rng.choice(pairs_by_kind(people)[kind]) with only that kind's pairs built: the same draw.
    a, b = rng.choice(pairs_of(people, kind))
    word = _WORDS[kind][0 if a.male else 1]
    question = (
        f"{_describe(people, rng)}\n\nWhat is {a.name} to {b.name}? Answer with one relationship word, for example "
        "mother, grandson, aunt, cousin, brother-in-law."
    )
    return Problem(question, word, {"relation": kind})


def _key(text: str) -> str:
    return normalize_text(text).replace("-", "").replace(" ", "")


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer is the relationship word (case, hyphens and spaces forgiven)."""
    try:
        text = extract_answer(answer_text)
        if len(text) > 64:
            return 0.0
        return 1.0 if _key(text) == _key(str(item["answer"])) else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    description="What one member of a described three-generation family is to another (one word).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    score=score,
    counterpart="reasoning_gym:family_relationships",
)
