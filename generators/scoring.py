"""The one dispatcher every procedural score goes through, and the error it raises.

A reward must never lie. A wrong or unreadable answer is the agent's fault and scores 0.0:
family scorers catch only :data:`generators.answers.ANSWER_ERRORS` while reading the
answer. Anything else that escapes a scorer (a malformed item, a bug, a value outside
[0, 1]) is the project's fault; :func:`score_checked` raises it as a :class:`ScorerError`,
which the procedural runtime reports as the verdict status ``error`` (reward 0.0, to be
masked by the trainer) instead of a "failed" episode the trainer would learn from.

A response that does not score as written gets one second reading with its decorations
removed (:func:`generators.answers.undecorate`: bold, "Answer:", a trailing period,
``\\boxed{}``), so every family accepts them in the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from generators.answers import score_answer, undecorate
from generators.base import Family

__all__ = ["ScorerError", "score_checked"]


class ScorerError(RuntimeError):
    """A scorer could not score an answer for a reason that is not the answer's fault.

    ``reason`` names the family and the kind of failure only (no message text, which might
    quote an item's gold answer), so it may travel in a verdict.
    """

    def __init__(self, family: str, reason: str) -> None:
        super().__init__(f"{family}: {reason}")
        self.family = family
        self.reason = reason


def _family(family: str | Family) -> Family:
    if isinstance(family, Family):
        return family
    from generators.registry import get_family

    try:
        return get_family(family)
    except Exception as exc:  # an item naming no known family is a malformed item
        raise ScorerError(str(family)[:80], f"no such family ({type(exc).__name__})") from exc


def _once(family: Family, text: str, item: Mapping[str, Any]) -> float:
    try:
        raw = family.score(text, item) if family.score is not None else score_answer(family.answer_kind, text, item)
        value = float(raw)
    except Exception as exc:
        raise ScorerError(family.name, f"the scorer raised {type(exc).__name__}") from exc
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ScorerError(family.name, f"the scorer returned {raw!r}, outside [0, 1]")
    return value


def score_checked(family: str | Family, answer_text: Any, item: Mapping[str, Any]) -> float:
    """The reward in [0, 1] for ``answer_text`` on ``item``.

    Raises :class:`ScorerError` when the scorer cannot score (never for a wrong answer).
    An answer that is not text scores as the empty answer. When the response does not
    earn full marks as written, its undecorated forms (with and without a final period) are
    scored too and the best reward counts: every reading is of the same response, so this
    never rewards a second guess.
    """
    fam = _family(family)
    if not isinstance(item, Mapping):
        raise ScorerError(fam.name, f"the item is a {type(item).__name__}, not a mapping")
    text = answer_text if isinstance(answer_text, str) else ""
    value = _once(fam, text, item)
    tried = {text, text.strip()}
    for period in (True, False):
        if value >= 1.0:
            break
        plain = undecorate(text, period=period)
        if plain not in tried:
            tried.add(plain)
            value = max(value, _once(fam, plain, item))
    return value
