"""Observations as the text a model reads next: compact key-sorted JSON within a budget.

A list page of 50 wide rows is 8 KB or more; in a trainer whose completion budget counts
tool results (TRL's does), one such page can push the sample over its budget and it is
dropped, scoring 0 for reasons that have nothing to do with the agent. So an observation
longer than the budget is cut, and the cut says how to fetch the rest: for a list page,
the rows that fit are kept and the text names the ``offset`` that continues exactly where
the shown rows stop; anything else is cut at the budget with the number of characters left
out.
"""

from __future__ import annotations

import json
from typing import Any

OBSERVATION_BUDGET = 6_000
"""Characters of one observation text, at most (about 1,500 tokens)."""
EPISODE_OVER_TEXT = "The episode is over: the final answer was already given, and further calls change nothing."


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON: how observations and results are shown to a model."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))


def _page_cut(again: str, result: dict[str, Any], arguments: Any, budget: int) -> str | None:
    """A list page cut to the rows that fit, with the offset that fetches the next row."""
    items = result.get("items")
    if not isinstance(items, list) or "next_offset" not in result:
        return None
    start = arguments.get("offset", 0) if isinstance(arguments, dict) else 0
    start = start if isinstance(start, int) and not isinstance(start, bool) else 0
    kept = list(items)
    while kept:
        shown = len(kept)
        note = (
            f" [cut: {shown} of this page's {len(items)} items shown; call {again} offset={start + shown} "
            "and the same filters for the rest]"
        )
        text = dumps({**result, "items": kept, "next_offset": start + shown})
        if len(text) + len(note) <= budget:
            return text + note
        kept.pop()
    return None


def render_observation(
    obs: Any, arguments: Any = None, budget: int = OBSERVATION_BUDGET, again: str | None = None
) -> str:
    """One observation as the text a model reads next; ``arguments`` are the executor's arguments of
    the call it answers (a cut list page continues from their ``offset``); ``again`` is how the model
    calls that list again (default: the bundle tool's name with ``again with``)."""
    if not isinstance(obs, dict):
        text = dumps(obs)
    else:
        kind = obs.get("type")
        if kind == "tool_result":
            text = dumps(obs.get("result"))
            result = obs.get("result")
            if len(text) > budget and isinstance(result, dict):
                again = again or f"{obs.get('tool', 'the list tool')} again with"
                cut = _page_cut(again, result, arguments, budget)
                if cut is not None:
                    return cut
        elif kind in ("tool_error", "error"):
            text = "error: " + dumps(obs.get("error"))
        elif kind == "done":
            text = f"episode over; reward {obs.get('reward')}"
        elif kind == "task":
            text = str(obs.get("instruction", ""))
        else:
            text = dumps(obs)
    if len(text) <= budget:
        return text
    note = f" [cut: {len(text) - budget} more characters; ask for less: one record by id, or narrower filters]"
    return text[: max(0, budget - len(note))] + note
