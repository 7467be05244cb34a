"""Group a list of words into sets of anagrams.

Words that use exactly the same letters (``listen``, ``silent``, ``enlist``) belong to one
group; a word with no anagram in the list is a group on its own. The list mixes several
anagram groups with look-alike single words and is shuffled. Harder levels list more
groups, bigger groups and more single words.

The answer is the grouping; order of groups and of words within a group does not matter,
but every word must appear exactly once, so a merged, split or partial grouping scores 0.
Groups are written ``eat, tea; bat`` (``;`` between groups, or new lines inside answer
tags) or as a nested list ``[["eat", "tea"], ["bat"]]``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem
from generators.families._words import AMBIGUITY_WORDS, WORDS, signature

NAME = "group_anagrams"

_GROUP = re.compile(r"\[([^\[\]]*)\]")
_WORD_CHARS = re.compile(r"[a-z]+")


def _anagram_groups() -> tuple[tuple[str, ...], ...]:
    by_signature: dict[str, list[str]] = {}
    for word in dict.fromkeys(WORDS + AMBIGUITY_WORDS):
        by_signature.setdefault(signature(word), []).append(word)
    return tuple(tuple(group) for group in by_signature.values() if len(group) > 1)


GROUPS = _anagram_groups()
SIGNATURES = frozenset(signature(group[0]) for group in GROUPS)
SINGLES = tuple(word for word in WORDS if signature(word) not in SIGNATURES)
"""Words with no known anagram: safe to list alone."""


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"groups": (1, 12), "max_group": (2, 4), "singles": (0, 12)}

    groups: int = 2
    max_group: int = 2
    singles: int = 1


LEVELS = (
    {"groups": 2, "max_group": 2, "singles": 1},
    {"groups": 3, "max_group": 3, "singles": 2},
    {"groups": 4, "max_group": 3, "singles": 3},
    {"groups": 5, "max_group": 3, "singles": 4},
    {"groups": 6, "max_group": 4, "singles": 5},
    {"groups": 8, "max_group": 4, "singles": 6},
)


def generate(config: Config, rng: random.Random) -> Problem:
    chosen = rng.sample(GROUPS, config.groups)
    groups = [sorted(rng.sample(group, rng.randint(2, min(config.max_group, len(group))))) for group in chosen]
    singles = rng.sample(SINGLES, config.singles)
    groups += [[word] for word in singles]
    words = [word for group in groups for word in group]
    rng.shuffle(words)
    question = (
        f"Group these words into anagram groups (words made of exactly the same letters): {', '.join(words)}.\n"
        "A word with no anagram in the list is a group on its own. Write each group's words separated by commas "
        "and separate the groups with semicolons, for example: eat, tea; bat; tan, nat."
    )
    answer = "; ".join(", ".join(group) for group in sorted(groups))
    return Problem(question, answer, {"words": words})


def parse_groups(text: str, limit: int) -> frozenset[frozenset[str]] | None:
    """The grouping in ``a, b; c`` / one group per line / ``[["a", "b"], ["c"]]`` form, or None.

    A word listed twice refuses the answer.
    """
    if len(text) > 40 * limit + 64:
        return None
    body = text.strip().lower()
    if body.startswith("[["):
        if not body.endswith("]]"):
            return None
        inner = body[1:-1]
        chunks = _GROUP.findall(inner)
        if _GROUP.sub("", inner).strip(" ,\n") != "":
            return None
    else:
        chunks = re.split(r"[;\n]", body)
    seen: list[str] = []
    groups = []
    for chunk in chunks:
        tokens = [token.strip().strip("\"'").strip() for token in chunk.split(",")]
        tokens = [token for token in tokens if token]
        if not tokens:
            continue
        if any(not _WORD_CHARS.fullmatch(token) for token in tokens):
            return None
        seen.extend(tokens)
        groups.append(frozenset(tokens))
    if not groups or len(seen) != len(set(seen)):
        return None
    return frozenset(groups)


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 when the answer groups every listed word exactly as the anagram classes do."""
    try:
        words = [str(w) for w in (item.get("metadata") or {})["words"]]
        want = parse_groups(str(item["answer"]), len(words))
        got = parse_groups(extract_answer(answer_text), len(words))
        return 1.0 if want is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """Every word alone, and the grouping with its last group dropped."""
    groups = str(item["answer"]).split("; ")
    words = [w for group in groups for w in group.split(", ")]
    return ["; ".join(words), "; ".join(groups[:-1]) or "none"]


FAMILY = Family(
    name=NAME,
    description="Group words into anagram classes (any order; every word exactly once).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:group_anagrams",
)
