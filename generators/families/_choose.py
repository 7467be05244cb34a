"""Answers that name which of several numbered cases hold: ``"1, 3"`` or ``"none"``.

Yes/no families ask about several independent cases at once (is pair 1 isomorphic? pair
2? ...) and take the set of case numbers that hold as the answer. With ``n`` cases drawn
independently at 50 %, no constant answer earns more than ``2**-n`` (1/16 for four), so
such a family needs no ``choices`` allowance, and a guess no longer earns half the reward.
"""

from __future__ import annotations

import re

__all__ = ["format_indices", "parse_indices"]

_SPLIT = re.compile(r"[,\s;]+")
_NONE = frozenset({"none", "none of them", "no pairs", "no notes"})


def format_indices(indices: list[int]) -> str:
    """Gold form: ``"1, 3"`` (increasing), ``"none"`` when empty."""
    return ", ".join(str(i) for i in sorted(indices)) if indices else "none"


def parse_indices(text: str, count: int) -> frozenset[int] | None:
    """Case numbers 1..count from ``1, 3`` / ``[1, 3]`` / ``1 3`` / ``none``; else ``None``.

    A repeated number, a number out of range or any other word refuses the answer.
    """
    if not isinstance(text, str) or len(text) > 8 * count + 32:
        return None
    body = text.strip().strip(".").strip()
    if body[:1] in "[({" and body[-1:] in "])}":
        body = body[1:-1].strip()
    if body.casefold() in _NONE:
        return frozenset()
    tokens = [token for token in _SPLIT.split(body) if token]
    if not tokens or any(not token.isdigit() or len(token) > 3 for token in tokens):
        return None
    numbers = [int(token) for token in tokens]
    if len(set(numbers)) != len(numbers) or any(not 1 <= n <= count for n in numbers):
        return None
    return frozenset(numbers)
