"""pipeline/surface: one rendering for every adapter, tools a reference solution can be written with,
observations that say how to fetch what was cut, and the refusal form the verifier scores."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pipeline.evaluate import trajectory
from pipeline.evaluate.agent import Call, EpisodeStart, Turn, Usage
from pipeline.evaluate.config import EvalConfig
from pipeline.evaluate.episode import run_episode
from pipeline.runtime.environment import Environment
from pipeline.surface import ANSWER_TOOL, EPISODE_OVER_TEXT, REFUSAL_FORM, VERB_NAMES, surface_of, system_text
from pipeline.surface.observe import render_observation
from pipeline.surface.tools import FIELDS, WHERE
from pipeline.surface.transcript import Transcript, expected_transcript


def _answer(answer: Any) -> str:
    return answer if isinstance(answer, str) else json.dumps(answer)


def _script(env: Environment) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """A task whose reference solution uses a folded list call, as surface calls, then a bad call and the answer."""
    surface = surface_of(env)
    task = next(t for t in env.tasks if any(c.tool.startswith("list_") for c in t.solution) and t.answer is not None)
    calls = [surface.call(c.tool, dict(c.arguments)) for c in task.solution]
    calls.append(("get_record", {"table": "orders", "id": "not a number"}))
    calls.append((ANSWER_TOOL, {"answer": _answer(task.answer)}))
    return task.id, calls


# -- the same episode through every adapter ------------------------------------------------------


def through_trl(bundle: Path, task_id: str, calls: list[tuple[str, dict[str, Any]]]) -> Transcript:
    pytest.importorskip("transformers")
    from transformers.utils import get_json_schema

    from pipeline.integrations.trl import dataset_rows, environment_factory, python_name

    env = environment_factory(bundle)()
    row = next(r for r in dataset_rows(bundle) if r["task_id"] == task_id)
    instruction = env.reset(**row)
    tools = [get_json_schema(getattr(env, python_name(t["name"])))["function"] for t in surface_of(env.env).tools]
    out = Transcript(row["prompt"][0]["content"], tools, row["prompt"][1]["content"] + instruction)
    for name, arguments in calls:
        out.observations.append(getattr(env, python_name(name))(**{python_name(k): v for k, v in arguments.items()}))
    return out


def through_gymnasium(bundle: Path, task_id: str, calls: list[tuple[str, dict[str, Any]]]) -> Transcript:
    pytest.importorskip("gymnasium")
    from pipeline.integrations.gymnasium import BundleGymEnv

    env = BundleGymEnv(bundle)
    obs, _ = env.reset(seed=0, options={"task_id": task_id})
    out = Transcript(env.system, env.tools, obs["instruction"])
    for name, arguments in calls:
        obs, *_ = env.step(json.dumps({"tool": name, "arguments": arguments}))
        out.observations.append(obs["observation"])
    return out


@dataclass
class _Recorder:
    """A scripted evaluate policy that plays the calls and keeps what the loop showed it."""

    calls: list[tuple[str, dict[str, Any]]]
    name: str = "scripted"
    needs_reference: bool = False
    seen: list[Any] = field(default_factory=list)

    def agent(self, start: EpisodeStart) -> Any:
        self.seen.append(start)
        recorder = self

        @dataclass
        class _Agent:
            usage: Usage = field(default_factory=Usage)
            turn: int = 0

            def act(self, feedback: list[tuple[str, str]]) -> Turn:
                recorder.seen += [text for _, text in feedback]
                if self.turn >= len(recorder.calls):
                    return Turn(answer=None, final=True)
                name, arguments = recorder.calls[self.turn]
                self.turn += 1
                return Turn((Call(name, dict(arguments), f"c{self.turn}"),))

        return _Agent()


def through_evaluate(bundle: Path, task_id: str, calls: list[tuple[str, dict[str, Any]]], tmp: Path) -> Transcript:
    env = Environment.from_bundle(bundle)
    policy = _Recorder(calls)
    writer = trajectory.open_log(tmp / "t.jsonl")
    result = run_episode(env, writer, policy, EvalConfig(), task_id, 0)
    writer.close()
    start: EpisodeStart = policy.seen[0]
    out = Transcript(start.system, [t["function"] for t in start.tools], start.instruction, list(policy.seen[1:]))
    # The answer call ends the episode without an observation the model reads; the verdict stands.
    out.observations.append(f"episode over; reward {result.reward}")
    return out


def test_the_same_episode_reads_the_same_in_every_adapter(store_bundle: Path, tmp_path: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    task_id, calls = _script(env)
    want = expected_transcript(env, task_id, calls)
    assert want.observations[-1] == "episode over; reward 1.0"  # the script is a correct solution
    assert any(o.startswith("error: ") for o in want.observations)
    for got in (
        through_trl(store_bundle, task_id, calls),
        through_gymnasium(store_bundle, task_id, calls),
        through_evaluate(store_bundle, task_id, calls, tmp_path),
    ):
        assert got.system == want.system
        assert got.tools == want.tools
        assert got.instruction == want.instruction
        assert got.observations == want.observations


# -- tools -------------------------------------------------------------------------------------


def test_every_reference_call_is_written_and_validated_with_the_rendered_tools(bundles: dict[str, Path]) -> None:
    """Each reference call, written as the surface asks, validates against the rendered schema, names only
    fields the table catalog lists for its table, and routes back to exactly the executor's call."""
    for path in bundles.values():
        env = Environment.from_bundle(path)
        surface = surface_of(env)
        tools = {t["name"]: t for t in surface.tools}
        assert not set(tools) & {"reset", "synthenv_reset", "synthenv_answer", "synthenv_verify"}
        catalog = tools["list_records"]["description"]
        names = tools["list_records"]["parameters"]["properties"]["table"]["enum"]
        starts = sorted((catalog.index(f" {n} ["), n) for n in names)
        entries = {n: catalog[a : b[0] if b else None] for (a, n), b in zip(starts, [*starts[1:], None], strict=True)}
        checked = 0
        for task in env.tasks:
            for call in task.solution:
                name, args = surface.call(call.tool, dict(call.arguments))
                schema = tools[name]["parameters"]
                Draft202012Validator(schema).validate(args)
                assert set(args) <= set(schema["properties"]), (name, args)
                if name in VERB_NAMES:
                    entry = entries[args["table"]]
                    assert f"[{_verb_tag(name)}" in entry or f" {_verb_tag(name)}" in entry.split("]")[0], (name, entry)
                    for inner in [*(args.get(WHERE) or {}), *(args.get(FIELDS) or {})]:
                        base = inner if f" {inner} " in entry or f" {inner}" in entry else inner.rsplit("_", 1)[0]
                        assert f" {base}" in entry, (name, args["table"], inner)
                assert surface.action(name, args) == {"tool": call.tool, "arguments": dict(call.arguments)}
                checked += 1
        assert checked > 50


