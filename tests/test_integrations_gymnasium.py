"""Both bundle kinds through the Gymnasium wrapper: Gymnasium's own checker, and info that never aliases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from pipeline.integrations.gymnasium import BundleGymEnv  # noqa: E402
from pipeline.package.procedural import build_procedural_bundle  # noqa: E402


@pytest.fixture(scope="module")
def procedural(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(build_procedural_bundle(["gcd_lcm", "maze"], tmp_path_factory.mktemp("proc"), n=8, seed=0).path)


def test_a_tool_use_bundle_passes_check_env(store_bundle: Path) -> None:
    env = BundleGymEnv(store_bundle)
    check_env(env, skip_render_check=True)
    assert isinstance(env, gymnasium.Env)


def test_a_procedural_bundle_passes_check_env(procedural: Path) -> None:
    check_env(BundleGymEnv(procedural), skip_render_check=True)


def test_an_episode_through_the_wrapper(store_bundle: Path) -> None:
    env = BundleGymEnv(store_bundle)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and obs["instruction"] == json.loads(obs["observation"])["instruction"]
    same, _ = env.reset(seed=0)
    assert same == obs
    obs, reward, terminated, _, _ = env.step('{"tool": "get_order", "arguments": {"id": 1}}')
    assert json.loads(obs["observation"])["type"] == "tool_result" and reward == 0.0 and not terminated
    obs, _, terminated, _, _ = env.step("not json")
    assert json.loads(obs["observation"])["type"] == "error" and not terminated
    _, reward, terminated, _, info = env.step('{"answer": "no idea"}')
    assert terminated and reward == 0.0 and info["verification"]["status"] == "failed"
    env.close()


def test_info_never_aliases_the_environment(store_bundle: Path, procedural: Path) -> None:
    env = BundleGymEnv(store_bundle)
    _, info = env.reset(seed=1)
    weights = json.dumps(env.env.reward_weights, sort_keys=True)
    knobs = json.dumps(env.env.task.knobs, sort_keys=True)
    info["reward_weights"].clear()
    info["knobs"]["poisoned"] = True
    _, again = env.reset(seed=1)
    assert json.dumps(env.env.reward_weights, sort_keys=True) == weights
    assert json.dumps(again["knobs"], sort_keys=True) == knobs == json.dumps(env.env.task.knobs, sort_keys=True)
    proc = BundleGymEnv(procedural)
    _, info = proc.reset(seed=0)
    info["knobs"]["poisoned"] = True
    assert "poisoned" not in (proc.reset(seed=0)[1]["knobs"] or {})


def test_procedural_answers_are_scored(procedural: Path) -> None:
    env = BundleGymEnv(procedural)
    env.reset(seed=0, options={"task_id": env.env.tasks[0]["id"]})
    _, reward, terminated, _, info = env.step(env.env.tasks[0]["answer"])
    assert terminated and reward == 1.0 and info["verification"]["status"] == "passed"
