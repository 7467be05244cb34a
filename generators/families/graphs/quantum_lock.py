"""Shortest sequence of button presses that brings a number to a target (a state search).

The number starts at 0 with a red light. Each button adds, subtracts or multiplies, some
only while the light is red or green; every press toggles the light, and a press whose
colour does not match leaves the number as it is (the light still toggles). The solver
searches the (number, light) state graph for a shortest route. Harder levels have more
buttons, more colour conditions and targets further away.

Any shortest sequence is right, so the scorer replays the presses: it must reach the
target in no more presses than the breadth-first gold. (The generator's search keeps the
number within +-64; a sequence that leaves that range and is still no longer than the
gold is accepted too, as it is just as short.)

A constant press sequence is right wherever it happens to reach the target within the
gold's length, so the easiest level must leave enough targets: level 0 asks for targets
two to four presses away (three buttons). Enumerating every button draw and target there,
the best constant (a button pressed twice, e.g. ``A -> A``) is right with probability
0.0497; with targets two or three presses away it was 0.0882.
``tests/generators/test_exact_priors.py`` recomputes it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "quantum_lock"

LIMIT = 64
TARGET_LIMIT = 40
_ATTEMPTS = 40
_ALLOWED = re.compile(r"[A-Ha-h\s,→>\-]*")
Button = tuple[str, int, str]
"""(operation, amount, condition): operation in add/subtract/multiply, condition any/red/green."""


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {
        "buttons": (2, 8),
        "min_steps": (2, 12),
        "max_steps": (2, 12),
        "conditional_share": (0.0, 1.0),
        "max_amount": (1, 20),
    }

    buttons: int = 3
    min_steps: int = 2
    max_steps: int = 3
    conditional_share: float = 0.0
    """Chance that a button works only under one light colour."""
    max_amount: int = 5

    def check(self) -> None:
        if self.min_steps > self.max_steps:
            raise ValueError("Config.min_steps must be <= max_steps")


LEVELS = (
    {"buttons": 3, "min_steps": 2, "max_steps": 4, "conditional_share": 0.2, "max_amount": 5},
    {"buttons": 3, "min_steps": 3, "max_steps": 4, "conditional_share": 0.3, "max_amount": 6},
    {"buttons": 3, "min_steps": 3, "max_steps": 5, "conditional_share": 0.4, "max_amount": 7},
    {"buttons": 4, "min_steps": 4, "max_steps": 6, "conditional_share": 0.5, "max_amount": 8},
    {"buttons": 4, "min_steps": 5, "max_steps": 7, "conditional_share": 0.5, "max_amount": 9},
    {"buttons": 5, "min_steps": 6, "max_steps": 8, "conditional_share": 0.6, "max_amount": 9},
)


def press(value: int, green: bool, button: Button) -> tuple[int, bool]:
    op, amount, condition = button
    if condition == "any" or (condition == "green") == green:
        value = value + amount if op == "add" else value - amount if op == "subtract" else value * amount
    return value, not green


def _search(buttons: list[Button], depth: int) -> tuple[dict[int, tuple[int, bool]], dict[int, Any]]:
    """Breadth-first search from (0, red) over (number, light) states within +-LIMIT.

    Returns, for each number, the first state reaching it as (steps, light), and the parent
    links ``key -> (previous key, button index)`` to rebuild a route, where a state's key is
    ``2 * number + light``. Each button is an affine step ``value * m + a`` per light, so the
    inner loop does no string comparisons.
    """
    steps_by_light: list[list[tuple[int, int, int]]] = [[], []]
    for green in (0, 1):
        for index, (op, amount, condition) in enumerate(buttons):
            active = condition == "any" or (condition == "green") == bool(green)
            if not active:
                steps_by_light[green].append((index, 1, 0))
            elif op == "multiply":
                steps_by_light[green].append((index, amount, 0))
            else:
                steps_by_light[green].append((index, 1, amount if op == "add" else -amount))
    parents: dict[int, Any] = {0: None}
    first: dict[int, tuple[int, bool]] = {}
    frontier = [(0, 0)]
    for steps in range(1, depth + 1):
        following = []
        for value, green in frontier:
            key = 2 * value + green
            light = 1 - green
            for index, m, a in steps_by_light[green]:
                new = value * m + a
                new_key = 2 * new + light
                if new_key in parents or new > LIMIT or new < -LIMIT:
                    continue
                parents[new_key] = (key, index)
                following.append((new, light))
                if new not in first:
                    first[new] = (steps, bool(light))
        frontier = following
    return first, parents


def _route(parents: Mapping[int, Any], state: tuple[int, bool]) -> list[int]:
    route = []
    link = parents[2 * state[0] + int(state[1])]
    while link is not None:
        key, index = link
        route.append(index)
        link = parents[key]
    return route[::-1]


def _describe(letter: str, button: Button) -> str:
    op, amount, condition = button
    verb = {"add": f"add {amount}", "subtract": f"subtract {amount}", "multiply": f"multiply by {amount}"}[op]
    when = "whatever the light" if condition == "any" else f"only when the light is {condition}"
    return f"{letter}: {verb} ({when})"


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(_ATTEMPTS):
        buttons: list[Button] = []
        for _ in range(config.buttons):
            op = rng.choice(("add", "add", "subtract", "multiply"))
            amount = rng.randint(2, 3) if op == "multiply" else rng.randint(1, config.max_amount)
            condition = rng.choice(("red", "green")) if rng.random() < config.conditional_share else "any"
            buttons.append((op, amount, condition))
        first, parents = _search(buttons, config.max_steps)
        targets = sorted(
            v for v, (steps, _) in first.items() if config.min_steps <= steps and 0 < abs(v) <= TARGET_LIMIT
        )
        if targets:
            break
    else:
        raise ValueError("quantum_lock: no target at the asked distance")
    target = rng.choice(targets)
    steps, green = first[target]
    route = _route(parents, (target, green))
    if len(route) != steps:
        raise ValueError("quantum_lock: route length disagrees with the search")
    letters = "ABCDEFGH"[: config.buttons]
    question = (
        "You see a number, a light and some buttons. The number starts at 0 and the light starts red. "
        "Pressing any button toggles the light (red to green, green to red). Each button changes the number as "
        "described; a button that only works under one colour leaves the number unchanged if pressed under the "
        "other colour (the light still toggles).\n"
        + "\n".join(_describe(letter, button) for letter, button in zip(letters, buttons))
        + f"\n\nWhat is the shortest sequence of presses that makes the number {target}? "
        "Write the button letters in order, separated by arrows, for example A -> C -> B."
    )
    answer = " -> ".join(letters[i] for i in route)
    return Problem(question, answer, {"buttons": [list(b) for b in buttons], "target": target})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 for a press sequence that reaches the target and is no longer than the shortest (gold)."""
    try:
        meta = item.get("metadata") or {}
        buttons = [(str(op), int(amount), str(cond)) for op, amount, cond in meta["buttons"]]
        target = int(meta["target"])
        best = len(re.findall(r"[A-H]", str(item["answer"])))
        text = extract_answer(answer_text)
        if len(text) > 8 * best + 32 or not _ALLOWED.fullmatch(text):
            return 0.0
        letters = re.findall(r"[A-Za-z]", text)
        if not letters or len(letters) > best:
            return 0.0
        value, green = 0, False
        for letter in letters:
            index = ord(letter.upper()) - ord("A")
            if not 0 <= index < len(buttons):
                return 0.0
            value, green = press(value, green, buttons[index])
        return 1.0 if value == target else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold without its last press (stops short) and with an extra press (too long)."""
    letters = re.findall(r"[A-H]", str(item["answer"]))
    return [" -> ".join(letters[:-1]) or "A", " -> ".join([*letters, letters[-1]])]


FAMILY = Family(
    name=NAME,
    description="Shortest button sequence reaching a target with light-dependent operations (replayed).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:quantum_lock",
)
