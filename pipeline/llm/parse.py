"""Reading a model's reply as JSON data, and describing why it could not be read.

A reply is untrusted text. It is parsed with the standard JSON parser only (never
evaluated), refusing what JSON allows but data must not carry: ``NaN`` and
``Infinity`` (they would reach SQL CHECK bounds), duplicate keys (which one wins is
parser-dependent), nesting deep enough to exhaust the stack, and replies too large to
be a blueprint. Models like to wrap JSON in a Markdown fence or a sentence; the first
``{``…last ``}`` span is what counts.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_REPLY = 1_000_000
MAX_DEPTH = 32
_FENCE = re.compile(r"^```(?:json|JSON)?\s*\n(.*?)\n?```\s*$", re.DOTALL)


class ReplyError(ValueError):
    """The reply is not usable JSON; the message is fed back to the model."""


def _constant(name: str) -> Any:
    raise ReplyError(f"{name} is not allowed: use a finite number")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ReplyError(f"key {key[:60]!r} appears twice in one object")
        out[key] = value
    return out


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        raise ReplyError(f"nesting deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level)
    return level


def load_object(text: str | None) -> dict[str, Any]:
    """The JSON object in ``text``; :class:`ReplyError` says what is wrong otherwise."""
    if not text or not text.strip():
        raise ReplyError("the reply was empty: answer with one JSON object")
    if len(text) > MAX_REPLY:
        raise ReplyError(f"the reply is {len(text)} characters; keep it under {MAX_REPLY}")
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not body.startswith("{"):
        start, end = body.find("{"), body.rfind("}")
        if start < 0:
            raise ReplyError("no JSON object found: answer with one JSON object and nothing else")
        # An object that never closes (a reply cut short) is parsed as is, so the error says where it stops.
        body = body[start : end + 1] if end > start else body[start:]
    try:
        value = json.loads(body, parse_constant=_constant, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise ReplyError(f"nesting deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise ReplyError(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(value, dict):
        raise ReplyError(f"expected a JSON object, got {type(value).__name__}")
    _depth(value)
    return value


def canonical(value: Any) -> str:
    """One spelling of a JSON value: sorted keys, no spaces, UTF-8 text kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
