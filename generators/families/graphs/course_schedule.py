"""Can every course be finished given the prerequisites? Answer with a proof either way.

Courses are numbered 0..n-1 and each pair ``(a, b)`` says course ``a`` needs course ``b``
first. Half the schedules are acyclic; the others are an acyclic schedule plus one pair
that closes a cycle. The answer is the proof, not a True/False label: an order in which
to take all courses when it is possible, or a cycle of courses each needed before the
next when it is not. Harder levels have more courses, more prerequisites and longer
cycles.

The scorer checks the proof: an order must name every course exactly once, each after
all its prerequisites (any valid order); a cycle must be distinct courses where each is
a prerequisite of the next and the last of the first (any such cycle). A bare label
scores 0, so a constant earns nothing.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "course_schedule"

_CYCLE_CHARS = re.compile(r"[\d\s,>→\-–]*")
_ORDER_CHARS = re.compile(r"[\d\s,\[\]()]*")


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"courses": (3, 40), "edge_factor": (0.5, 4.0), "max_cycle": (2, 12)}

    courses: int = 5
    edge_factor: float = 1.0
    """Prerequisite pairs per course."""
    max_cycle: int = 3

    def check(self) -> None:
        if self.max_cycle > self.courses:
            raise ValueError("Config.max_cycle must be <= courses")


LEVELS = (
    {"courses": 5, "edge_factor": 1.0, "max_cycle": 3},
    {"courses": 7, "edge_factor": 1.2, "max_cycle": 4},
    {"courses": 9, "edge_factor": 1.4, "max_cycle": 5},
    {"courses": 12, "edge_factor": 1.6, "max_cycle": 6},
    {"courses": 15, "edge_factor": 1.8, "max_cycle": 7},
    {"courses": 20, "edge_factor": 2.0, "max_cycle": 8},
)


def generate(config: Config, rng: random.Random) -> Problem:
    n = config.courses
    order = rng.sample(range(n), n)  # the hidden order: order[i] may need only courses before it
    pairs: set[tuple[int, int]] = set()
    target = min(round(config.edge_factor * n), n * (n - 1) // 2)
    while len(pairs) < target:
        i, j = sorted(rng.sample(range(n), 2))
        pairs.add((order[j], order[i]))  # the later course needs the earlier one
    possible = rng.random() < 0.5
    if possible:
        answer = ", ".join(map(str, order))
    else:
        length = rng.randint(2, config.max_cycle)
        chain = [order[p] for p in sorted(rng.sample(range(n), length))]
        for before, after in itertools.pairwise(chain):
            pairs.add((after, before))
        pairs.add((chain[0], chain[-1]))  # the first now needs the last: a cycle
        answer = " -> ".join(map(str, chain))
    listed = sorted(pairs)
    rng.shuffle(listed)
    question = (
        f"There are {n} courses numbered 0 to {n - 1}. Each pair (a, b) below means course a requires course b to be "
        f"taken first:\n{', '.join(f'({a}, {b})' for a, b in listed)}\n\n"
        "Can all courses be finished? If yes, answer with an order in which to take all of them, as course numbers "
        "separated by commas (for example 2, 0, 1). If not, answer with a cycle of courses, each required before the "
        "next and the last required before the first, joined by -> (for example 3 -> 1 -> 4)."
    )
    return Problem(question, answer, {"courses": n, "pairs": [list(p) for p in sorted(pairs)], "possible": possible})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for any valid order of a possible schedule, or any prerequisite cycle of an impossible one."""
    try:
        meta = item.get("metadata") or {}
        n = int(meta["courses"])
        pairs = {(int(a), int(b)) for a, b in meta["pairs"]}
        text = extract_answer(answer_text)
        if len(text) > 8 * n + 32:
            return 0.0
        numbers = [int(v) for v in re.findall(r"\d+", text)]
        if ">" in text or "→" in text:
            if not _CYCLE_CHARS.fullmatch(text):
                return 0.0
            if len(numbers) > 1 and numbers[0] == numbers[-1]:
                numbers.pop()
            if len(numbers) < 2 or len(set(numbers)) != len(numbers):
                return 0.0
            steps = zip(numbers, numbers[1:] + numbers[:1])
            return 1.0 if all((after, before) in pairs for before, after in steps) else 0.0
        if not _ORDER_CHARS.fullmatch(text) or sorted(numbers) != list(range(n)):
            return 0.0
        position = {course: i for i, course in enumerate(numbers)}
        return 1.0 if all(position[b] < position[a] for a, b in pairs) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """An order reversed / missing a course; a cycle walked backwards / cut open."""
    gold = str(item["answer"])
    if "->" in gold:
        nodes = gold.split(" -> ")
        return [" -> ".join(reversed(nodes)) if len(nodes) > 2 else "True", " -> ".join(nodes[:-1]) + " -> x"]
    courses = gold.split(", ")
    return [", ".join(reversed(courses)), ", ".join(courses[:-1])]


FAMILY = Family(
    name=NAME,
    description="Finish all courses? Prove it: any valid order, or any prerequisite cycle (both verified).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:course_schedule",
)
