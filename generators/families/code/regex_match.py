"""Which strings does a small regular expression match in full?

Tests reading a regex as an automaton: literals, ``.`` (any letter of the alphabet), classes
``[ab]``, grouping, alternation ``|`` and the quantifiers ``*``, ``+`` and ``?``. Harder
levels nest deeper expressions over a larger alphabet and list more candidates; the
non-matching candidates are near misses (one letter changed, dropped, added or two swapped
in a matching string), so skimming is not enough. Every label is decided by the family's own
matcher, a Thompson NFA simulation that is linear in the string's length; the tested regex
dialect is a subset of Python's ``re``, which the tests use as the reference.

The answer is the set of labels of the matching candidates; each item has at least one
matching and one non-matching candidate, and labels are drawn evenly so no constant set pays.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.base import Family, Knobs, Problem

NAME = "regex_match"

LABELS = "ABCDEFGHIJ"
_LETTERS = "abcdefgh"
_MAX_TRIES = 60

Regex = tuple[Any, ...]
"""("lit", c) | ("any",) | ("class", chars) | ("cat", [parts]) | ("alt", a, b) | (quantifier, a)."""


@dataclass(frozen=True)
class Config(Knobs):
    depth: int = 1
    alphabet: int = 3
    candidates: int = 5
    quantifiers: bool = True

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "depth": (1, 4),
        "alphabet": (2, len(_LETTERS)),
        "candidates": (4, len(LABELS)),
    }

    def check(self) -> None:
        if not isinstance(self.quantifiers, bool):
            raise ValueError(f"Config.quantifiers must be a bool, got {self.quantifiers!r}")


LEVELS = (
    {"depth": 2, "alphabet": 3, "candidates": 5},
    {"depth": 2, "alphabet": 3, "candidates": 6},
    {"depth": 2, "alphabet": 4, "candidates": 6},
    {"depth": 3, "alphabet": 4, "candidates": 6},
    {"depth": 3, "alphabet": 5, "candidates": 7},
    {"depth": 4, "alphabet": 5, "candidates": 8},
)


# -- parsing and matching (Thompson NFA) ------------------------------------------------------


def parse(pattern: str, alphabet: str) -> Regex:
    """The tree of ``pattern``; ``ValueError`` for anything outside the dialect."""
    position = 0

    def peek() -> str:
        return pattern[position] if position < len(pattern) else ""

    def alternation() -> Regex:
        nonlocal position
        node = sequence()
        while peek() == "|":
            position += 1
            node = ("alt", node, sequence())
        return node

    def sequence() -> Regex:
        parts: list[Regex] = []
        while peek() and peek() not in "|)":
            parts.append(repeat())
        return ("cat", parts)

    def repeat() -> Regex:
        nonlocal position
        node = atom()
        if peek() and peek() in "*+?":  # one quantifier per atom: stacking needs a group
            node = ({"*": "star", "+": "plus", "?": "opt"}[peek()], node)
            position += 1
        return node

    def atom() -> Regex:
        nonlocal position
        char = peek()
        position += 1
        if char == "(":
            node = alternation()
            if peek() != ")":
                raise ValueError("unclosed group")
            position += 1
            return node
        if char == "[":
            end = pattern.find("]", position)
            if end <= position:
                raise ValueError("bad class")
            chars = pattern[position:end]
            position = end + 1
            return ("class", chars)
        if char == ".":
            return ("any",)
        if char and char.isalpha():
            return ("lit", char)
        raise ValueError(f"unexpected {char!r}")

    tree = alternation()
    if position != len(pattern):
        raise ValueError("trailing text")
    return tree


class Matcher:
    """A Thompson NFA: ``states[i]`` is ("char", chars, next) | ("split", a, b) | ("match",)."""

    def __init__(self, tree: Regex, alphabet: str) -> None:
        self.alphabet = alphabet
        self.states: list[list[Any]] = [["match"]]
        self.start = self._compile(tree, 0)
        self._steps: dict[tuple[frozenset[int], str], frozenset[int]] = {}
        self._first = self._closure([self.start])

    def _new(self, state: list[Any]) -> int:
        self.states.append(state)
        return len(self.states) - 1

    def _compile(self, node: Regex, nxt: int) -> int:
        kind = node[0]
        if kind == "lit":
            return self._new(["char", node[1], nxt])
        if kind == "any":
            return self._new(["char", self.alphabet, nxt])
        if kind == "class":
            return self._new(["char", node[1], nxt])
        if kind == "cat":
            for part in reversed(node[1]):
                nxt = self._compile(part, nxt)
            return nxt
        if kind == "alt":
            return self._new(["split", self._compile(node[1], nxt), self._compile(node[2], nxt)])
        if kind == "opt":
            return self._new(["split", self._compile(node[1], nxt), nxt])
        loop = self._new(["split", -1, nxt])
        body = self._compile(node[1], loop)
        self.states[loop][1] = body
        return loop if kind == "star" else body

    def _closure(self, starts: list[int]) -> frozenset[int]:
        seen: set[int] = set()
        stack = list(starts)
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            if self.states[state][0] == "split":
                stack.extend(self.states[state][1:])
        return frozenset(seen)

    def fullmatch(self, text: str) -> bool:
        """Whether the whole of ``text`` matches; the state sets met are cached (a lazy DFA)."""
        current = self._first
        for char in text:
            key = (current, char)
            following = self._steps.get(key)
            if following is None:
                moves = [s[2] for s in (self.states[i] for i in current) if s[0] == "char" and char in s[1]]
                following = self._steps[key] = self._closure(moves)
            if not following:
                return False
            current = following
        return 0 in current


# -- generation --------------------------------------------------------------------------------


def _random_tree(depth: int, alphabet: str, quantifiers: bool, rng: random.Random) -> Regex:
    roll = rng.random()
    if depth <= 0 or roll < 0.2:
        pick = rng.random()
        if pick < 0.12:
            return ("any",)
        if pick < 0.3:
            return ("class", "".join(sorted(rng.sample(alphabet, 2))))
        return ("lit", rng.choice(alphabet))
    if roll < 0.6:
        return ("cat", [_random_tree(depth - 1, alphabet, quantifiers, rng) for _ in range(rng.randint(2, 3))])
    if roll < 0.75 or not quantifiers:
        return (
            "alt",
            _random_tree(depth - 1, alphabet, quantifiers, rng),
            _random_tree(depth - 1, alphabet, quantifiers, rng),
        )
    return (rng.choice(("star", "plus", "opt")), _random_tree(depth - 1, alphabet, quantifiers, rng))


def render(node: Regex, context: str = "alt") -> str:
    """Text of ``node``; ``context`` is what encloses it: "alt", "cat" or "repeat"."""
    kind = node[0]
    if kind == "lit":
        return str(node[1])
    if kind == "any":
        return "."
    if kind == "class":
        return f"[{node[1]}]"
    if kind == "cat":
        parts = [part for part in node[1] if not (part[0] == "cat" and not part[1])]
        if len(parts) == 1:
            return render(parts[0], context)
        body = "".join(render(part, "cat") for part in parts)
        return f"({body})" if context == "repeat" else body
    if kind == "alt":
        body = f"{render(node[1], 'alt')}|{render(node[2], 'alt')}"
        return body if context == "alt" else f"({body})"
    body = render(node[1], "repeat") + {"star": "*", "plus": "+", "opt": "?"}[kind]
    return f"({body})" if context == "repeat" else body


_REPEATS = {"star": (0, 2), "plus": (1, 3), "opt": (0, 1)}


def _sample(node: Regex, alphabet: str, rng: random.Random) -> str:
    kind = node[0]
    if kind == "lit":
        return str(node[1])
    if kind == "any":
        return rng.choice(alphabet)
    if kind == "class":
        return rng.choice(node[1])
    if kind == "cat":
        return "".join([_sample(part, alphabet, rng) for part in node[1]])
    if kind == "alt":
        return _sample(node[rng.randint(1, 2)], alphabet, rng)
    low, high = _REPEATS[kind]
    return "".join([_sample(node[1], alphabet, rng) for _ in range(rng.randint(low, high))])


def _sampler(node: Regex, alphabet: str, rng: random.Random) -> Callable[[], str]:
    """:func:`_sample` of ``node`` as closures built once per tree: the same draws in the
    same order, without dispatching on the node kind at every call (``_candidates``
    samples a tree up to 30 times per candidate)."""
    kind = node[0]
    if kind == "lit":
        text = str(node[1])
        return lambda: text
    choice, randint = rng.choice, rng.randint
    if kind in ("any", "class"):
        pool = alphabet if kind == "any" else str(node[1])
        return lambda: choice(pool)
    if kind == "cat":
        parts = [_sampler(part, alphabet, rng) for part in node[1]]
        return lambda: "".join([part() for part in parts])
    if kind == "alt":
        first, second = _sampler(node[1], alphabet, rng), _sampler(node[2], alphabet, rng)
        return lambda: (first if randint(1, 2) == 1 else second)()
    low, high = _REPEATS[kind]
    inner = _sampler(node[1], alphabet, rng)
    return lambda: "".join([inner() for _ in range(randint(low, high))])


def _mutate(text: str, alphabet: str, rng: random.Random) -> str:
    how = rng.randrange(4) if text else 2
    i = rng.randrange(len(text)) if text else 0
    if how == 0:
        return text[:i] + rng.choice(alphabet) + text[i + 1 :]
    if how == 1:
        return text[:i] + text[i + 1 :]
    if how == 2:
        return text[:i] + rng.choice(alphabet) + text[i:]
    j = min(i + 1, len(text) - 1)
    return text[:i] + text[j] + text[i] + text[j + 1 :] if j > i else text


def _candidates(
    tree: Regex, matcher: Matcher, wanted: list[bool], alphabet: str, rng: random.Random
) -> list[str] | None:
    out: list[str] = []
    sample = _sampler(tree, alphabet, rng)
    for match in wanted:
        for _ in range(30):
            text = sample()
            if not match:
                for _ in range(rng.randint(1, 2)):
                    text = _mutate(text, alphabet, rng)
            if len(text) <= 16 and text not in out and matcher.fullmatch(text) == match:
                out.append(text)
                break
        else:
            return None
    return out


def generate(config: Config, rng: random.Random) -> Problem:
    alphabet = _LETTERS[: config.alphabet]
    # The labels are drawn first and kept while regexes are redrawn: redrawing them too
    # favoured the label sets that small regexes can satisfy.
    wanted = [rng.random() < 0.5 for _ in range(config.candidates)]
    if all(wanted) or not any(wanted):
        wanted[rng.randrange(config.candidates)] = not wanted[0]
    for _ in range(_MAX_TRIES):
        tree = _random_tree(config.depth, alphabet, config.quantifiers, rng)
        pattern = render(tree)
        if len(pattern) < 4:
            continue
        matcher = Matcher(parse(pattern, alphabet), alphabet)
        candidates = _candidates(tree, matcher, wanted, alphabet, rng)
        if candidates is not None:
            break
    else:
        raise ValueError("regex_match: no regex with both matching and failing candidates")
    labels = [LABELS[i] for i, text in enumerate(candidates) if matcher.fullmatch(text)]
    listing = "\n".join(f'{LABELS[i]}: "{text}"' for i, text in enumerate(candidates))
    question = (
        f"The regular expression {pattern} is over the letters {', '.join(alphabet)}: '.' stands for any one "
        "of these letters, [xy] for one of the letters listed, '|' separates alternatives, parentheses group, "
        "and '*', '+', '?' mean zero or more, one or more, and zero or one of what precedes them. "
        "Which of these strings does it match in full (the whole string, not a part of it)?\n"
        f"{listing}\n\nAnswer with the labels of all matching strings, separated by commas."
    )
    return Problem(question, ", ".join(labels), {"pattern": pattern, "alphabet": alphabet, "candidates": candidates})


FAMILY = Family(
    name=NAME,
    description="Which candidate strings a small regex (. [] | () * + ?) matches in full (own NFA matcher).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
)
