"""Decide which strings a glob (wildcard) pattern matches.

Tests backtracking over ``*`` (any run, possibly empty), ``?`` (exactly one character) and
character classes ``[abc]`` / ``[!abc]``. Harder levels add more stars (more ways to split a
string), negated classes, more candidates, and a small alphabet so that the non-matching
candidates are near misses: mutations of matching strings by one substitution, deletion,
insertion or swap. Each label's status is decided by a matcher, never assumed, and every
item has at least one matching and one non-matching candidate. Even the easiest level lists
five candidates: with three there are only six possible answers, so one constant label set
(e.g. "A, B") was right on about a fifth of the items; five give thirty, each rarely right.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "pattern_match"

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
LABELS = "ABCDEFGHIJKL"


@dataclass(frozen=True)
class Config(Knobs):
    min_literals: int = 3
    max_literals: int = 4
    n_stars: int = 1
    n_questions: int = 0
    n_classes: int = 0
    negated_classes: bool = False
    n_candidates: int = 3
    alphabet_size: int = 6

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_literals": (1, 20),
        "max_literals": (1, 20),
        "n_stars": (0, 6),
        "n_questions": (0, 6),
        "n_classes": (0, 6),
        "n_candidates": (2, len(LABELS)),
        "alphabet_size": (2, 26),
    }

    def check(self) -> None:
        if self.min_literals > self.max_literals:
            raise ValueError("pattern_match: min_literals must be <= max_literals")
        if self.n_stars + self.n_questions + self.n_classes == 0:
            raise ValueError("pattern_match: the pattern needs at least one wildcard or class")
        if self.negated_classes and self.n_classes == 0:
            raise ValueError("pattern_match: negated_classes needs n_classes >= 1")
        if self.n_classes and self.alphabet_size < 3:
            raise ValueError("pattern_match: character classes need an alphabet of at least 3 letters")


LEVELS: tuple[dict[str, object], ...] = (
    {
        "min_literals": 3,
        "max_literals": 4,
        "n_stars": 1,
        "n_questions": 0,
        "n_classes": 0,
        "n_candidates": 5,
        "alphabet_size": 8,
    },
    {
        "min_literals": 3,
        "max_literals": 5,
        "n_stars": 1,
        "n_questions": 1,
        "n_classes": 0,
        "n_candidates": 5,
        "alphabet_size": 6,
    },
    {
        "min_literals": 4,
        "max_literals": 6,
        "n_stars": 1,
        "n_questions": 1,
        "n_classes": 1,
        "n_candidates": 5,
        "alphabet_size": 5,
    },
    {
        "min_literals": 4,
        "max_literals": 7,
        "n_stars": 2,
        "n_questions": 1,
        "n_classes": 1,
        "n_candidates": 6,
        "alphabet_size": 4,
        "negated_classes": True,
    },
    {
        "min_literals": 5,
        "max_literals": 8,
        "n_stars": 2,
        "n_questions": 2,
        "n_classes": 2,
        "n_candidates": 7,
        "alphabet_size": 4,
        "negated_classes": True,
    },
    {
        "min_literals": 6,
        "max_literals": 10,
        "n_stars": 3,
        "n_questions": 2,
        "n_classes": 2,
        "n_candidates": 8,
        "alphabet_size": 3,
        "negated_classes": True,
    },
)

Token = tuple[str, str]
"""(kind, payload): ("lit", "a"), ("any", ""), ("one", ""), ("cls", "abc"), ("ncls", "abc")."""


def tokenize(pattern: str) -> list[Token]:
    """Parse a glob pattern; ``[`` without a closing ``]`` is a literal, as in fnmatch."""
    tokens: list[Token] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            tokens.append(("any", ""))
        elif ch == "?":
            tokens.append(("one", ""))
        elif ch == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            tokens.append(("ncls", body[1:]) if body.startswith("!") else ("cls", body))
            i = end
        else:
            tokens.append(("lit", ch))
        i += 1
    return tokens


def _single(token: Token, ch: str) -> bool:
    kind, payload = token
    if kind == "lit":
        return ch == payload
    if kind == "one":
        return True
    if kind == "cls":
        return ch in payload
    return ch not in payload  # ncls


def matches(pattern: str, text: str) -> bool:
    """Whole-string glob match: the pattern's tokens as one compiled regular expression."""
    return _compiled(pattern)(text) is not None


_CLASS_SPECIAL = str.maketrans({c: "\\" + c for c in "\\]^-["})


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str) -> Callable[[str], re.Match[str] | None]:
    """``fullmatch`` of the regex equivalent to :func:`tokenize`'s tokens (``*`` -> ``.*``,
    ``?`` -> ``.``, classes with every member escaped); a pattern is tried on many texts."""
    parts = []
    for kind, payload in tokenize(pattern):
        if kind == "lit":
            parts.append(re.escape(payload))
        elif kind == "any":
            parts.append(".*")
        elif kind == "one":
            parts.append(".")
        elif payload:
            parts.append(("[^" if kind == "ncls" else "[") + payload.translate(_CLASS_SPECIAL) + "]")
        else:  # an empty class matches nothing, its negation any character
            parts.append("." if kind == "ncls" else "(?!)")
    return re.compile("".join(parts), re.DOTALL).fullmatch


