"""Zebra (Einstein) puzzles: houses in a row, attributes linked by clues.

Tests multi-constraint deduction: each clue alone says little; only their combination
pins down one arrangement. Every puzzle is verified to have exactly one solution by an
exhaustive backtracking search over per-category permutations, and with ``minimize``
redundant clues are removed (still checking uniqueness), so every remaining clue is
needed. Harder levels add houses and attribute categories and favour indirect clues
(neighbour, left-of, negations) over direct placements.

The answer is one whole category listed in house order ("Chen, Alice, Bruno"), scored
exactly as an ordered list. A single asked fact (one house number or one value) left a
constant answer such as "3" right on a fifth of the small puzzles; a full row drawn from
a random subset of a seven-word pool has hundreds of possible values even at 3 houses.
When there is one, the asked category is one whose row the clues do not spell out
placement by placement.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "zebra_puzzle"

_CATEGORIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("name", ("Alice", "Bruno", "Chen", "Dana", "Emil", "Farah", "Goran")),
    ("colour", ("red", "green", "blue", "yellow", "white", "purple", "orange")),
    ("pet", ("cat", "dog", "fish", "bird", "horse", "rabbit", "turtle")),
    ("drink", ("tea", "coffee", "milk", "juice", "water", "cocoa", "lemonade")),
    ("sport", ("tennis", "chess", "golf", "soccer", "rowing", "judo", "cricket")),
)
_DIRECT = ("pos", "same")
_INDIRECT = ("notpos", "notsame", "left", "next", "before")
_MAX_DRAWS = 200

Clue = tuple
"""("pos"|"notpos", c, v, h) or (kind, c1, v1, c2, v2) for the binary kinds."""


@dataclass(frozen=True)
class Config(Knobs):
    num_houses: int = 3
    num_categories: int = 2
    """Attribute categories; the first is always the residents' names."""
    indirect_rate: float = 0.3
    """Chance that a drawn clue is relational or negative rather than a direct placement."""
    minimize: bool = False
    """Drop every clue that is not needed for uniqueness."""

    RANGES: ClassVar = {
        "num_houses": (2, 5),
        "num_categories": (2, len(_CATEGORIES)),
        "indirect_rate": (0.0, 1.0),
    }


LEVELS = (
    {"num_houses": 3, "num_categories": 2, "indirect_rate": 0.3},
    {"num_houses": 3, "num_categories": 3, "indirect_rate": 0.4},
    {"num_houses": 4, "num_categories": 3, "indirect_rate": 0.5, "minimize": True},
    {"num_houses": 4, "num_categories": 4, "indirect_rate": 0.6, "minimize": True},
    {"num_houses": 5, "num_categories": 3, "indirect_rate": 0.7, "minimize": True},
    {"num_houses": 5, "num_categories": 4, "indirect_rate": 0.7, "minimize": True},
)


def _binary_ok(kind: str, h1: int, h2: int) -> bool:
    if kind == "same":
        return h1 == h2
    if kind == "notsame":
        return h1 != h2
    if kind == "left":
        return h1 + 1 == h2
    if kind == "next":
        return abs(h1 - h2) == 1
    if kind == "before":
        return h1 < h2
    raise ValueError(f"unknown clue kind {kind!r}")


def _clue_holds(clue: Clue, houses: list[tuple[int, ...]]) -> bool:
    """``houses[c][v]`` is the house (0-based) of value ``v`` of category ``c``."""
    if clue[0] == "pos":
        return houses[clue[1]][clue[2]] == clue[3]
    if clue[0] == "notpos":
        return houses[clue[1]][clue[2]] != clue[3]
    _, c1, v1, c2, v2 = clue
    return _binary_ok(clue[0], houses[c1][v1], houses[c2][v2])


def _revise(kind: str, dx: int, dy: int, full: int) -> tuple[int, int]:
    """Prune two house-bitmask domains so every remaining house has a partner."""
    if kind == "same":
        both = dx & dy
        return both, both
    if kind == "notsame":
        if dy.bit_count() == 1:
            dx &= ~dy
        if dx.bit_count() == 1:
            dy &= ~dx
        return dx, dy
    if kind == "left":
        dx &= dy >> 1
        return dx, dy & (dx << 1)
    if kind == "next":
        dx &= ((dy >> 1) | (dy << 1)) & full
        return dx, dy & ((dx >> 1) | (dx << 1))
    if kind == "before":
        if not dy:
            return 0, 0
        dx &= (1 << (dy.bit_length() - 1)) - 1
        if not dx:
            return 0, dy
        lowest = (dx & -dx).bit_length() - 1
        return dx, dy & ~((1 << (lowest + 1)) - 1)
    raise ValueError(f"unknown clue kind {kind!r}")


