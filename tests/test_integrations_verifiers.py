"""verifiers: its own episode runner drives a bundle with a scripted model behind a loopback endpoint."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
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
from pipeline.surface import ANSWER_TOOL, surface_of


class Script:
    """Replies an OpenAI-compatible endpoint gives, in order (one list per episode)."""

    def __init__(self) -> None:
        self.replies: list[str] = []
        self.requests: list[dict[str, Any]] = []

    def reply(self, body: dict[str, Any]) -> str:
        return self.replies.pop(0) if self.replies else ""


@contextlib.contextmanager
def scripted_model(script: Script) -> Iterator[str]:
    """A loopback chat-completions endpoint replaying ``script`` (the model behind verifiers' client)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            script.requests.append(body)
            text = script.reply(body)
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
        server.server_close()
        thread.join(timeout=10)


def run(bundle: Path, task_id: str, replies: list[str], script: Script, url: str, max_turns: int = 12) -> Any:
    """One episode through verifiers' own entry points: env.serving(), then run_episode."""
    script.replies = list(replies)
    env = load_environment(bundle, max_turns=max_turns)
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


def _call(tool: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"tool": tool, "arguments": arguments})


def _answer(answer: Any) -> str:
    return _call(ANSWER_TOOL, {"answer": answer if isinstance(answer, str) else json.dumps(answer)})


def test_reference_solution_scores_one_and_nothing_scores_zero(store_bundle: Path, script: tuple[Script, str]) -> None:
    s, url = script
    env = Environment.from_bundle(store_bundle)
    surface = surface_of(env)
    task = next(t for t in env.tasks if t.solution)
    replies = [_call(*surface.call(c.tool, dict(c.arguments))) for c in task.solution]
    replies.append(_answer(task.answer))
    episode = run(store_bundle, task.id, replies, s, url)
    assert reward_of(episode) == 1.0
    messages = s.requests[0]["messages"]
    # The surface's system text, then its tools (one JSON object a line) and the task.
    assert messages[0] == {"role": "system", "content": surface.system}
    first = messages[-1]["content"]
    lines = first.split("\n")
    assert [json.loads(line) for line in lines[1 : 1 + len(surface.tools)]] == surface.tools
    assert first.endswith("Task: " + task.instruction) and '"answer"' not in json.dumps(episode.task.data.model_dump())
    assert len(s.requests) == len(replies)  # each tool result was the next user turn
    s.requests.clear()
    episode = run(store_bundle, task.id, [_answer("")], s, url)
    assert reward_of(episode) == 0.0
    # A reply that is not an action is answered with an error turn and costs no environment step.
    episode = run(store_bundle, task.id, ["let me think", json.dumps({"answer": None})], s, url)
    assert reward_of(episode) == 0.0 and episode.traces[0].metrics["synthenv_steps"] == 1.0


def test_the_turn_budget_is_a_step_limit(store_bundle: Path, script: tuple[Script, str]) -> None:
    """``max_turns`` replies at most, each spending a step of the episode's StepLimit (an unreadable
    reply too, though it reaches no environment step): an answer past the budget is never read."""
    s, url = script
    env = Environment.from_bundle(store_bundle)
    surface = surface_of(env)
    task = next(t for t in env.tasks if len(t.solution) == 1)
    (call,) = [_call(*surface.call(c.tool, dict(c.arguments))) for c in task.solution]
    assert reward_of(run(store_bundle, task.id, [call, _answer(task.answer)], s, url, max_turns=2)) == 1.0
    s.requests.clear()
    episode = run(store_bundle, task.id, [call, call, _answer(task.answer)], s, url, max_turns=2)
    assert reward_of(episode) == 0.0 and episode.traces[0].metrics["synthenv_steps"] == 2.0
    assert len(s.requests) == 2  # the step that spent the budget ended the episode: no third reply
    episode = run(store_bundle, task.id, ["let me think", call, _answer(task.answer)], s, url, max_turns=2)
    assert reward_of(episode) == 0.0 and episode.traces[0].metrics["synthenv_steps"] == 1.0
    with pytest.raises(ValueError, match="max_turns"):
        load_environment(store_bundle, max_turns=0)


def test_the_episode_reads_as_in_every_other_adapter(store_bundle: Path, script: tuple[Script, str]) -> None:
    """System text, tools, instruction and observation texts are the reference transcript's
    (``pipeline/surface/transcript.py``; TRL, Gymnasium and evaluate are held to it in tests/test_surface.py)."""
    from pipeline.surface.transcript import expected_transcript

    s, url = script
    env = Environment.from_bundle(store_bundle)
    surface = surface_of(env)
    task = next(t for t in env.tasks if any(c.tool.startswith("list_") for c in t.solution) and t.answer is not None)
    calls = [surface.call(c.tool, dict(c.arguments)) for c in task.solution]
    calls += [
        ("get_order", {"id": "not a number"}),
        (ANSWER_TOOL, {"answer": json.loads(_answer(task.answer))["arguments"]["answer"]}),
    ]
    want = expected_transcript(env, task.id, calls)
    assert reward_of(run(store_bundle, task.id, [_call(n, a) for n, a in calls], s, url)) == 1.0
    first = s.requests[0]["messages"]
    assert first[0]["content"] == want.system
    opening = first[-1]["content"].split("\n")
    assert [json.loads(line) for line in opening[1 : 1 + len(want.tools)]] == want.tools
    assert first[-1]["content"].endswith("Task: " + want.instruction)
    shown = [r["messages"][-1]["content"] for r in s.requests[1:]]
    assert shown == want.observations[:-1]  # the answer ends the episode: no turn after it


