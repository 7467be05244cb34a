"""Decide a CNF formula and, when satisfiable, give a satisfying assignment.

Tests systematic search over truth assignments. About 40% of the items are unsatisfiable
(formulas are drawn near the satisfiability threshold and then filtered to the wanted
outcome), so guessing "satisfiable" does not pay, and a claimed assignment is verified
clause by clause. An UNSAT claim must name a minimal unsatisfiable set of clauses (checked
exactly), so the bare word "UNSAT" is not a constant that earns 40 %.
Harder levels add variables, wider clauses and more clauses.
Satisfiability is decided exactly by evaluating all 2^n assignments at once as bitsets.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "propositional_sat"

_MAX_TRIES = 400

Clause = list[int]
"""Literals as signed 1-based variable numbers: ``-3`` means ``not x3``."""


@dataclass(frozen=True)
class Config(Knobs):
    num_vars: int = 3
    num_clauses: int = 5
    clause_width: int = 2
    sat_rate: float = 0.6
    """Share of items drawn to be satisfiable (above 0.5 so always saying UNSAT is weak)."""

    RANGES: ClassVar = {
        "num_vars": (2, 16),
        "num_clauses": (1, 120),
        "clause_width": (1, 5),
        "sat_rate": (0.0, 1.0),
    }

    def check(self) -> None:
        if self.clause_width > self.num_vars:
            raise ValueError("clause_width cannot exceed num_vars")
        distinct = math.comb(self.num_vars, self.clause_width) * 2**self.clause_width
        if self.num_clauses > distinct:
            raise ValueError(f"only {distinct} distinct clauses exist; lower num_clauses")


LEVELS = (
    {"num_vars": 4, "num_clauses": 9, "clause_width": 2},
    {"num_vars": 4, "num_clauses": 10, "clause_width": 2},
    {"num_vars": 5, "num_clauses": 23, "clause_width": 3},
    {"num_vars": 6, "num_clauses": 30, "clause_width": 3},
    {"num_vars": 8, "num_clauses": 40, "clause_width": 3},
    {"num_vars": 12, "num_clauses": 58, "clause_width": 3},
)


def _variable_masks(n: int) -> list[int]:
    """Bit ``i`` of mask ``j`` is set iff assignment number ``i`` makes variable ``j+1`` true."""
    size = 1 << n
    masks = []
    for j in range(n):
        half = 1 << j
        mask = ((1 << half) - 1) << half
        length = half * 2
        while length < size:
            mask |= mask << length
            length *= 2
        masks.append(mask)
    return masks


@cache
def _literal_masks(n: int) -> dict[int, int]:
    """Literal (``j`` or ``-j``) -> bitset of the assignments making it true, built once per
    ``n``: ``models`` runs several times per item, up to a hundred for an UNSAT core."""
    masks = _variable_masks(n)
    full = (1 << (1 << n)) - 1
    out = {}
    for j, mask in enumerate(masks, 1):
        out[j] = mask
        out[-j] = full ^ mask
    return out


def models(n: int, clauses: list[Clause]) -> int:
    """Bitset of all satisfying assignments (bit ``i``: variable ``j+1`` = bit ``j`` of ``i``)."""
    literal = _literal_masks(n)
    result = (1 << (1 << n)) - 1
    for clause in clauses:
        sat = 0
        for lit in clause:
            sat |= literal[lit]
        result &= sat
        if not result:
            return 0
    return result


def satisfies(assignment: Mapping[int, bool], clauses: list[Clause]) -> bool:
    return all(any(assignment[abs(lit)] == (lit > 0) for lit in clause) for clause in clauses)


def _render_clause(clause: Clause) -> str:
    return "(" + " or ".join(f"x{lit}" if lit > 0 else f"not x{-lit}" for lit in clause) + ")"


def minimal_core(n: int, clauses: list[Clause]) -> list[int]:
    """A minimal unsatisfiable subset (1-based clause numbers) by deletion: drop each clause
    in turn and keep it dropped while the rest stays unsatisfiable."""
    kept = list(range(len(clauses)))
    for index in range(len(clauses)):
        trial = [k for k in kept if k != index]
        if not models(n, [clauses[k] for k in trial]):
            kept = trial
    return [k + 1 for k in kept]


def is_minimal_core(n: int, clauses: list[Clause], numbers: list[int]) -> bool:
    """The numbered clauses are unsatisfiable together and satisfiable without any one of them."""
    chosen = [clauses[k - 1] for k in numbers]
    if models(n, chosen):
        return False
    return all(models(n, chosen[:i] + chosen[i + 1 :]) for i in range(len(chosen)))


@cache
def _literal_texts(n: int) -> dict[int, str]:
    """Literal -> its text in a clause ("x3", "not x3"), built once per ``n``."""
    out = {}
    for j in range(1, n + 1):
        out[j] = f"x{j}"
        out[-j] = f"not x{j}"
    return out


_TABLE_LIMIT = 4096


@cache
def _draw_table(n: int, width: int) -> tuple[tuple[int, ...], ...] | None:
    """``sorted(rng.sample(range(1, n + 1), width))`` for every sequence of the sample's
    draws (``j`` below ``n``, then below ``n - 1``, ...), indexed by the draws read as one
    mixed-radix number; None when there are more than ``_TABLE_LIMIT`` sequences."""
    radices = range(n, n - width, -1)
    if math.prod(radices) > _TABLE_LIMIT:
        return None
    table = []
    for draws in itertools.product(*(range(m) for m in radices)):
        pool = list(range(1, n + 1))
        chosen = []
        for m, j in zip(radices, draws, strict=True):
            chosen.append(pool[j])
            pool[j] = pool[m - 1]
        table.append(tuple(sorted(chosen)))
    return tuple(table)


def _core(full: int, masks: list[int]) -> list[int]:
    """:func:`minimal_core` on the clauses' model bitsets (``models`` of each clause alone):
    the same deletions in the same order, each test one AND over the kept bitsets."""
    kept = list(range(len(masks)))
    for index in range(len(masks)):
        trial = [k for k in kept if k != index]
        result = full
        for k in trial:
            result &= masks[k]
            if not result:
                kept = trial
                break
    return [k + 1 for k in kept]


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.num_vars
    want_sat = rng.random() < config.sat_rate
    # ``sorted(rng.sample(range(1, n + 1), width))`` below has its draws made inline (the
    # sample's pool branch: n <= 16), one frame per clause instead of three, and the sorted
    # variables read from a table of every draw sequence when it is small. Each kept
    # clause's model bitset is ANDed in as it is drawn: ``models(n, clauses)`` without a
    # second pass, and the bitsets serve the UNSAT core.
    variables = range(1, n + 1)
    steps = [(m, m.bit_length()) for m in range(n, n - config.clause_width, -1)]
    getrandbits = rng.getrandbits
    uniform = rng.random
    literal = _literal_masks(n)
    full = (1 << (1 << n)) - 1
    num_clauses = config.num_clauses
    table = _draw_table(n, config.clause_width)
    for _ in range(_MAX_TRIES):
        clauses: list[Clause] = []
        masks: list[int] = []
        seen: set[tuple[int, ...]] = set()
        found = full
        while len(clauses) < num_clauses:  # distinct clauses; check() ensures enough
            if table is not None:
                index = 0
                for m, bits in steps:
                    j = getrandbits(bits)
                    while j >= m:
                        j = getrandbits(bits)
                    index = index * m + j
                chosen: Sequence[int] = table[index]
            else:
                pool = list(variables)
                chosen = []
                for m, bits in steps:
                    j = getrandbits(bits)
                    while j >= m:
                        j = getrandbits(bits)
                    chosen.append(pool[j])
                    pool[j] = pool[m - 1]
                chosen.sort()
            clause = [v if uniform() < 0.5 else -v for v in chosen]
            key = tuple(clause)
            if key not in seen:
                seen.add(key)
                clauses.append(clause)
                sat = 0
                for lit in clause:
                    sat |= literal[lit]
                masks.append(sat)
                found &= sat
        if (found != 0) == want_sat:
            break
    if found:
        index = (found & -found).bit_length() - 1
        answer = ", ".join([f"x{j + 1}={'T' if index >> j & 1 else 'F'}" for j in range(n)])
    else:
        answer = "UNSAT: " + ", ".join(map(str, _core(full, masks)))
    text = _literal_texts(n)
    formula = "\n".join([f"C{i}: (" + " or ".join([text[lit] for lit in c]) + ")" for i, c in enumerate(clauses, 1)])
    example = ", ".join(f"x{j + 1}={'T' if j % 2 == 0 else 'F'}" for j in range(min(n, 3)))
    example += ", and so on" if n > 3 else ""
    question = (
        f"Consider the conjunction (and) of these clauses over the variables x1 to x{n}:\n{formula}\n"
        "Is there an assignment of true/false values that makes every clause true? If so, answer "
        "with a satisfying assignment that lists every variable exactly once as name=T or name=F, "
        f"separated by commas, e.g. {example}. If not, answer UNSAT followed by the numbers of a "
        "smallest-by-inclusion set of clauses that already cannot all be true together (dropping "
        "any one of them would make the rest satisfiable), e.g. UNSAT: 2, 5, 7."
    )
    return Problem(
        question=question,
        answer=answer,
        extra={"num_vars": n, "clauses": clauses, "satisfiable": bool(found), "num_models": bin(found).count("1")},
    )


def _instance(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """The stored instance: dataset items keep ``Problem.extra`` under ``metadata``."""
    for field in ("metadata", "extra"):
        inner = item.get(field)
        if isinstance(inner, Mapping) and "clauses" in inner:
            return inner
    return item


_PAIR = re.compile(r"\bx(\d+)\s*(?:=|:|is)\s*(true|false|t|f|1|0)\b", re.IGNORECASE)
_UNSAT = re.compile(r"\bunsat(?:isfiable)?\b", re.IGNORECASE)
_TRUE = {"true", "t", "1"}
_CLAUSE_NUMBER = re.compile(r"c?(\d{1,6})")


def _core_numbers(claim: str) -> list[int] | None:
    """Clause numbers of an "UNSAT: 2, 5, 7" claim (already normalised), else None."""
    for word in ("unsatisfiable", "unsat"):
        if claim.startswith(word):
            rest = claim[len(word) :].lstrip(" :=-").replace(",", " ").split()
            break
    else:
        return None
    matches = [_CLAUSE_NUMBER.fullmatch(token) for token in rest]
    if not matches or not all(matches):
        return None
    return [int(match.group(1)) for match in matches if match]


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """UNSAT must be claimed exactly when no model exists; an assignment is verified."""
    try:
        from generators.answers import extract_answer, normalize_text, whole_pairs

        data = _instance(item)
        n = int(data["num_vars"])
        clauses = [[int(lit) for lit in c] for c in data["clauses"]]
        text = extract_answer(answer_text)
        pairs = whole_pairs(_PAIR, text)
        claims_unsat = _UNSAT.search(text) is not None
        if not bool(data["satisfiable"]):
            numbers = _core_numbers(normalize_text(text)) if len(text) <= 4000 else None
            if not numbers or len(set(numbers)) != len(numbers) or not all(1 <= k <= len(clauses) for k in numbers):
                return 0.0
            return 1.0 if is_minimal_core(n, clauses, numbers) else 0.0
        if claims_unsat or pairs is None:  # text beside the pairs ("... or maybe x3=T") changes it
            return 0.0
        assignment: dict[int, bool] = {}
        for var, value in pairs:
            index = int(var)
            if index in assignment or not 1 <= index <= n:
                return 0.0
            assignment[index] = value.lower() in _TRUE
        if len(assignment) != n:
            return 0.0
        return 1.0 if satisfies(assignment, clauses) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """UNSAT for a satisfiable formula, else a falsifying assignment (and the swap)."""
    data = _instance(item)
    n = int(data["num_vars"])
    clauses = [[int(lit) for lit in c] for c in data["clauses"]]
    falsifying = ((1 << (1 << n)) - 1) & ~models(n, clauses)
    index = (falsifying & -falsifying).bit_length() - 1
    assignment = ", ".join(f"x{j + 1}={'T' if index >> j & 1 else 'F'}" for j in range(n))
    if bool(data["satisfiable"]):
        return ["UNSAT", assignment]
    core = minimal_core(n, clauses)
    everything = "UNSAT: " + ", ".join(str(k) for k in range(1, len(clauses) + 1))
    return [assignment, "UNSAT", everything] if len(core) < len(clauses) else [assignment, "UNSAT"]


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:propositional_logic",
    description="Decide CNF satisfiability and give a satisfying assignment when one exists.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    score=score,
    notes="Any satisfying assignment scores 1; the gold one is the model with the smallest "
    "index (x1 as the lowest bit). UNSAT items need UNSAT and a minimal unsatisfiable set of "
    "clauses (any such set scores 1; the gold one is found by deleting clauses in order).",
)