def _verb_tag(verb: str) -> str:
    return {"record_statistics": "stats"}.get(verb, verb.split("_")[0])


def test_a_fold_that_says_a_key_twice_is_refused_not_merged(store_bundle: Path) -> None:
    """Exploit: a filter both inside and outside ``where`` must not pick one silently."""
    env = Environment.from_bundle(store_bundle)
    surface = surface_of(env)
    env.reset(seed=0)
    action = surface.action("list_records", {"table": "orders", WHERE: {"status": "paid"}, "status": "pending"})
    obs, *_ = env.step(action)
    assert obs["type"] == "tool_error" and obs["error"]["code"] == "invalid_argument"


@pytest.mark.parametrize(
    "verb, arguments, says",
    [
        ("get_record", {"id": 1}, "get_record needs a 'table'"),
        ("get_record", {"table": "nosuch", "id": 1}, "got 'nosuch'"),
        ("delete_record", {"table": "customers", "id": 1}, "delete_record takes table one of"),
        ("list_records", {"table": ["orders"]}, "list_records takes table one of categories, customers"),
    ],
)
def test_a_verb_call_on_a_table_it_does_not_take_says_which_it_takes(
    store_bundle: Path, verb: str, arguments: dict[str, Any], says: str
) -> None:
    """No bundle tool stands for it: nothing runs, the call is invalid, and the text names the tables."""
    env = Environment.from_bundle(store_bundle)
    surface = surface_of(env)
    env.reset(seed=0)
    action = surface.action(verb, arguments)
    obs, _, _, _, info = env.step(action)
    assert obs["type"] == "tool_error" and info["call_valid"] is False
    text = surface.observe(obs, action)
    assert text.startswith("error: ") and says in text, text


