"""``synthenv evaluate --llm``: the real client (litellm over HTTP) against scripted tool-calling policies.

The fake OpenAI-compatible server plays four policies through real tool calls: one that
follows the reference solution, one that answers at once, one that only emits malformed
tool calls, and one that never answers in time. Each must give its expected pass rates,
with the time-outs counted as infrastructure errors, not failures.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from llm_helpers import fake_settings

from pipeline.bundle.format import load_bundle
from pipeline.evaluate.config import EvalConfig
from pipeline.jobs.evaluate import Target, evaluate

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("litellm") is None, reason="the 'llm' extra (litellm) is not installed"
)
SUBSET = "lookup:1-2,update:1-2"


def answer_text(answer: Any) -> str:
    if answer is None:
        return "done"
    if isinstance(answer, list):
        return "\n".join(map(str, answer))
    return answer if isinstance(answer, str) else json.dumps(answer)


def call(name: str, arguments: str, cid: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": cid, "name": name, "arguments": arguments}]}


def reference_follower(bundle: Path) -> Any:
    """Recognises the task by its instruction and plays its reference solution, one call per turn."""
    tasks = {t["instruction"]: t for t in load_bundle(bundle).read_jsonl("tasks.jsonl")}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        task = tasks[body["messages"][1]["content"]]
        done = sum(1 for m in body["messages"] if m["role"] == "assistant" and m.get("tool_calls"))
        if done < len(task["solution"]):
            step = task["solution"][done]
            return call(step["tool"], json.dumps(step["arguments"]), f"c{done}")
        return call("submit_answer", json.dumps({"answer": answer_text(task["answer"])}), "final")

    return answer


def run(fake: FakeLLM, bundle: Path, tmp: Path, name: str, config: EvalConfig, **kw: Any) -> dict[str, Any]:
    """Each scripted model keeps its own reply cache (the cache key names the model, not the server)."""
    cache = tmp / ("cache-" + name.split("-")[0])
    settings = fake_settings(fake.url, cache, timeout=config.request_timeout, retries=config.retries, temperature=0.0)
    kw.setdefault("tasks", SUBSET)
    return evaluate(Target(str(bundle)), settings=settings, config=config, out=tmp / name, **kw)


def test_scripted_models_give_their_expected_pass_rates_with_k_4(store_bundle: Path, tmp_path: Path) -> None:
    config = EvalConfig(max_steps=8, retries=0, request_timeout=20)
    with FakeLLM({"evaluate": [reference_follower(store_bundle)] * 500}) as fake:
        good = run(fake, store_bundle, tmp_path, "reference", config, trials=4, concurrency=4)
        sent = len(fake.requests)
    r = good["report"]
    assert r["overall"]["pass_at_1"] == 1.0 and r["overall"]["pass_at_k"] == 1.0
    assert r["overall"]["pass_hat_k"] == 1.0 and r["errors"]["total"] == 0 and r["overall"]["episodes"] == 16
    assert r["overall"]["mean_tool_errors"] == 0.0
    assert good["usage"]["calls"] == sent and good["usage"]["cached"] == 0
    assert all(body["tools"][-1]["function"]["name"] == "submit_answer" for _, body in fake.requests)
    # Every trial is its own request (and cache entry): the same conversation four times.
    first_turns = [b for _, b in fake.requests if len(b["messages"]) == 2]
    assert len(first_turns) == 16

    # A rerun from the cache into a new run directory sends nothing and reports the same.
    with FakeLLM({}) as silent:
        again = run(silent, store_bundle, tmp_path, "reference-again", config, trials=4)
        assert silent.requests == []
    assert again["report"] == good["report"] and again["usage"]["cached"] == again["usage"]["calls"]

    at_once = call("submit_answer", json.dumps({"answer": "0"}), "a")
    with FakeLLM({"evaluate": [at_once] * 100}) as fake:
        hasty = run(fake, store_bundle, tmp_path, "hasty", config, trials=2, tasks="lookup:0-2")["report"]
    assert hasty["overall"]["pass_at_1"] == 0.0 and hasty["overall"]["mean_steps"] == 1.0

    broken = call("get_order", '{"id": 1', "m")  # arguments that are not JSON
    with FakeLLM({"evaluate": [broken] * 200}) as fake:
        cfg = config.with_overrides(max_steps=3)
        sloppy = run(fake, store_bundle, tmp_path, "sloppy", cfg, trials=2, tasks="lookup:0-2")["report"]
    assert sloppy["overall"]["pass_at_1"] == 0.0 and sloppy["errors"]["total"] == 0
    assert sloppy["overall"]["mean_steps"] == 3.0 and sloppy["overall"]["mean_tool_errors"] == 3.0


def test_time_outs_are_infrastructure_errors_never_failures(store_bundle: Path, tmp_path: Path) -> None:
    config = EvalConfig(retries=0, request_timeout=0.5)
    with FakeLLM({"evaluate": [{"sleep": 1.5, "content": "too late"}] * 40}) as fake:
        slow = run(fake, store_bundle, tmp_path, "slow", config, trials=2, concurrency=4)
    r = slow["report"]
    assert r["errors"]["total"] == 8 and r["errors"]["by_cause"] == {"provider": 8}
    assert r["overall"]["pass_at_1"] is None and r["overall"]["episodes"] == 0
    rows = [json.loads(x) for x in (Path(slow["out"]) / "trajectories.jsonl").read_text().splitlines()]
    assert sum(1 for x in rows if x["status"] == "error") == 8
    # The provider is back: a resume replays the errored episodes only.
    with FakeLLM({"evaluate": [reference_follower(store_bundle)] * 200}) as fake:
        back = run(fake, store_bundle, tmp_path, "slow", config.with_overrides(), trials=2, concurrency=4)
    assert back["timing"]["episodes_played"] == 8 and back["report"]["errors"]["total"] == 0
    assert back["report"]["overall"]["pass_at_1"] == 1.0


def test_the_log_keeps_what_the_model_wrote_with_each_step(store_bundle: Path, tmp_path: Path) -> None:
    """The model's text goes on the row of the step it came with, with the model and the rollout."""
    follow = reference_follower(store_bundle)

    def talkative(body: dict[str, Any]) -> dict[str, Any]:
        reply = follow(body)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return {**reply, "content": f"thinking about step {turn}"}

    config = EvalConfig(max_steps=8, retries=0, request_timeout=20)
    with FakeLLM({"evaluate": [talkative] * 50}) as fake:
        result = run(fake, store_bundle, tmp_path, "talkative", config, tasks="lookup:1")
    rows = [json.loads(x) for x in (Path(result["out"]) / "trajectories.jsonl").read_text().splitlines()]
    steps = [r for r in rows if r["action"] is not None]
    assert steps and all(r["model_text"] == f"thinking about step {i}" for i, r in enumerate(steps))
    assert {r["model"] for r in rows} == {fake_settings(fake.url, tmp_path).model}
    assert {r["rollout_id"] for r in rows} == {f"{rows[0]['task_id']}/0"}
