"""Both bundle kinds through the Gymnasium wrapper: Gymnasium's own checker, and info that never aliases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

from pipeline.integrations.episode import EPISODE_OVER_TEXT  # noqa: E402
from pipeline.integrations.gymnasium import BundleGymEnv  # noqa: E402
from pipeline.package.procedural import build_procedural_bundle  # noqa: E402
from pipeline.surface import surface_of  # noqa: E402


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
    assert env.observation_space.contains(obs) and obs["instruction"] == obs["observation"] == env.env.task.instruction
    same, _ = env.reset(seed=0)
    assert same == obs
    obs, reward, terminated, _, _ = env.step('{"tool": "get_order", "arguments": {"id": 1}}')
    assert json.loads(obs["observation"])["id"] == 1 and reward == 0.0 and not terminated
    obs, _, terminated, _, _ = env.step("not json")
    assert obs["observation"].startswith("error: ") and not terminated
    _, reward, terminated, _, info = env.step('{"tool": "submit_answer", "arguments": {"answer": "no idea"}}')
    assert terminated and reward == 0.0 and info["verification"]["status"] == "failed"
    env.close()


def test_first_verdict_stands(store_bundle: Path) -> None:
    env = BundleGymEnv(store_bundle)
    task = next(t for t in env.env.tasks if t.answer is not None)
    env.reset(seed=0, options={"task_id": task.id})
    surface = surface_of(env.env)
    for call in task.solution:
        name, arguments = surface.call(call.tool, dict(call.arguments))
        env.step(json.dumps({"tool": name, "arguments": arguments}))
    answer = task.answer if isinstance(task.answer, str) else json.dumps(task.answer)
    _, reward, terminated, _, _ = env.step(json.dumps({"tool": "submit_answer", "arguments": {"answer": answer}}))
    assert terminated and reward == 1.0 == env.reward
    for late in ('{"tool": "get_order", "arguments": {"id": 1}}', '{"answer": "wrong"}'):
        obs, reward, terminated, _, info = env.step(late)
        assert obs["observation"] == EPISODE_OVER_TEXT and reward == 0.0 and terminated and info["episode_over"]
    assert env.reward == 1.0
    assert not {t["name"] for t in env.tools} & {"reset", "synthenv_reset"}


def test_make_by_id_and_module_form(store_bundle: Path, tmp_path: Path) -> None:
    """``gymnasium.make`` with the registered id or the ``module:id`` form, a path or a registry ref."""
    from pipeline.registry.registry import publish

    registry = str(tmp_path / "registry")
    publish(store_bundle, registry=registry)
    name = BundleGymEnv(store_bundle).env.bundle.name
    env = gymnasium.make("pipeline.integrations.gymnasium:synthenv/Bundle-v0", ref=f"{name}@latest", registry=registry)
    assert env.unwrapped.env.bundle.name == name
    limited = gymnasium.make("synthenv/Bundle-v0", ref=str(store_bundle), max_episode_steps=2)
    limited.reset(seed=0)
    limited.step('{"tool": "get_order", "arguments": {"id": 1}}')
    _, _, terminated, truncated, _ = limited.step('{"tool": "get_order", "arguments": {"id": 2}}')
    assert truncated and not terminated and limited.unwrapped.reward == 0.0


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
