"""No raise on any input, through every entry point: arbitrary JSON (and the texts that encode
it, deep nesting and huge numbers included) answers an error observation, never an exception.

Entry points: ``Environment.step``, the Gymnasium wrapper's ``step`` (text and dict actions,
tool-use and procedural bundles), the TRL adapter's tool methods, ``parse_arguments`` (the
evaluator's reading of a model's tool-call text) and the verifiers adapter's ``parse_action``.
Before: ``RecursionError`` escaped the Gymnasium wrapper on 5 of 9 hostile actions (deeply
nested texts and a deeply nested dict), ``parse_arguments`` on 4 of 8 and the TRL adapter on
a deeply nested argument of a routed tool.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.evaluate.agent import parse_arguments
from pipeline.integrations.gymnasium import BundleGymEnv
from pipeline.integrations.trl import environment_factory
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.environment import Environment

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def _nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"a": value}
    return value


HOSTILE_VALUES = [_nested(40), _nested(3000), 10**30, -(10**400), 2**63, float("inf"), float("nan"), 1e308]
HOSTILE_TEXTS = [
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 50_000 + "1" + "}" * 50_000,
    '{"tool": "get_product", "arguments": {"id": ' + "[" * 5000 + "1" + "]" * 5000 + "}}",
    '{"answer": ' + "[" * 5000 + "1" + "]" * 5000 + "}",
    '{"tool": "get_product", "arguments": {"id": ' + "9" * 5000 + "}}",
    '{"answer": ' + "9" * 4000 + "}",
    '{"answer": 1e999}',
    '{"answer": NaN}',
    "",
    "not json at all",
]


class Hostile:
    """A hostile value by its index, so Hypothesis never has to print (repr) a 3000-deep structure."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"HOSTILE_VALUES[{self.index}]"


def resolve(value: Any) -> Any:
    """The value a drawn example stands for (hostile markers at the top or one level down replaced)."""
    if isinstance(value, Hostile):
        return HOSTILE_VALUES[value.index]
    if isinstance(value, dict):
        return {k: resolve(v) if isinstance(v, Hostile) else v for k, v in value.items()}
    return value


scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
values = json_values | st.integers(0, len(HOSTILE_VALUES) - 1).map(Hostile)
texts = json_values.map(json.dumps) | st.sampled_from(HOSTILE_TEXTS) | st.text(max_size=200)


@pytest.fixture(scope="module")
def procedural_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(build_procedural_bundle(["gcd_lcm"], tmp_path_factory.mktemp("proc"), n=4, seed=0).path)


def test_environment_step_answers_any_json_with_an_observation(store_bundle: Path) -> None:
    env = Environment.from_bundle(store_bundle)
    tools = [t.name for t in env.toolset.tools]
    actions = (
        values
        | st.builds(lambda t, a: {"tool": t, "arguments": a}, st.sampled_from(tools), values)
        | st.builds(lambda a: {"answer": a}, values)
    )

    @SETTINGS
    @given(action=actions)
    def run(action: Any) -> None:
        if env.done or env.task is None:
            env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step(resolve(action))
        assert obs["type"] in ("tool_result", "tool_error", "error", "done") and not truncated
        assert isinstance(reward, float) and isinstance(info, dict) and terminated == (obs["type"] == "done")

    try:
        run()
    finally:
        env.close()


@pytest.mark.parametrize("kind", ["tool_use", "procedural"])
def test_the_gymnasium_wrapper_answers_any_text_or_dict(store_bundle: Path, procedural_bundle: Path, kind: str) -> None:
    env = BundleGymEnv(store_bundle if kind == "tool_use" else procedural_bundle)
    env.reset(seed=0)

    @SETTINGS
    @given(action=texts | values)
    def run(action: Any) -> None:
        if env.episode.done:
            env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step(resolve(action))
        assert env.observation_space.contains(obs) and isinstance(reward, float) and not truncated
        assert terminated == env.episode.done and isinstance(info, dict)

    try:
        run()
        for action in [*HOSTILE_TEXTS, *HOSTILE_VALUES, {"deep": _nested(3000)}]:  # every one, not a sample
            if env.episode.done:
                env.reset(seed=0)
            obs = env.step(action)[0]
            assert isinstance(obs["observation"], str)
    finally:
        env.close()


def test_the_trl_adapter_answers_any_argument_values(store_bundle: Path) -> None:
    cls = environment_factory(store_bundle)
    instance = cls()
    instance.reset()
    methods = sorted(n for n in vars(cls) if not n.startswith("_") and callable(getattr(cls, n)))
    assert methods, "the factory made no tool methods"

    @SETTINGS
    @given(name=st.sampled_from(methods), data=st.data())
    def run(name: str, data: st.DataObject) -> None:
        if instance.episode.done:
            instance.reset()
        params = [p for p in inspect.signature(getattr(cls, name)).parameters if p != "self"]
        kwargs = {p: resolve(data.draw(values, label=p)) for p in params}
        out = getattr(instance, name)(**kwargs)
        assert isinstance(out, str) and out

    run()
    for value in HOSTILE_VALUES:  # each hostile value in every parameter of every tool
        for name in methods:
            instance.reset()
            params = [p for p in inspect.signature(getattr(cls, name)).parameters if p != "self"]
            assert isinstance(getattr(instance, name)(**dict.fromkeys(params, value)), str)


@SETTINGS
@given(text=texts)
def test_parse_arguments_answers_any_text(text: str) -> None:
    parsed = parse_arguments(text)
    assert isinstance(parsed, (dict, str))


def test_parse_arguments_survives_every_hostile_text() -> None:
    for text in HOSTILE_TEXTS:
        assert isinstance(parse_arguments(text), (dict, str))


def test_the_verifiers_adapter_parses_any_reply(store_bundle: Path) -> None:
    pytest.importorskip("verifiers", reason="the verifiers extra lives in its own environment")
    from pipeline.integrations.verifiers import parse_action

    env = Environment.from_bundle(store_bundle)

    @SETTINGS
    @given(text=texts)
    def run(text: str) -> None:
        action = parse_action(text, env)
        assert action is None or isinstance(action, dict)

    run()
    for text in HOSTILE_TEXTS:
        assert parse_action(text, env) is None or isinstance(parse_action(text, env), dict)