def solve(clues: list[Clue], n: int, m: int, limit: int = 2) -> list[list[tuple[int, ...]]]:
    """Up to ``limit`` solutions, each as ``houses[c][v]``.

    Variables are (category, value) pairs with a bitmask of possible houses; search
    alternates propagation (binary clues, all-different with naked and hidden singles)
    and branching on the smallest domain, so it stays fast for 5 houses x 5 categories.
    """
    full = (1 << n) - 1
    domains = [full] * (n * m)
    binary: list[tuple[str, int, int]] = []
    for clue in clues:
        if clue[0] == "pos":
            domains[clue[1] * n + clue[2]] &= 1 << clue[3]
        elif clue[0] == "notpos":
            domains[clue[1] * n + clue[2]] &= ~(1 << clue[3])
        else:
            binary.append((clue[0], clue[1] * n + clue[2], clue[3] * n + clue[4]))
    found: list[list[tuple[int, ...]]] = []

    bases = range(0, n * m, n)

    def propagate(dom: list[int]) -> bool:
        changed = True
        while changed:
            changed = False
            for kind, x, y in binary:
                nx, ny = _revise(kind, dom[x], dom[y], full)
                if nx != dom[x] or ny != dom[y]:
                    if not nx or not ny:
                        return False
                    dom[x], dom[y] = nx, ny
                    changed = True
            for base in bases:
                segment = dom[base : base + n]
                taken = once = twice = 0
                for d in segment:
                    if not d:
                        return False
                    if not d & (d - 1):  # a placed value
                        if taken & d:
                            return False
                        taken |= d
                    twice |= once & d
                    once |= d
                if once != full:  # some house can take no value of this category
                    return False
                unique = once & ~twice  # houses that only one value can still take
                for i, d in enumerate(segment):
                    if d & (d - 1):
                        new = d & ~taken
                        hidden = new & unique
                        if hidden:
                            if hidden & (hidden - 1):
                                return False
                            new = hidden
                        if new != d:
                            if not new:
                                return False
                            dom[base + i] = new
                            changed = True
        return True

    def search(dom: list[int]) -> None:
        if not propagate(dom):
            return
        x, size = -1, n + 1
        for i, d in enumerate(dom):
            if d & (d - 1):
                count = d.bit_count()
                if count < size:
                    x, size = i, count
        if x < 0:
            found.append([tuple(dom[c * n + v].bit_length() - 1 for v in range(n)) for c in range(m)])
            return
        d = dom[x]
        while d and len(found) < limit:
            bit = d & -d
            d ^= bit
            trial = list(dom)
            trial[x] = bit
            search(trial)

    search(domains)
    return found


def count_solutions(clues: list[Clue], n: int, m: int, limit: int = 2) -> int:
    return len(solve(clues, n, m, limit))


def _random_clue(solution: list[tuple[int, ...]], n: int, m: int, indirect_rate: float, rng: random.Random) -> Clue:
    """A clue that is true of ``solution``."""
    where = [[0] * n for _ in range(m)]  # where[c][h] = value of category c in house h
    for c in range(m):
        for v, h in enumerate(solution[c]):
            where[c][h] = v
    kind = rng.choice(_INDIRECT if rng.random() < indirect_rate else _DIRECT)
    c1, c2 = rng.choice(range(m)), rng.choice(range(m))
    if kind == "pos":
        h = rng.randrange(n)
        return ("pos", c1, where[c1][h], h)
    if kind == "notpos":
        v = rng.randrange(n)
        return ("notpos", c1, v, rng.choice([h for h in range(n) if h != solution[c1][v]]))
    if kind == "same":
        while c2 == c1:
            c2 = rng.randrange(m)
        h = rng.randrange(n)
        return ("same", c1, where[c1][h], c2, where[c2][h])
    if kind == "notsame":
        while c2 == c1:
            c2 = rng.randrange(m)
        h1, h2 = rng.sample(range(n), 2)
        return ("notsame", c1, where[c1][h1], c2, where[c2][h2])
    if kind in ("left", "next"):
        h = rng.randrange(n - 1)
        h1, h2 = (h, h + 1) if kind == "left" or rng.random() < 0.5 else (h + 1, h)
        return (kind, c1, where[c1][h1], c2, where[c2][h2])
    h1, h2 = sorted(rng.sample(range(n), 2))  # before
    return ("before", c1, where[c1][h1], c2, where[c2][h2])


