"""The whole LLM path against a scripted OpenAI-compatible server on a loopback port.

The real client (litellm over HTTP) talks to :mod:`fakellm`, which answers each step from
a script: the blueprint correction loop, retries, drops, paraphrase and proposal checks.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fakellm import FakeLLM
from llm_helpers import HERE, fake_settings

from pipeline.jobs.scenario import ScenarioOptions, generate_scenario
from pipeline.llm.scenario import parse_scenario
from pipeline.tasks.check import check_bundle

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("litellm") is None, reason="the 'llm' extra (litellm) is not installed"
)

FLORIST = "Florist: a flower shop taking bouquet orders and delivering them"
QUICK = ScenarioOptions(passes=(), tasks_per_family=2)


def run(fake: FakeLLM, tmp: Path, options: ScenarioOptions = QUICK, **settings: Any) -> dict[str, Any]:
    return generate_scenario(
        parse_scenario(FLORIST), fake_settings(fake.url, tmp / "cache", **settings), options, tmp / "out", tmp / "work"
    )


def blueprint_requests(fake: FakeLLM) -> list[dict[str, Any]]:
    return [body for step, body in fake.requests if step == "blueprint"]


def cache_keys_on_disk(cache: Path) -> set[str]:
    return {p.stem for p in cache.glob("*/*.json")}


# -- the blueprint loop -----------------------------------------------------------------------


def test_a_valid_blueprint_is_built_and_proven_on_the_first_attempt(tmp_path: Path, florist_text: str) -> None:
    with FakeLLM({"blueprint": [{"content": florist_text}]}) as fake:
        s = run(fake, tmp_path)
    assert s["status"] == "built" and s["blueprint_attempts"] == 1
    assert s["llm"]["steps"]["blueprint"]["calls"] == 1 and s["llm"]["steps"]["blueprint"]["attempts"] == 1
    assert s["llm"]["total"]["cost_usd"] > 0  # gpt-4o-mini is in litellm's local cost map
    report = check_bundle(s["path"])
    assert report.ok and report.tasks == s["tasks"] > 0
    manifest = json.loads((Path(s["path"]) / "manifest.json").read_text(encoding="utf-8"))
    llm = manifest["lineage"]["llm"]
    assert llm["model"] == "openai/gpt-4o-mini" and llm["scenario"]["name"] == "Florist"
    assert set(llm["cache_keys"]["blueprint"]) == cache_keys_on_disk(tmp_path / "cache")


def test_invalid_json_then_a_corrected_reply_converges(tmp_path: Path, florist_text: str) -> None:
    broken = "```json\n" + florist_text[:300]
    with FakeLLM({"blueprint": [{"content": broken}, {"content": florist_text}]}) as fake:
        s = run(fake, tmp_path)
        second = blueprint_requests(fake)[1]["messages"]
    assert s["status"] == "built" and s["blueprint_attempts"] == 2
    assert second[-2] == {"role": "assistant", "content": broken}
    assert "invalid JSON" in second[-1]["content"] and "whole corrected blueprint" in second[-1]["content"]


def test_a_broken_semantic_rule_is_caught_fed_back_and_fixed(tmp_path: Path, florist: dict[str, Any]) -> None:
    wrong = copy.deepcopy(florist)
    wrong["entities"][2]["fields"][1]["ref"] = "client"  # no such entity
    wrong["entities"][0]["label"] = "nickname"  # no such field
    with FakeLLM({"blueprint": [{"content": json.dumps(wrong)}, {"content": json.dumps(florist)}]}) as fake:
        s = run(fake, tmp_path)
        fed_back = blueprint_requests(fake)[1]["messages"][-1]["content"]
    assert s["status"] == "built" and s["blueprint_attempts"] == 2
    assert "label 'nickname' is not one of its fields" in fed_back


def test_a_scenario_that_never_validates_is_dropped_with_reasons_and_nothing_written(
    tmp_path: Path, florist: dict[str, Any]
) -> None:
    cyclic = copy.deepcopy(florist)
    cyclic["entities"][0]["fields"].append({"name": "favourite_order_id", "type": "ref", "ref": "flower_order"})
    script = [{"content": "I cannot help with that."}, {"content": json.dumps(cyclic)}, {"content": "{}"}]
    with FakeLLM({"blueprint": script}) as fake:
        s = run(fake, tmp_path, ScenarioOptions(passes=(), attempts=3))
        asked = fake.count("blueprint")
    assert s["status"] == "dropped" and s["path"] is None and s["digest"] is None
    assert asked == 3 and s["blueprint_attempts"] == 3
    assert len(s["reasons"]) == 3
    assert "no JSON object" in s["reasons"][0]
    assert "references form a cycle" in s["reasons"][1]
    assert "'entities' is a required property" in s["reasons"][2]
    assert not (tmp_path / "out").exists()
    assert len(cache_keys_on_disk(tmp_path / "cache")) == 3  # the replies are cached: a replay drops it the same way


# -- transport failures --------------------------------------------------------------------------


def test_rate_limits_and_timeouts_are_retried_with_backoff(tmp_path: Path, florist_text: str) -> None:
    script = [{"status": 429}, {"sleep": 3.0, "content": florist_text}, {"status": 503}, {"content": florist_text}]
    with FakeLLM({"blueprint": script}) as fake:
        s = run(fake, tmp_path, timeout=1.0)
    usage = s["llm"]["steps"]["blueprint"]
    assert s["status"] == "built"
    assert (usage["calls"], usage["attempts"]) == (1, 4)


def test_errors_that_cannot_pass_are_not_retried_and_exhausted_retries_stop(tmp_path: Path) -> None:
    from pipeline.llm.client import ProviderError

    with FakeLLM({"blueprint": [{"status": 400, "message": "bad request"}]}) as fake, pytest.raises(ProviderError) as e:
        run(fake, tmp_path)
    assert fake.count("blueprint") == 1 and not e.value.transient and "after 1 attempt" in str(e.value)
    with FakeLLM({"blueprint": [{"status": 429}] * 5}) as fake, pytest.raises(ProviderError) as e:
        run(fake, tmp_path, retries=2)
    assert fake.count("blueprint") == 3 and e.value.transient and "after 3 attempt" in str(e.value)


# -- paraphrases and proposals --------------------------------------------------------------------


def drop_numbers_of_the_first(body: dict[str, Any]) -> dict[str, Any]:
    """Paraphrase every task, but lose the numbers of the first one (an id, a threshold…)."""
    tasks = json.loads(body["messages"][1]["content"])["tasks"]
    out = []
    for i, t in enumerate(tasks):
        text = "Could you help me? " + t["instruction"]
        out.append({"id": t["id"], "instruction": re.sub(r"\d", "", text) if i == 0 else text})
    return {"content": json.dumps({"paraphrases": out})}


def proposals(body: dict[str, Any]) -> dict[str, Any]:
    """Three tasks that replay as claimed and six that do not, built from the rows the request shows."""
    rows = json.loads(body["messages"][1]["content"].split("Some rows of each table:\n", 1)[1])
    bouquet, customer = rows["bouquets"][0], rows["customers"][0]
    read = {
        "instruction": f'How many stems does the bouquet "{bouquet["title"]}" have?',
        "level": 1,
        "calls": [{"tool": "list_bouquets", "arguments": {"title": bouquet["title"]}}],
        "answer": {"kind": "number", "expected": bouquet["stems"], "pointer": "/items/0/stems"},
        "grounding": [{"tool": "list_bouquets", "arguments": {"title": bouquet["title"]}, "total": 1}],
    }
    write = {
        "instruction": f"Customer {customer['email']} moved: set their city to Springfield.",
        "level": 2,
        "calls": [
            {"tool": "list_customers", "arguments": {"email": customer["email"]}},
            {"tool": "update_customer", "arguments": {"id": customer["id"], "city": "Springfield"}},
        ],
        "changes": [
            {
                "table": "customers",
                "op": "update",
                "key": {"email": customer["email"]},
                "values": {"city": "Springfield"},
            }
        ],
        "grounding": [{"tool": "list_customers", "arguments": {"email": customer["email"]}, "total": 1}],
    }
    missing_row = {
        "instruction": "What is the price of bouquet number 99999?",
        "calls": [{"tool": "get_bouquet", "arguments": {"id": 99999}}],
        "answer": {"kind": "number", "expected": 10, "pointer": "/price"},
    }
    wrong_answer = {
        **read,
        "instruction": read["instruction"] + " Count carefully.",
        "answer": {**read["answer"], "expected": bouquet["stems"] + 1},
    }
    no_such_tool = {**write, "instruction": "Wipe every customer.", "calls": [{"tool": "drop_table", "arguments": {}}]}
    wrong_changes = {
        **write,
        "instruction": write["instruction"] + " Thanks!",
        "changes": [{**write["changes"][0], "values": {"city": "Elsewhere"}}],
    }
    blind_refusal = {
        "instruction": "Please delete the moon from the catalogue.",
        "calls": [],
        "answer": {"kind": "refuse"},
    }
    search = {"tool": "list_flower_orders", "arguments": {"order_code": "ORD-000000"}}
    unscoped_refusal = {  # nothing to discover: the name is the instruction's own
        "instruction": "Cancel flower order ORD-000000, please.",
        "calls": [search],
        "answer": {"kind": "refuse"},
        "grounding": [{**search, "total": 0}],
    }
    find = {"tool": "list_customers", "arguments": {"email": customer["email"]}}
    under = {"tool": "list_flower_orders", "arguments": {"customer_id": customer["id"], "order_code": "ORD-000000"}}
    grounded_refusal = {  # the customer exists and has no such order: the refusal names the customer's id
        "instruction": f"Cancel the flower order ORD-000000 of customer {customer['email']}, please.",
        "calls": [find, under],
        "answer": {"kind": "refuse"},
        "grounding": [{**find, "total": 1}, {**under, "total": 0}],
    }
    tasks = [
        read,
        missing_row,
        wrong_answer,
        write,
        no_such_tool,
        wrong_changes,
        blind_refusal,
        unscoped_refusal,
        grounded_refusal,
    ]
    return {"content": json.dumps({"tasks": tasks})}


def test_paraphrases_that_drop_a_value_and_proposals_that_do_not_replay_are_rejected(
    tmp_path: Path, florist_text: str
) -> None:
    scripts = {
        "blueprint": [{"content": florist_text}],
        "paraphrase": [drop_numbers_of_the_first],
        "proposals": [proposals],
    }
    with FakeLLM(scripts) as fake:
        s = run(fake, tmp_path, ScenarioOptions(proposals=9, tasks_per_family=2))
    assert s["status"] == "built"
    assert s["paraphrases"]["rejected"] == {"dropped_value": 1}
    assert s["paraphrases"]["accepted"] == s["tasks"] - 1 - s["proposals"]["kept"]
    assert s["proposals"]["kept"] == 3, s["proposals"]
    assert s["proposals"]["dropped"] == {
        "answer_mismatch": 1,
        "changes_mismatch": 1,
        "reference_failed:invalid_argument": 1,
        "reference_failed:not_found": 1,
        "refusal_unproven": 1,
        "refusal_without_blocker": 1,
    }
    assert s["dropped"]["proposal:answer_mismatch"] == 1
    tasks = [json.loads(line) for line in (Path(s["path"]) / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    first = tasks[0]
    assert re.search(r"\d", first["instruction"]) and not first["instruction"].startswith("Could you help me?")
    assert all(t["instruction"].startswith("Could you help me?") for t in tasks[1:] if t["family"] != "proposed")
    proposed = [t for t in tasks if t["family"] == "proposed"]
    assert [t["id"] for t in proposed] == ["proposed-000", "proposed-001", "proposed-002"]
    refusal = proposed[2]["verifier"]["answer"]
    assert refusal["kind"] == "refuse" and refusal["expected"]["cannot"] == "missing"
    assert json.loads(proposed[2]["answer"]) == refusal["expected"]
    assert proposed[1]["verifier"]["changes"][0]["values"] == {"city": "Springfield"}
    report = check_bundle(s["path"])  # every kept task, proposals included, re-proves from the files alone
    assert report.ok and report.tasks == s["tasks"]


# -- replay -------------------------------------------------------------------------------------------

REPLAY = """
import json, sys
from pathlib import Path
from pipeline.jobs.scenario import ScenarioOptions, generate_scenario
from pipeline.llm.client import LLMSettings
from pipeline.llm.scenario import parse_scenario
root = Path(sys.argv[1])
settings = LLMSettings(model="openai/gpt-4o-mini", cache_dir=str(root / "cache"), offline=True)
s = generate_scenario(parse_scenario(sys.argv[2]), settings, ScenarioOptions(tasks_per_family=2), root / "again",
                      root / "work2")