def test_the_rendered_tool_list_is_far_smaller_than_the_served_one(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    served = len(json.dumps(env.tool_specs(), separators=(",", ":")))
    rendered = len(json.dumps(surface_of(env).tools, separators=(",", ":"), ensure_ascii=False).encode())
    assert rendered <= 12 * 1024 and rendered < 0.3 * served, (rendered, served)


def test_every_catalog_domain_renders_within_the_prompt_budget() -> None:
    """The budget of issue 22: at most 12 KB of tool list per catalog domain (UTF-8 compact JSON)."""
    import random

    from pipeline.surface import answer_tool, verb_tools
    from pipeline.tools.specs import build_toolset
    from pipeline.world.blueprint import list_domains, load_blueprint
    from pipeline.world.schema import build_schema

    over = {}
    for domain in list_domains():
        schema = build_schema(load_blueprint(domain), random.Random(0))
        tools = [*verb_tools(schema, build_toolset(schema).tools), answer_tool()]
        size = len(json.dumps(tools, separators=(",", ":"), ensure_ascii=False).encode())
        if size > 12 * 1024:
            over[domain] = size
    assert not over, over


# -- observations --------------------------------------------------------------------------------


def test_a_cut_list_page_names_the_offset_that_fetches_the_next_row(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    surface = surface_of(env, budget=1500)
    env.reset(seed=0)
    action = surface.action("list_records", {"table": "orders", "limit": 50})
    obs, *_ = env.step(action)
    text = surface.observe(obs, action)
    assert len(text) <= 1500 and "call list_records again with table=orders, offset=" in text
    shown = json.loads(text[: text.index(" [cut:")])["items"]
    offset = int(text.split("offset=")[1].split()[0])
    assert offset == len(shown) < len(obs["result"]["items"])
    nxt, *_ = env.step(surface.action("list_records", {"table": "orders", "limit": 50, "offset": offset}))
    assert nxt["result"]["items"][0] == obs["result"]["items"][len(shown)]
    # Anything else is cut with the count of what was left out.
    long = render_observation({"type": "tool_result", "result": {"blob": "x" * 500}}, budget=200)
    assert len(long) <= 200 and "more characters" in long


def test_the_system_text_states_the_refusal_the_verifier_scores(store_bundle: Path) -> None:
    """The refusal written as the system text says scores 1 on an infeasible task; the prose the old
    trainer text asked for ("a short explanation") scores 0."""
    env = Environment.from_bundle(store_bundle)
    text = system_text(False)
    assert REFUSAL_FORM in text and "short explanation" not in text and ANSWER_TOOL in text
    task = next(t for t in env.tasks if t.family == "infeasible")
    expected = task.verifier.answer.expected
    for answer, reward in (
        (json.dumps(expected), 1.0),
        ("This cannot be done: the record does not allow it.", 0.0),
    ):
        fork = copy.copy(env)
        fork.reset(task_id=task.id)
        *_, info = fork.step({"answer": answer})
        assert info["verification"]["reward"] == reward, answer


def test_a_policy_text_has_one_place_in_the_system_text() -> None:
    text = system_text(False, policy="Refunds over 500 need a manager.")
    assert "Policy of this system:\nRefunds over 500 need a manager." in text
    assert system_text(True) == system_text(True, policy="ignored for procedural")


def test_calls_after_the_end_change_nothing(store_bundle: Path) -> None:
    from pipeline.integrations.episode import Episode

    env = Environment.from_bundle(store_bundle)
    episode = Episode(env)
    task = env.tasks[0]
    episode.reset(task_id=task.id)
    episode.call(ANSWER_TOOL, {"answer": "certainly not right"})
    assert episode.reward == 0.0 and episode.status == "failed"
    assert episode.call(ANSWER_TOOL, {"answer": _answer(task.answer)}) == EPISODE_OVER_TEXT
    assert episode.reward == 0.0 and episode.status == "failed"


def test_a_status_lifecycle_reads_the_same_whatever_order_its_moves_were_stored_in() -> None:
    """A bundle's tools.json has sorted keys: a toolset read back must describe its statuses as a fresh one."""
    import random

    from pipeline.surface.records import catalog
    from pipeline.tools.specs import UpdateTool, build_toolset
    from pipeline.world.blueprint import load_blueprint
    from pipeline.world.schema import build_schema

    schema = build_schema(load_blueprint("online_store"), random.Random(0))
    tools = build_toolset(schema).tools
    shuffled = [
        t.model_copy(
            update={
                "transitions": dict(reversed((t.transitions or {}).items())) if t.transitions else t.transitions,
                "reserved": dict(reversed(t.reserved.items())),
            }
        )
        if isinstance(t, UpdateTool)
        else t
        for t in tools
    ]
    updates = [t for t in tools if isinstance(t, UpdateTool)]
    assert any(t.transitions and len(t.transitions) > 1 for t in updates)
    assert any(len(t.reserved) > 1 for t in updates)
    fresh = catalog(schema, tools)
    assert catalog(schema, shuffled) == fresh
    assert "moves: pending -> paid, cancelled; paid -> shipped, cancelled; shipped -> delivered" in fresh
