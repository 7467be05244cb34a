"""The LLM commands through their real Prefect flows (a temporary local server each), as a user runs them."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakellm import FakeLLM
from llm_helpers import HERE

from pipeline.jobs.scenario import ScenarioOptions, generate_scenario
from pipeline.llm.client import LLMSettings
from pipeline.llm.scenario import parse_scenario
from pipeline.tasks.check import check_bundle

pytestmark = [
    pytest.mark.prefect,
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("litellm") is None, reason="the 'llm' extra (litellm) is not installed"
    ),
]
FLORIST = "Florist: a flower shop taking bouquet orders and delivering them"


def synthenv(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PREFECT_HOME": str(tmp / "prefect-home")}
    return subprocess.run(
        [sys.executable, "-m", "pipeline.cli.main", *args], capture_output=True, text=True, env=env, timeout=900
    )


def test_generate_from_a_scenario_runs_the_flow_and_replays_offline_to_the_same_bytes(
    tmp_path: Path, florist_text: str
) -> None:
    with FakeLLM({"blueprint": [{"status": 429}, {"content": florist_text}]}) as fake:
        proc = synthenv(
            tmp_path,
            "generate",
            "--scenario",
            FLORIST,
            "--llm",
            "openai/gpt-4o-mini",
            "--llm-base-url",
            fake.url,
            "--llm-cache",
            str(tmp_path / "cache"),
            "--tasks-per-family",
            "2",
            "--out",
            str(tmp_path / "out"),
            "--json",
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    for step in ("design", "schema", "populate", "tools", "tasks", "refine", "package"):
        assert step in proc.stderr and summary["seconds"][step] >= 0
    assert summary["llm"]["steps"]["blueprint"]["attempts"] == 2
    assert check_bundle(summary["path"]).ok
    settings = LLMSettings(model="openai/gpt-4o-mini", cache_dir=str(tmp_path / "cache"), offline=True)
    plain = generate_scenario(
        parse_scenario(FLORIST), settings, ScenarioOptions(tasks_per_family=2), tmp_path / "plain", tmp_path / "w"
    )
    assert plain["digest"] == summary["digest"]


def test_a_batch_of_scenarios_runs_the_flow(tmp_path: Path, florist_text: str) -> None:
    lines = [
        {"name": "Florist", "description": "A flower shop taking bouquet orders and delivering them"},
        {"name": "Library", "description": "A public library lending books to members"},
        {"name": "Flower shop", "description": "A florist taking bouquet orders and delivering them"},
    ]
    file = tmp_path / "scenarios.jsonl"
    file.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")

    def by_name(body: dict) -> dict:
        florist = "name: Florist\n" in body["messages"][1]["content"]
        return {"content": florist_text if florist else (HERE / "library.json").read_text(encoding="utf-8")}

    with FakeLLM({"blueprint": [by_name, by_name]}) as fake:
        proc = synthenv(
            tmp_path,
            "batch",
            "--scenarios",
            str(file),
            "--llm",
            "openai/gpt-4o-mini",
            "--llm-base-url",
            fake.url,
            "--llm-passes",
            "vocab",
            "--tasks-per-family",
            "1",
            "--workers",
            "2",
            "--registry",
            str(tmp_path / "reg"),
            "--json",
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    s = json.loads(proc.stdout)
    assert {r["scenario"]: r["status"] for r in s["results"]} == {
        "Florist": "published",
        "Library": "published",
        "Flower shop": "rejected",
    }
    assert s["llm"]["steps"]["blueprint"]["calls"] == 2 and s["llm"]["steps"]["vocab"]["calls"] >= 1
    assert (tmp_path / "reg" / ".llm-cache").is_dir()  # the default cache lives under the registry
