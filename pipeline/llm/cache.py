"""A content-addressed cache of model replies, owned by the project.

Every request is keyed by the SHA-256 of its canonical JSON form: the model, the
messages and every parameter that can change the reply (temperature, token limit, reply
format). Where the request was sent (base URL) and with which key are not part of it,
so a cache filled through a proxy replays anywhere. An entry stores the request next
to the reply; reading recomputes the key from the stored request, so a damaged or
edited entry is a miss, never a wrong answer. Entries are written through a scratch file
and renamed, so a reader never sees half an entry and concurrent writers of the same key
agree (same request, same file name).

litellm's own cache is not used: it fails offline (it imports an audio library that is
not installed), and its keys are not ours to record in a bundle's lineage.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.llm.parse import canonical

FORMAT = 1
"""Bumped when the key's recipe changes, so old entries are never mistaken for new ones."""
_KEY_CHARS = frozenset("0123456789abcdef")


def request_key(model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """The hex SHA-256 naming a request (and its cached reply)."""
    payload = {"format": FORMAT, "model": model, "messages": messages, "params": params}
    return hashlib.sha256(canonical(payload).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Entry:
    """A cached reply and what it cost when it was made."""

    key: str
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    finish_reason: str | None = None
    tool_calls: tuple[dict[str, str], ...] = ()
    """OpenAI-style tool calls, each ``{"id", "name", "arguments"}`` with the arguments as the raw
    text the model wrote (parsing them, and judging a malformed one, is the caller's business)."""


class ResponseCache:
    """``<root>/<key[:2]>/<key>.json``."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        if len(key) != 64 or not set(key) <= _KEY_CHARS:
            raise ValueError(f"not a cache key: {key[:80]!r}")
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Entry | None:
        """The entry for ``key``; None if absent, unreadable or not matching its key."""
        path = self.path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            request, reply = data["request"], data["reply"]
            if request_key(request["model"], request["messages"], request["params"]) != key:
                return None
            return Entry(
                key=key,
                text=str(reply["text"]),
                prompt_tokens=int(reply.get("prompt_tokens", 0)),
                completion_tokens=int(reply.get("completion_tokens", 0)),
                cost_usd=float(reply.get("cost_usd", 0.0)),
                finish_reason=reply.get("finish_reason"),
                tool_calls=tuple(
                    {"id": str(c["id"]), "name": str(c["name"]), "arguments": str(c["arguments"])}
                    for c in reply.get("tool_calls") or ()
                ),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any], entry: Entry) -> Path:
        key = request_key(model, messages, params)
        if key != entry.key:
            raise ValueError("entry key does not match its request")
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        record: dict[str, Any] = {
            "key": key,
            "request": {"model": model, "messages": messages, "params": params},
            "reply": {
                "text": entry.text,
                "prompt_tokens": entry.prompt_tokens,
                "completion_tokens": entry.completion_tokens,
                "cost_usd": entry.cost_usd,
                "finish_reason": entry.finish_reason,
            },
        }
        if entry.tool_calls:  # only tool-calling replies carry the key: earlier entries stay as they were
            record["reply"]["tool_calls"] = list(entry.tool_calls)
        scratch = path.with_name(f".{key}.{uuid.uuid4().hex}")
        scratch.write_text(json.dumps(record, sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(scratch, path)
        return path

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None
