"""A scripted, OpenAI-compatible chat server on a loopback port, for tests only.

It answers ``POST /v1/chat/completions`` from per-step scripts (the step is recognised
from the system prompt) and, once a step's script runs out, from a default answer for
that step. It binds 127.0.0.1 only, records every request, and shuts itself down after
``lifetime`` seconds even if a test forgets to.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = dict[str, Any]
"""``{"content": text}``, ``{"status": 429}`` (an error answer), ``{"sleep": s, "content": text}``,
``{"tool_calls": [{"name": n, "arguments": text}, ...]}`` (OpenAI-style tool calls; ``content`` optional)."""

STEP_MARKERS = {
    "blueprint": "relational data model",
    "vocab": "sample values for the text fields",
    "paraphrase": "rewrite task instructions",
    "proposals": "write tasks for a database application",
    "evaluate": "working in a software system through its tools",
}


def step_of(body: dict[str, Any]) -> str:
    system = body["messages"][0].get("content") or ""
    for step, marker in STEP_MARKERS.items():
        if marker in system:
            return step
    return "unknown"


def default_vocab(body: dict[str, Any]) -> str:
    fields = json.loads(body["messages"][1]["content"].split("Fields:\n", 1)[1])
    return json.dumps(
        {"vocabularies": {name: [f"{name.split('.')[1].title()} {i}" for i in range(12)] for name in fields}}
    )


def default_paraphrase(body: dict[str, Any]) -> str:
    tasks = json.loads(body["messages"][1]["content"])["tasks"]
    return json.dumps(
        {"paraphrases": [{"id": t["id"], "instruction": "Could you help me? " + t["instruction"]} for t in tasks]}
    )


def default_proposals(body: dict[str, Any]) -> str:
    return json.dumps({"tasks": []})


DEFAULTS: dict[str, Callable[[dict[str, Any]], str]] = {
    "vocab": default_vocab,
    "paraphrase": default_paraphrase,
    "proposals": default_proposals,
}


class FakeLLM:
    def __init__(
        self,
        scripts: dict[str, list[Answer | Callable[[dict[str, Any]], Answer]]] | None = None,
        lifetime: float = 300.0,
        model: str = "gpt-4o-mini",
    ) -> None:
        self.scripts = {k: list(v) for k, v in (scripts or {}).items()}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.model = model
        self.lifetime = lifetime
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def count(self, step: str) -> int:
        return sum(1 for s, _ in self.requests if s == step)

    def _answer(self, body: dict[str, Any]) -> Answer:
        step = step_of(body)
        with self._lock:
            self.requests.append((step, body))
            queue = self.scripts.get(step)
            item = queue.pop(0) if queue else None
        if callable(item):
            return item(body)
        if item is not None:
            return item
        if step in DEFAULTS:
            return {"content": DEFAULTS[step](body)}
        return {"status": 500, "message": f"no script for step {step}"}

    def __enter__(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                answer = fake._answer(body)
                if "sleep" in answer:
                    time.sleep(answer["sleep"])
                status = answer.get("status", 200)
                if status != 200:
                    payload = {"error": {"message": answer.get("message", "scripted error"), "type": "scripted"}}
                else:
                    content = answer.get("content")
                    message: dict[str, Any] = {"role": "assistant", "content": content}
                    if answer.get("tool_calls"):
                        message["tool_calls"] = [
                            {
                                "id": call.get("id", f"call_{i}"),
                                "type": "function",
                                "function": {"name": call["name"], "arguments": call["arguments"]},
                            }
                            for i, call in enumerate(answer["tool_calls"])
                        ]
                    payload = {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion",
                        "created": 0,
                        "model": fake.model,
                        "choices": [
                            {
                                "index": 0,
                                "message": message,
                                "finish_reason": answer.get(
                                    "finish_reason", "tool_calls" if answer.get("tool_calls") else "stop"
                                ),
                            }
                        ],
                        "usage": {
                            "prompt_tokens": sum(len(m.get("content") or "") for m in body["messages"]) // 4,
                            "completion_tokens": len(content or "") // 4,
                            "total_tokens": 0,
                        },
                    }
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    if status == 429:
                        self.send_header("retry-after", "0")
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a scripted timeout)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self._watchdog = threading.Timer(self.lifetime, self._server.shutdown)
        self._watchdog.daemon = True
        self._watchdog.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._watchdog.cancel()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