def matches_table(pattern: str, text: str) -> bool:
    """Whole-string glob match by dynamic programming over (token, position): the reference
    :func:`matches` is tested against."""
    tokens = tokenize(pattern)
    reach = [False] * (len(text) + 1)
    reach[0] = True
    for token in tokens:
        nxt = [False] * (len(text) + 1)
        if token[0] == "any":
            seen = False
            for j in range(len(text) + 1):
                seen = seen or reach[j]
                nxt[j] = seen
        else:
            for j in range(len(text)):
                if reach[j] and _single(token, text[j]):
                    nxt[j + 1] = True
        reach = nxt
    return reach[len(text)]


def _build_pattern(config: Config, rng: random.Random, letters: str) -> list[Token]:
    n_lit = rng.randint(config.min_literals, config.max_literals)
    tokens: list[Token] = [("lit", rng.choice(letters)) for _ in range(n_lit)]
    specials: list[Token] = [("any", "")] * config.n_stars + [("one", "")] * config.n_questions
    for i in range(config.n_classes):
        body = "".join(sorted(rng.sample(letters, 2)))
        negate = config.negated_classes and (i == 0 or rng.random() < 0.5)
        specials.append(("ncls" if negate else "cls", body))
    for special in specials:
        while True:
            pos = rng.randint(0, len(tokens))
            # No two stars side by side: "**" is just "*" and reads as a typo.
            if special[0] == "any" and (
                (pos > 0 and tokens[pos - 1][0] == "any") or (pos < len(tokens) and tokens[pos][0] == "any")
            ):
                continue
            tokens.insert(pos, special)
            break
    return tokens


def _render(tokens: list[Token]) -> str:
    out = []
    for kind, payload in tokens:
        out.append({"lit": payload, "any": "*", "one": "?", "cls": f"[{payload}]", "ncls": f"[!{payload}]"}[kind])
    return "".join(out)


def _instantiate(tokens: list[Token], rng: random.Random, letters: str) -> str:
    out = []
    for kind, payload in tokens:
        if kind == "lit":
            out.append(payload)
        elif kind == "any":
            out.extend(rng.choice(letters) for _ in range(rng.randint(0, 3)))
        elif kind == "one":
            out.append(rng.choice(letters))
        elif kind == "cls":
            out.append(rng.choice(payload))
        else:
            out.append(rng.choice([c for c in letters if c not in payload]))
    return "".join(out)


def _mutate(text: str, rng: random.Random, letters: str) -> str:
    op = rng.choice(("sub", "del", "ins", "swap"))
    i = rng.randrange(len(text)) if text else 0
    if op == "sub" and text:
        return text[:i] + rng.choice(letters) + text[i + 1 :]
    if op == "del" and len(text) > 1:
        return text[:i] + text[i + 1 :]
    if op == "swap" and len(text) > 1:
        i = min(i, len(text) - 2)
        return text[:i] + text[i + 1] + text[i] + text[i + 2 :]
    return text[:i] + rng.choice(letters) + text[i:]


def generate(config: Config, rng: random.Random) -> Problem:
    letters = "".join(sorted(rng.sample(ALPHABET, config.alphabet_size)))
    for _ in range(100):
        tokens = _build_pattern(config, rng, letters)
        pattern = _render(tokens)
        # Decide each slot's status first (at least one of each), then search for a string
        # with that status: near misses come from mutating a matching instance.
        wanted = [rng.random() < 0.5 for _ in range(config.n_candidates)]
        wanted[0], wanted[1] = True, False
        rng.shuffle(wanted)
        candidates: list[str] = []
        seen: set[str] = set()
        for want in wanted:
            for _ in range(60):
                text = _instantiate(tokens, rng, letters)
                if not want or rng.random() < 0.3:
                    text = _mutate(text, rng, letters)
                if text and text not in seen and matches(pattern, text) == want:
                    seen.add(text)
                    candidates.append(text)
                    break
            else:
                break
        if len(candidates) == config.n_candidates:
            flags = wanted
            break
    else:
        raise ValueError("pattern_match: could not build a mixed candidate list")
    labels = LABELS[: config.n_candidates]
    listing = "\n".join(f"{label}. {text}" for label, text in zip(labels, candidates))
    answer = ", ".join(label for label, ok in zip(labels, flags) if ok)
    question = (
        f"Glob pattern: {pattern}\n\n"
        "Rules: '*' matches any sequence of characters (including none), '?' matches exactly one character, "
        "[xy] matches exactly one character that is x or y, and [!xy] matches exactly one character that is "
        "neither x nor y. Every other character matches only itself. The pattern must match the whole string.\n\n"
        f"Candidates:\n{listing}\n\n"
        "Which candidates does the pattern match? Answer with the labels of all matching candidates, "
        "separated by commas (e.g. A, C)."
    )
    return Problem(
        question=question, answer=answer, extra={"pattern": pattern, "candidates": candidates, "matches": flags}
    )


FAMILY = Family(
    name=NAME,
    description="Select the candidate strings that a glob pattern (*, ?, [..], [!..]) matches in full.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="set",
)
