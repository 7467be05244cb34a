"""Evaluation without a model: metrics on constructed outcomes, the scripted baselines, resume, calibration."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from pipeline.bundle.format import load_bundle
from pipeline.evaluate import trajectory
from pipeline.evaluate.agent import EpisodeStart, Turn, Usage
from pipeline.evaluate.calibrate import calibrate, read_report
from pipeline.evaluate.config import EvalConfig
from pipeline.evaluate.episode import run_episode
from pipeline.evaluate.metrics import TaskOutcome, cell, outcomes_of, pass_at_k, pass_hat_k, wilson
from pipeline.evaluate.runner import read_episodes, select
from pipeline.jobs.evaluate import Target, baselines, evaluate, thread_mapper
from pipeline.runtime.environment import Environment

SUBSET = "lookup:0-2,count:0-1,update:0-1,infeasible:0-1"

# -- metrics, by hand -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "n, c, k, at, hat",
    [
        (4, 2, 2, 1 - 1 / 6, 1 / 6),  # 1 - C(2,2)/C(4,2); C(2,2)/C(4,2)
        (5, 1, 2, 1 - 6 / 10, 0.0),  # 1 - C(4,2)/C(5,2); C(1,2) = 0
        (4, 3, 4, 1.0, 0.0),  # one failure in four: pass@4 certain, pass^4 impossible
        (4, 4, 4, 1.0, 1.0),
        (4, 0, 1, 0.0, 0.0),
        (10, 7, 3, 1 - 1 / 120, 35 / 120),  # 1 - C(3,3)/C(10,3); C(7,3)/C(10,3)
    ],
)
def test_pass_at_k_and_pass_hat_k_match_hand_computed_values(n: int, c: int, k: int, at: float, hat: float) -> None:
    assert math.isclose(pass_at_k(n, c, k), at) and math.isclose(pass_hat_k(n, c, k), hat)


def test_wilson_interval_matches_the_formula_and_rejects_nonsense() -> None:
    lo, hi = wilson(2, 4)
    assert (round(lo, 4), round(hi, 4)) == (0.15, 0.85)
    lo, hi = wilson(0, 4)
    assert lo == 0.0 and round(hi, 4) == 0.4899
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(5, 4)
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 2)


def test_a_cell_on_constructed_outcomes_keeps_errors_and_short_tasks_apart() -> None:
    tasks = [
        TaskOutcome("a", "f", 0, n=4, c=4, steps=8),
        TaskOutcome("b", "f", 0, n=4, c=2, steps=12),
        TaskOutcome("c", "f", 0, n=4, c=0, steps=20, tool_errors=4),
        TaskOutcome("d", "f", 0, n=2, c=2, errors=2, steps=4),  # two trials lost to the provider
    ]
    got = cell(tasks, k=4)
    assert got.tasks == 4 and got.episodes == 14 and got.errors == 2 and got.incomplete == 1
    assert got.pass_at_1 == round((1 + 0.5 + 0 + 1) / 4, 4)
    assert got.pass_at_k == round(2 / 3, 4)  # a and b have a pass in four; d is left out
    assert got.pass_hat_k == round(1 / 3, 4)  # only a passes all four
    assert got.pass_at_1_ci == wilson(8, 14)
    assert got.mean_steps == round(44 / 14, 4) and got.mean_tool_errors == round(4 / 14, 4)


def test_error_rows_are_not_trials() -> None:
    rows = [
        {"task_id": "t", "family": "f", "level": 1, "status": s, "steps": 3, "tool_errors": 1}
        for s in ("passed", "error", "failed", "error")
    ]
    (t,) = outcomes_of(rows)
    assert (t.n, t.c, t.errors, t.steps, t.tool_errors) == (2, 1, 2, 6, 2)


# -- selection and config -----------------------------------------------------------------------


def test_task_selection_by_family_level_and_glob() -> None:
    tasks = [(f"{f}-{i:03d}", f, i) for f in ("lookup", "count") for i in range(3)]
    assert select(tasks, None) == [t[0] for t in tasks]
    assert select(tasks, "count") == ["count-000", "count-001", "count-002"]
    assert select(tasks, "lookup:1-2,level:0") == ["lookup-000", "lookup-001", "lookup-002", "count-000"]
    assert select(tasks, "count-00[12]") == ["count-001", "count-002"]
    with pytest.raises(ValueError, match="matches no task"):
        select(tasks, "lookup,lokup")


def test_the_config_id_names_every_setting_and_unknown_keys_are_refused(tmp_path: Path) -> None:
    base = EvalConfig()
    assert base.config_id() == EvalConfig().config_id()
    assert base.with_overrides(max_steps=5).config_id() != base.config_id()
    assert base.with_overrides(tool_use_prompt="Be brief.").config_id() != base.config_id()
    assert base.with_overrides(max_steps=None) == base
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"temperature": 0.7, "max_step": 3}))
    with pytest.raises(ValueError, match="max_step"):
        EvalConfig.load(path)
    with pytest.raises(ValueError):
        EvalConfig(max_steps=0)


# -- baselines on a real bundle -------------------------------------------------------------------


@pytest.fixture(scope="module")
def suite(store_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("baselines")
    return baselines(Target(str(store_bundle)), trials=2, tasks=SUBSET, out=out)


def test_the_reference_is_an_upper_bound_and_trivial_policies_only_pass_what_they_can(suite: dict[str, Any]) -> None:
    reports = suite["reports"]
    assert reports["reference"]["overall"]["pass_at_1"] == 1.0
    assert reports["reference"]["overall"]["pass_hat_k"] == 1.0
    assert reports["reference"]["errors"]["total"] == 0
    # Refusing everything can only ever pass a task whose right answer is a refusal.
    refused = {f for f, fam in reports["refuse"]["families"].items() if fam["all"]["pass_at_1"]}
    assert refused <= {"infeasible"}
    # No policy that calls no tool passes a task that needs a write.
    for name in ("refuse", "no_tools"):
        assert reports[name]["families"]["update"]["all"]["pass_at_1"] == 0.0
    # Every trivial pass the report lists is a real cell with a pass.
    for free in suite["trivial_passes"]:
        cell_ = reports[free["policy"]]["families"][free["family"]]["levels"][str(free["level"])]
        assert cell_["pass_at_1"] > 0
    assert "policy (pass@1 %)" in suite["table"] and "reference" in suite["table"]
    page = (Path(suite["out"]) / "report.html").read_text()
    assert page.count("<svg") == len(reports["reference"]["families"]) + 1  # one per family, one for steps
    from pipeline.package.report.evaluation import FREE

    assert (FREE in page) == bool(suite["trivial_passes"])  # a free reward is marked, and only then


def test_every_episode_is_in_the_trajectory_log_and_no_expected_value_reaches_it(suite: dict[str, Any]) -> None:
    run = Path(suite["runs"]["reference"]["out"])
    rows = [json.loads(line) for line in (run / "trajectories.jsonl").read_text().splitlines()]
    episodes = read_episodes(run / "episodes.jsonl")
    finals = [r for r in rows if r["status"] is not None]
    assert len(finals) == len(episodes) == len({r["episode"] for r in rows})
    assert {r["status"] for r in finals} == {"passed"}
    assert set(rows[0]) == set(trajectory.COLUMNS)
    text = (run / "trajectories.jsonl").read_text()
    assert "verification" not in text and '"checks"' not in text and '"expected"' not in text


def _report_bytes(out: Path) -> bytes:
    return (out / "report.json").read_bytes()


def test_an_interrupted_run_resumes_and_reports_exactly_what_an_uninterrupted_one_does(
    store_bundle: Path, tmp_path: Path
) -> None:
    target = Target(str(store_bundle))
    whole = evaluate(target, policy="random", trials=3, tasks=SUBSET, out=tmp_path / "whole")

    class Stop(Exception):
        pass

    def half(fn: Any, groups: list[tuple[str, list[int]]]) -> Any:
        for g in groups[: len(groups) // 2]:
            fn(*g)
        raise Stop

    with pytest.raises(Stop):
        evaluate(target, policy="random", trials=3, tasks=SUBSET, out=tmp_path / "cut", mapper=half)
    episodes = tmp_path / "cut" / "episodes.jsonl"
    done = len(episodes.read_text().splitlines())
    with episodes.open("a") as fh:
        fh.write('{"task_id": "lookup-000", "trial": 0, "sta')  # killed mid-write
    resumed = evaluate(target, policy="random", trials=3, tasks=SUBSET, out=tmp_path / "cut", concurrency=2)
    assert 0 < done < whole["timing"]["episodes_played"]
    assert resumed["timing"]["episodes_played"] == whole["timing"]["episodes_played"] - done
    assert _report_bytes(tmp_path / "cut") == _report_bytes(tmp_path / "whole")
    again = evaluate(target, policy="random", trials=3, tasks=SUBSET, out=tmp_path / "cut")
    assert again["timing"]["episodes_played"] == 0
    with pytest.raises(ValueError, match="another trials"):
        evaluate(target, policy="random", trials=2, tasks=SUBSET, out=tmp_path / "cut")
    with pytest.raises(ValueError, match="config_id"):
        evaluate(target, policy="random", trials=3, tasks=SUBSET, out=tmp_path / "cut", config=EvalConfig(max_steps=4))


def test_threads_give_the_same_report_as_one_worker(store_bundle: Path, tmp_path: Path) -> None:
    target = Target(str(store_bundle))
    evaluate(target, policy="no_tools", trials=2, tasks=SUBSET, out=tmp_path / "a", mapper=thread_mapper(1))
    evaluate(target, policy="no_tools", trials=2, tasks=SUBSET, out=tmp_path / "b", mapper=thread_mapper(4))
    assert _report_bytes(tmp_path / "a") == _report_bytes(tmp_path / "b")


# -- the loop's edges ---------------------------------------------------------------------------


class Chatter:
    """Calls a read tool forever, never answers."""

    name = "chatter"
    needs_reference = False

    def agent(self, start: EpisodeStart) -> Any:
        class A:
            usage = Usage()

            def act(self, feedback: list[tuple[str, str]]) -> Turn:
                from pipeline.evaluate.agent import Call

                return Turn((Call("get_order", {"id": 1}, "c"), Call("get_order", "{not json", "d")))

        return A()


def test_a_spent_step_budget_is_a_failure_and_malformed_calls_are_tool_errors(
    store_bundle: Path, tmp_path: Path
) -> None:
    env = Environment.from_bundle(store_bundle)
    writer = trajectory.open_log(tmp_path / "t.jsonl")
    result = run_episode(env, writer, Chatter(), EvalConfig(max_steps=5), "lookup-000", 0)
    writer.close()
    assert (result.status, result.end, result.steps, result.tool_calls) == ("failed", "max_steps", 5, 5)
    assert result.tool_errors == 2  # the two calls with unparsable arguments
    rows = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert rows[-1]["status"] == "failed" and rows[-1]["truncated"] is True and len(rows) == 7


def test_a_verification_that_could_not_run_is_an_error_not_a_failure(store_bundle: Path, tmp_path: Path) -> None:
    from pipeline.evaluate.baselines import RefusePolicy

    env = Environment.from_bundle(store_bundle)
    real = env.step

    def broken(action: Any) -> Any:
        obs, _, term, trunc, info = real(action)
        if "answer" in action:
            info["verification"] = {"status": "error", "reward": 0.0}
        return obs, 0.0, term, trunc, info

    env.step = broken  # type: ignore[method-assign]
    writer = trajectory.open_log(tmp_path / "t.jsonl")
    result = run_episode(env, writer, RefusePolicy(), EvalConfig(), "lookup-000", 0)
    writer.close()
    assert (result.status, result.end) == ("error", "verifier")
    rows = [
        {"task_id": "lookup-000", "family": "lookup", "level": 0, **result.as_dict()},
        {"task_id": "lookup-000", "family": "lookup", "level": 0, "status": "passed", "steps": 1, "tool_errors": 0},
    ]
    (t,) = outcomes_of(rows)
    assert (t.n, t.c, t.errors) == (1, 1, 1)


# -- calibration -------------------------------------------------------------------------------


def test_calibration_writes_a_child_version_with_figures_and_the_same_digest_every_time(
    suite: dict[str, Any], store_bundle: Path, tmp_path: Path
) -> None:
    parent = load_bundle(store_bundle)
    reports = [read_report(Path(r["out"])) for r in suite["runs"].values()]
    first = calibrate(parent, reports, tmp_path / "a")
    second = calibrate(parent, list(reversed(reports)), tmp_path / "b")
    assert first.digest == second.digest and first.version == "1.1.0"
    assert first.manifest["lineage"]["parent"] == parent.ref
    cal = first.manifest["calibration"]
    assert cal["bundle"]["digest"] == parent.digest
    assert [r["policy"] for r in cal["runs"]] == sorted(suite["reports"])
    some = cal["tasks"]["lookup-000"]
    assert some["observed"]["reference"] == {"n": 2, "passed": 2, "errors": 0}
    assert some["pass_rate"] is None  # only scripted baselines ran: no measured difficulty
    page = first.file("report.html").read_text()
    assert "<section id='evaluation'>" in page and page.count("<svg") > 1
    assert page.count("<li><a href='#measured'>") == 1  # listed in the page's contents, once
    assert load_bundle(first.path).digest == first.digest  # a valid bundle
    other = load_bundle(first.path)
    with pytest.raises(ValueError, match="not online-store"):
        calibrate(other, reports, tmp_path / "c")


def test_the_cli_runs_baselines_and_calibrates(store_bundle: Path, tmp_path: Path) -> None:
    from pipeline.cli.main import app

    runner = CliRunner()
    args = ["evaluate", str(store_bundle), "--baselines", "--tasks", "lookup:0,infeasible:0", "--no-prefect"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    assert "policy (pass@1 %)" in result.output
    result = runner.invoke(app, ["evaluate", str(store_bundle), "--policy", "refuse", "--llm", "x/y"])
    assert result.exit_code == 2 and "exactly one" in result.output
    runs = [str(tmp_path / "b" / n) for n in ("reference", "refuse")]
    result = runner.invoke(app, ["calibrate", str(store_bundle), *runs, "--out", str(tmp_path / "c"), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["parent"].endswith("@1.0.0") and data["ref"].endswith("@1.1.0")


def test_procedural_bundles_are_evaluated_with_the_same_loop(tmp_path: Path) -> None:
    from pipeline.package.procedural import build_procedural_bundle

    bundle = build_procedural_bundle(["gcd_lcm", "maze"], tmp_path / "b", n=12, seed=0)
    suite = baselines(Target(str(bundle.path)), names=["reference", "refuse"], trials=2, out=tmp_path / "runs")
    assert suite["reports"]["reference"]["overall"]["pass_hat_k"] == 1.0
    assert suite["reports"]["refuse"]["overall"]["pass_at_1"] == 0.0
    assert suite["reports"]["reference"]["bundle"]["kind"] == "procedural"


def test_long_observations_are_cut_and_say_so() -> None:
    from pipeline.evaluate.agent import render

    long = render({"type": "tool_result", "result": {"items": ["x" * 500]}}, limit=100)
    assert len(long) < 200 and long.startswith('{"items":["xxx') and "cut: 4" in long
    assert render({"type": "tool_error", "error": {"code": "not_found"}}) == 'error: {"code":"not_found"}'


def test_an_environment_that_raises_is_an_error_and_the_run_goes_on(store_bundle: Path, tmp_path: Path) -> None:
    from pipeline.evaluate.baselines import ReferencePolicy

    env = Environment.from_bundle(store_bundle)

    def broken(action: Any) -> Any:
        raise OSError("disk went away")

    env.step = broken  # type: ignore[method-assign]
    writer = trajectory.open_log(tmp_path / "t.jsonl")
    result = run_episode(env, writer, ReferencePolicy(), EvalConfig(), "lookup-000", 0)
    writer.close()
    assert (result.status, result.end) == ("error", "environment") and "disk went away" in str(result.error)
    rows = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    assert rows[-1]["status"] == "error"
