"""Induce which strings a hidden rule accepts from labelled examples, then classify new ones.

Tests concept learning over strings: the rule is one property of a string over a small
alphabet (contains a given pair, starts or ends with a letter, has even length, an odd number
of a letter, is a palindrome, never repeats a letter twice in a row, has all of one letter
before another, is longer than k), possibly negated at harder levels. Harder levels use a
larger alphabet, longer strings, negated rules and more candidates to classify.

The examples are checked to fix the answer: every rule of the level's set that labels all
examples correctly labels every candidate the same way as the hidden rule; otherwise an
example is added or the item is redrawn. The answer is the set of labels of the accepted
candidates; each item has at least one accepted and one rejected candidate, and candidate
labels are drawn evenly so no constant set pays.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "grammar_rule"

LABELS = "ABCDEFGHIJ"
_LETTERS = "abcde"
_MAX_TRIES = 60

Rule = tuple[str, Callable[[str], bool]]


@dataclass(frozen=True)
class Config(Knobs):
    alphabet: int = 2
    max_length: int = 5
    examples: int = 6
    candidates: int = 5
    negations: bool = False

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "alphabet": (2, len(_LETTERS)),
        "max_length": (3, 10),
        "examples": (4, 16),
        "candidates": (4, len(LABELS)),
    }

    def check(self) -> None:
        if not isinstance(self.negations, bool):
            raise ValueError(f"Config.negations must be a bool, got {self.negations!r}")


LEVELS = (
    {"alphabet": 2, "max_length": 5, "examples": 6, "candidates": 5},
    {"alphabet": 3, "max_length": 5, "examples": 6, "candidates": 5},
    {"alphabet": 3, "max_length": 6, "examples": 7, "candidates": 6},
    {"alphabet": 3, "max_length": 7, "examples": 8, "candidates": 6, "negations": True},
    {"alphabet": 4, "max_length": 7, "examples": 9, "candidates": 7, "negations": True},
    {"alphabet": 4, "max_length": 8, "examples": 10, "candidates": 8, "negations": True},
)


def _starts(x: str) -> Callable[[str], bool]:
    return lambda s: s[:1] == x


def _ends(x: str) -> Callable[[str], bool]:
    return lambda s: s[-1:] == x


def _odd_count(x: str) -> Callable[[str], bool]:
    return lambda s: s.count(x) % 2 == 1


def _contains(pair: str) -> Callable[[str], bool]:
    return lambda s: pair in s


def _all_before(x: str, y: str) -> Callable[[str], bool]:
    return lambda s: y not in s or x not in s[s.index(y) :]


def _longer(k: int) -> Callable[[str], bool]:
    return lambda s: len(s) > k


def _negated(f: Callable[[str], bool]) -> Callable[[str], bool]:
    return lambda s: not f(s)


@functools.cache
def rules(alphabet: str, negations: bool) -> tuple[Rule, ...]:
    """Every rule of a level: named predicates over strings of ``alphabet``."""
    out: list[Rule] = []
    for x in alphabet:
        out.append((f"starts with {x}", _starts(x)))
        out.append((f"ends with {x}", _ends(x)))
        out.append((f"odd number of {x}", _odd_count(x)))
        for y in alphabet:
            out.append((f"contains {x}{y}", _contains(x + y)))
            if x != y:
                out.append((f"every {x} before every {y}", _all_before(x, y)))
    out.append(("even length", lambda s: len(s) % 2 == 0))
    out.append(("palindrome", lambda s: s == s[::-1]))
    out.append(("no letter twice in a row", lambda s: all(a != b for a, b in itertools.pairwise(s))))
    out.extend((f"longer than {k}", _longer(k)) for k in (2, 3, 4, 5))
    if negations:
        out.extend((f"not ({name})", _negated(f)) for name, f in list(out))
    return tuple(out)


def _string(config: Config, alphabet: str, rng: random.Random) -> str:
    return "".join(rng.choices(alphabet, k=rng.randint(1, config.max_length)))


def _draw_labelled(
    rule: Rule, wanted: bool, config: Config, alphabet: str, rng: random.Random, taken: set[str]
) -> str | None:
    for _ in range(40):
        text = _string(config, alphabet, rng)
        if text not in taken and rule[1](text) == wanted:
            taken.add(text)
            return text
    return None


def generate(config: Config, rng: random.Random) -> Problem:
    alphabet = _LETTERS[: config.alphabet]
    pool = rules(alphabet, config.negations)
    wanted = [rng.random() < 0.5 for _ in range(config.candidates)]
    if all(wanted) or not any(wanted):
        wanted[rng.randrange(config.candidates)] = not wanted[0]
    for _ in range(_MAX_TRIES):
        rule = rng.choice(pool)
        taken: set[str] = set()
        shown_labels = [i % 2 == 0 for i in range(config.examples)]
        examples = [_draw_labelled(rule, label, config, alphabet, rng, taken) for label in shown_labels]
        candidates = [_draw_labelled(rule, label, config, alphabet, rng, taken) for label in wanted]
        if None in examples or None in candidates:
            continue
        shown = [(text, rule[1](text)) for text in examples if text is not None]
        # Rules that agree with every shown example; a new example only narrows them, so
        # each round filters the previous rivals by the examples added since.
        rivals = [f for _, f in pool if all(f(text) == label for text, label in shown)]
        checked = len(shown)
        for _ in range(config.examples):
            if len(shown) > checked:
                rivals = [f for f in rivals if all(f(text) == label for text, label in shown[checked:])]
                checked = len(shown)
            disagree = [c for c in candidates if c is not None and len({f(c) for f in rivals}) > 1]
            if not disagree:
                break
            extra = _draw_labelled(rule, rng.random() < 0.5, config, alphabet, rng, taken)
            if extra is not None:
                shown.append((extra, rule[1](extra)))
        else:
            continue
        break
    else:
        raise ValueError("grammar_rule: no example set fixes the candidates' labels")
    rng.shuffle(shown)
    listing = "\n".join(f'"{text}": {"accepted" if label else "rejected"}' for text, label in shown)
    cands = [c for c in candidates if c is not None]
    options = "\n".join(f'{LABELS[i]}: "{text}"' for i, text in enumerate(cands))
    question = (
        f"A hidden rule accepts some strings over the letters {', '.join(alphabet)} and rejects the others. "
        "The rule is one simple property of the string (such as which letter it starts or ends with, a pair "
        "of letters it contains, its length, a letter count, or the order of its letters)"
        + (", possibly negated" if config.negations else "")
        + f". Labelled examples:\n{listing}\n\nWhich of these strings does the rule accept?\n{options}\n\n"
        "Answer with the labels of all accepted strings, separated by commas."
    )
    answer = ", ".join(LABELS[i] for i, text in enumerate(cands) if rule[1](text))
    return Problem(question, answer, {"rule": rule[0], "examples": len(shown)})


FAMILY = Family(
    name=NAME,
    description="Classify new strings by a hidden string property induced from accepted/rejected examples.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
)