def _ref(c: int, v: int, cats: list[str], values: list[list[str]]) -> str:
    """How a resident is referred to through one attribute."""
    word = values[c][v]
    category = cats[c]
    if category == "name":
        return word
    if category == "colour":
        return f"the person in the {word} house"
    if category == "pet":
        return f"the {word} owner"
    if category == "drink":
        return f"the {word} drinker"
    return f"the person who plays {word}"


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:]


def _phrase(clue: Clue, cats: list[str], values: list[list[str]]) -> str:
    if clue[0] in ("pos", "notpos"):
        _, c, v, h = clue
        verb = "lives" if clue[0] == "pos" else "does not live"
        return _sentence(f"{_ref(c, v, cats, values)} {verb} in house {h + 1}.")
    kind, c1, v1, c2, v2 = clue
    a, b = _ref(c1, v1, cats, values), _ref(c2, v2, cats, values)
    text = {
        "same": f"{a} is {b}.",
        "notsame": f"{a} is not {b}.",
        "left": f"{a} lives directly to the left of {b}.",
        "next": f"{a} lives next to {b}.",
        "before": f"{a} lives somewhere to the left of {b}.",
    }[kind]
    return _sentence(text)


def _ask(c: int, cats: list[str], n: int) -> str:
    """The question: one category's value for every house, in house order."""
    plural = {"name": "names of the residents", "colour": "colours", "pet": "pets", "drink": "drinks"}
    what = plural.get(cats[c], "sports played")
    houses = ", ".join(f"house {h + 1}" for h in range(n))
    return (
        f"List the {what} of {houses}, in that order. Answer with {n} {cats[c]} values separated by "
        "commas, the value of house 1 first."
    )


def _pinned(clues: list[Clue], c: int) -> int:
    """How many values of category ``c`` some clue places directly in a house."""
    return len({clue[2] for clue in clues if clue[0] == "pos" and clue[1] == c})


def generate(config: Config, rng: random.Random) -> Problem:
    n, m = config.num_houses, config.num_categories
    chosen = [_CATEGORIES[0], *rng.sample(_CATEGORIES[1:], m - 1)]
    cats = [name for name, _ in chosen]
    values = [sorted(rng.sample(pool, n)) for _, pool in chosen]
    solution = [tuple(rng.sample(range(n), n)) for _ in range(m)]
    clues: list[Clue] = []
    while True:
        found = solve(clues, n, m)
        if len(found) == 1:
            break
        rival = found[0] if found[0] != solution else found[1]
        # Draw true clues until one rules out the rival solution, so each step makes progress.
        for _ in range(_MAX_DRAWS):
            clue = _random_clue(solution, n, m, config.indirect_rate, rng)
            if not _clue_holds(clue, rival):
                break
        else:
            clue = _random_clue(solution, n, m, 0.0, rng)  # direct clues always get there
        if clue not in clues:
            clues.append(clue)
    if config.minimize:
        for clue in rng.sample(clues, len(clues)):
            trial = [c for c in clues if c != clue]
            if count_solutions(trial, n, m) == 1:
                clues = trial
    rng.shuffle(clues)
    # Ask a category that the clues do not spell out house by house (n - 1 direct
    # placements would give the whole row away), when there is one.
    hidden = [k for k in range(m) if _pinned(clues, k) < n - 1]
    c = rng.choice(hidden or list(range(m)))
    row = [values[c][solution[c].index(h)] for h in range(n)]
    answer = ", ".join(row)
    categories = ", ".join(name for name, _ in chosen)
    question = (
        f"{n} houses stand in a row, numbered 1 to {n} from left to right. Each house has one "
        f"resident, and each resident has a different value of each attribute ({categories}).\n"
        + "\n".join(f"- {name}: {', '.join(vals)}" for (name, _), vals in zip(chosen, values))
        + "\nClues:\n"
        + "\n".join(f"{i + 1}. {_phrase(cl, cats, values)}" for i, cl in enumerate(clues))
        + "\n"
        + _ask(c, cats, n)
    )
    grid = {name: [values[k][solution[k].index(h)] for h in range(n)] for k, (name, _) in enumerate(chosen)}
    return Problem(
        question=question,
        answer=answer,
        extra={
            "solution": grid,
            "num_clues": len(clues),
            "clues": [list(cl) for cl in clues],
            "asked": {"category": cats[c]},
        },
    )


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:zebra_puzzles",
    description="Zebra/Einstein logic-grid puzzles with a unique solution; list one attribute house by house.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
)