def test_verdict_on_another_task_is_never_scored(
    store_bundle: Path, script: tuple[Script, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verdict naming another task than the assigned one fails the episode (left out, not trained on)."""
    import pipeline.integrations.verifiers as adapter

    s, url = script
    real = adapter._template

    class Stamped:
        def __init__(self, env: Any) -> None:
            self.env = env

        def __getattr__(self, name: str) -> Any:
            return getattr(self.env, name)

        def __copy__(self) -> Stamped:
            import copy

            return Stamped(copy.copy(self.env))

        def step(self, action: Any) -> Any:
            obs, _reward, terminated, truncated, info = self.env.step(action)
            if "verification" in info:
                info["verification"] = {**info["verification"], "status": "passed", "task_id": "another"}
            return obs, 1.0, terminated, truncated, info

    monkeypatch.setattr(adapter, "_template", lambda bundle: Stamped(real(bundle)))
    task = Environment.from_bundle(store_bundle).tasks[0]
    episode = run(store_bundle, task.id, [_answer(task.answer)], s, url)
    assert not episode.ok


@pytest.mark.slow
def test_vf_eval_runs_the_bundle_by_its_plugin_name(store_bundle: Path, tmp_path: Path) -> None:
    """``vf-eval synthenv``: verifiers imports ``synthenv`` (installed from pipeline/integrations/plugins)
    and plays every task; a model that replays each reference solution through the surface's tools scores 1."""
    import subprocess
    import sys

    env = Environment.from_bundle(store_bundle)
    surface = surface_of(env)
    plans = {
        t.instruction: [_call(*surface.call(c.tool, dict(c.arguments))) for c in t.solution] + [_answer(t.answer)]
        for t in env.tasks
    }

    class Reference(Script):
        def reply(self, body: dict[str, Any]) -> str:
            msgs = body["messages"]
            first = next(m["content"] for m in msgs if m["role"] == "user")
            plan = next(v for k, v in plans.items() if first.endswith("Task: " + k))
            n = sum(m["role"] == "assistant" for m in msgs)
            return plan[n] if n < len(plan) else ""

    plugins = Path(adapter_file()).parent / "plugins"
    with scripted_model(Reference()) as url:
        vf_eval = str(Path(sys.executable).parent / "vf-eval")
        cmd = [vf_eval, "synthenv", "--env.taskset.bundle", str(store_bundle), "--no-push", "-m", "scripted"]
        cmd += [
            "--client.base-url",
            url,
            "--client.api-key-var",
            "SCRIPTED_KEY",
            "-c",
            "4",
            "-o",
            str(tmp_path / "runs"),
        ]
        # PYTHONPATH stands in for an install made before the `synthenv` import name existed.
        out = subprocess.run(
            cmd,
            env={**os.environ, "SCRIPTED_KEY": "not-a-secret", "PYTHONPATH": str(plugins)},
            capture_output=True,
            text=True,
            timeout=1800,
        )
    assert out.returncode == 0, out.stderr[-3000:]
    rows = [json.loads(line) for p in (tmp_path / "runs").rglob("traces.jsonl") for line in p.read_text().splitlines()]
    assert len(rows) == len(env.tasks) and all(r["ok"] for r in rows)
    scores = [trace["rewards"]["synthenv_reward"]["score"] for r in rows for trace in r["traces"]]
    assert scores == [1.0] * len(env.tasks)


def adapter_file() -> str:
    import pipeline.integrations.verifiers as adapter

    return str(adapter.__file__)


def test_procedural_bundle_single_turn(tmp_path: Path, script: tuple[Script, str]) -> None:
    s, url = script
    bundle: Bundle = build_procedural_bundle(["gcd_lcm"], tmp_path / "proc", n=3, seed=0)
    item = bundle.read_jsonl("tasks.jsonl")[0]
    assert reward_of(run(bundle.path, item["id"], [f"<answer>{item['answer']}</answer>"], s, url)) == 1.0
    assert (
        s.requests[0]["messages"][-1]["content"] == item["question"]
        or item["question"] in s.requests[0]["messages"][-1]["content"]
    )
    assert reward_of(run(bundle.path, item["id"], [""], s, url)) == 0.0


def test_the_default_turn_budget_leaves_room_beyond_every_reference() -> None:
    """The adapter's default ``max_turns`` fits the longest reference a task may have, half again, and
    an answer (:data:`pipeline.tasks.model.MAX_REFERENCE_CALLS`)."""
    from pipeline.integrations.verifiers import BundleEnvConfig
    from pipeline.tasks.model import MAX_REFERENCE_CALLS

    assert BundleEnvConfig.model_fields["max_turns"].default >= MAX_REFERENCE_CALLS * 3 // 2 + 1
