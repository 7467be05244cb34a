"""verifiers: its own episode runner drives a bundle with a scripted model behind a loopback endpoint."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="needs the verifiers extra in its own environment (see .ci/run)")

import verifiers.v1 as vf

from pipeline.bundle.format import Bundle
from pipeline.integrations.verifiers import load_environment
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.environment import Environment


class Script:
    """Replies an OpenAI-compatible endpoint gives, in order (one list per episode)."""

    def __init__(self) -> None:
        self.replies: list[str] = []
        self.requests: list[dict[str, Any]] = []


@contextlib.contextmanager
def scripted_model(script: Script) -> Iterator[str]:
    """A loopback chat-completions endpoint replaying ``script`` (the model behind verifiers' client)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            script.requests.append(body)
            text = script.replies.pop(0) if script.replies else ""
            payload = {
                "id": f"chatcmpl-{len(script.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "scripted"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        thread.join(timeout=10)


def run(bundle: Path, task_id: str, replies: list[str], script: Script, url: str) -> Any:
    """One episode through verifiers' own entry points: env.serving(), then run_episode."""
    script.replies = list(replies)
    env = load_environment(bundle, max_turns=12)
    task = next(t for t in env.taskset if t.data.task_id == task_id)
    ctx = vf.ModelContext(model="scripted", client=vf.EvalClientConfig(base_url=url, api_key_var="SCRIPTED_KEY"))

    async def episode() -> Any:
        async with env.serving():
            return await env.run_episode(task, ctx)

    return asyncio.run(episode())


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Script, str]]:
    monkeypatch.setenv("SCRIPTED_KEY", "not-a-secret")
    s = Script()
    with scripted_model(s) as url:
        yield s, url


def reward_of(episode: Any) -> float:
    assert episode.ok, episode.errors
    (trace,) = episode.traces
    assert trace.reward == trace.rewards["synthenv_reward"].value  # the one reward of the episode
    return float(trace.rewards["synthenv_reward"].score)


def test_reference_solution_scores_one_and_nothing_scores_zero(store_bundle: Path, script: tuple[Script, str]) -> None:
    s, url = script
    env = Environment.from_bundle(store_bundle)
    task = next(t for t in env.tasks if t.solution)
    replies = [json.dumps(call.model_dump()) for call in task.solution] + [json.dumps({"answer": task.answer})]
    episode = run(store_bundle, task.id, replies, s, url)
    assert reward_of(episode) == 1.0
    first = s.requests[0]["messages"][-1]["content"]
    assert task.instruction in first and '"answer"' not in json.dumps(episode.task.data.model_dump())
    # The model saw each tool result as the next user turn.
    assert len(s.requests) == len(replies)
    s.requests.clear()
    episode = run(store_bundle, task.id, [json.dumps({"answer": None})], s, url)
    assert reward_of(episode) == 0.0
    # A reply that is not an action is answered with an error turn and costs no environment step.
    episode = run(store_bundle, task.id, ["let me think", json.dumps({"answer": None})], s, url)
    assert reward_of(episode) == 0.0 and episode.traces[0].metrics["synthenv_steps"] == 1.0


def test_procedural_bundle_single_turn(tmp_path: Path, script: tuple[Script, str]) -> None:
    s, url = script
    bundle: Bundle = build_procedural_bundle(["gcd_lcm"], tmp_path / "proc", n=3, seed=0)
    item = bundle.read_jsonl("tasks.jsonl")[0]
    assert reward_of(run(bundle.path, item["id"], [f"<answer>{item['answer']}</answer>"], s, url)) == 1.0
    assert item["question"] in s.requests[0]["messages"][-1]["content"]
    assert reward_of(run(bundle.path, item["id"], [""], s, url)) == 0.0