print(json.dumps({"digest": s["digest"], "llm": s["llm"], "litellm_imported": "litellm" in sys.modules}))
"""


def test_a_replay_from_the_cache_in_another_process_gives_the_same_bytes(tmp_path: Path, florist_text: str) -> None:
    with FakeLLM({"blueprint": [{"content": "{"}, {"content": florist_text}], "proposals": [proposals]}) as fake:
        live = run(fake, tmp_path, ScenarioOptions(tasks_per_family=2))
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    proc = subprocess.run(
        [sys.executable, "-c", REPLAY, str(tmp_path), FLORIST], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    again = json.loads(proc.stdout.strip().splitlines()[-1])
    assert again["digest"] == live["digest"]
    assert not again["litellm_imported"]  # a full replay never loads the client library
    total = again["llm"]["total"]
    assert total["calls"] == total["cached"] == live["llm"]["total"]["calls"] and total["cost_usd"] == 0.0
    a = (Path(live["path"]) / "manifest.json").read_bytes()
    b = (tmp_path / "again" / live["name"] / live["version"] / "manifest.json").read_bytes()
    assert a == b


def test_offline_refuses_a_request_the_cache_cannot_answer(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from pipeline.cli.main import app

    args = ["generate", "--scenario", FLORIST, "--llm", "openai/gpt-4o-mini", "--llm-offline", "--no-prefect"]
    result = CliRunner().invoke(app, [*args, "--llm-cache", str(tmp_path / "empty"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "offline: no cached reply for the blueprint request" in result.output
    assert not (tmp_path / "o").exists()


# -- batch -----------------------------------------------------------------------------------------


def by_scenario(replies: dict[str, list[str]]) -> Any:
    def answer(body: dict[str, Any]) -> dict[str, Any]:
        name = re.search(r"name: (.*)\n", body["messages"][1]["content"]).group(1)
        queue = replies[name]
        return {"content": queue.pop(0) if len(queue) > 1 else queue[0]}

    return answer


def test_a_batch_of_scenarios_builds_drops_and_rejects_each_for_its_reason(tmp_path: Path, florist_text: str) -> None:
    from typer.testing import CliRunner

    from pipeline.cli.main import app

    library = (HERE / "library.json").read_text(encoding="utf-8")
    lines = [
        {"name": "Florist", "description": "A flower shop taking bouquet orders and delivering them"},
        {"name": "Library", "description": "A public library lending books to members"},
        {"name": "Flower shop", "description": "A florist taking bouquet orders and delivering them"},
        {"name": "Bouquets", "description": "Hand-tied flowers, sold and delivered"},
        {"name": "Broken", "description": "A world the model cannot describe"},
    ]
    file = tmp_path / "scenarios.jsonl"
    file.write_text("\n".join([*map(json.dumps, lines), "{not json"]) + "\n", encoding="utf-8")
    replies = {"Florist": [florist_text], "Library": [library], "Bouquets": [florist_text], "Broken": ["nope"]}
    with FakeLLM({"blueprint": [by_scenario(replies)] * 8}) as fake:
        args = ["batch", "--scenarios", str(file), "--llm", "openai/gpt-4o-mini", "--llm-base-url", fake.url]
        args += ["--llm-passes", "none", "--llm-attempts", "2", "--tasks-per-family", "1", "--no-prefect", "--json"]
        args += ["--registry", str(tmp_path / "reg"), "--llm-cache", str(tmp_path / "cache")]
        result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    s = json.loads(result.output.strip().splitlines()[-1])
    status = {r["scenario"]: r["status"] for r in s["results"]}
    assert status == {
        "line 6": "invalid",
        "Florist": "published",
        "Library": "published",
        "Flower shop": "rejected",  # near-duplicate scenario: no request spent on it
        "Bouquets": "rejected",  # a different line, but the same blueprint as Florist
        "Broken": "dropped",
    }
    assert s["counts"]["published"] == 2 and s["ok"]
    rejections = {r["name"]: r for r in s["distinct"]["rejections"]}
    assert s["distinct"]["threshold"] == 0.7
    assert rejections["Flower shop"]["kind"] == "scenario" and rejections["Bouquets"]["kind"] == "blueprint"
    assert rejections["Bouquets"]["similarity"] == 1.0
    assert s["llm"]["steps"]["blueprint"]["calls"] == 5  # Florist, Library, Bouquets, Broken twice
    broken = next(r for r in s["results"] if r["scenario"] == "Broken")
    assert len(broken["reasons"]) == 2 and broken["llm"]["total"]["calls"] == 2
