"""TRL: the environment class's tools as transformers renders them, the reference replayed, a GRPO smoke run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("transformers", reason="needs the trl extra: pip install 'synthenv[trl]'")
pytest.importorskip("trl", reason="needs the trl extra: pip install 'synthenv[trl]'")

from transformers.utils import get_json_schema

from pipeline.bundle.format import Bundle
from pipeline.integrations.episode import ANSWER_TOOL
from pipeline.integrations.trl import dataset_rows, environment_factory, python_name, reward_function, write_dataset
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.environment import Environment

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


@pytest.fixture(scope="module")
def procedural(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    return build_procedural_bundle(["gcd_lcm"], tmp_path_factory.mktemp("proc"), n=8, seed=0)


def _core(schema: dict[str, Any]) -> dict[str, Any]:
    """What a type hint can say about a property: type (items), enum (a const is a one-member enum)."""
    out = {k: schema[k] for k in ("type", "enum") if k in schema}
    if "const" in schema:
        out["enum"] = [schema["const"]]
    if "items" in schema:
        out["items"] = _core(schema["items"])
    return out


def test_tool_schemas_match_tools_json(store_bundle: Path) -> None:
    env = environment_factory(store_bundle)()
    served = {t["name"]: t for t in json.loads((store_bundle / "tools.json").read_text())["tools"]}
    rendered = {}
    for name in [*served, ANSWER_TOOL]:  # bound methods, as GRPOTrainer hands them to the chat template
        rendered[name] = get_json_schema(getattr(env, python_name(name)))["function"]
    assert set(rendered) == {*served, ANSWER_TOOL}
    lost: dict[str, int] = {}
    for name, spec in served.items():
        got = rendered[name]
        assert got["name"] == python_name(name)
        assert got["description"] == " ".join(spec["description"].split())
        want_props = spec["parameters"].get("properties", {})
        got_props = got["parameters"]["properties"]
        assert set(got_props) == {python_name(p) for p in want_props}, name
        assert set(got["parameters"].get("required", [])) == {
            python_name(p) for p in spec["parameters"].get("required", [])
        }
        for prop, want in want_props.items():
            have = got_props[python_name(prop)]
            assert _core(have) == _core(want), (name, prop, have, want)
            nested = want.get("properties") if want.get("type") == "object" else None
            if "description" in want:
                text = " ".join(want["description"].split())
                assert have["description"].startswith(text) if nested else have["description"] == text
            carried = {"type", "enum", "items", "description", "const"}
            if nested:
                # A type hint renders a nested object as a bare "object": its keys, their types and
                # allowed values, and which are required must reach the model through the description.
                said = have["description"]
                for key, sub in nested.items():
                    assert f"{key} (" in said, (name, prop, key, said)
                    for value in sub.get("enum") or (sub.get("items") or {}).get("enum") or ():
                        assert repr(value) in said, (name, prop, key, value)
                for key in want.get("required") or ():
                    assert key in said.split("Required keys:")[1], (name, prop, key)
                if want.get("additionalProperties") is False:
                    assert "No other keys" in said
                carried |= {"properties", "required", "additionalProperties"}
            for key in set(want) - carried:
                lost[key] = lost.get(key, 0) + 1
    # Constraints a type hint cannot carry; the environment still enforces them (invalid_argument).
    inexpressible = {"minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems"}
    assert set(lost) <= inexpressible, lost


def test_reference_solution_through_the_methods_earns_one(store_bundle: Path) -> None:
    env_cls = environment_factory(store_bundle)
    env = env_cls()
    tasks = Environment.from_bundle(store_bundle).tasks
    rows = {r["task_id"]: r for r in dataset_rows(store_bundle)}
    assert set(rows) == {t.id for t in tasks}
    for task in tasks[:8]:
        text = env.reset(**rows[task.id])
        assert text == "Task: " + task.instruction
        for call in task.solution:
            method = getattr(env, python_name(call.tool))
            out = method(**{python_name(k): v for k, v in call.arguments.items()})
            assert not out.startswith("error"), out
        assert env.get_reward() == 0.0  # no answer yet
        env.submit_answer(answer=json.dumps(task.answer) if not isinstance(task.answer, str) else task.answer)
        assert env.get_reward() == 1.0, task.id
        env.reset(**rows[task.id])
        env.submit_answer(answer="")
        assert env.get_reward() == 0.0
    with pytest.raises(ValueError, match="digest"):
        env.reset(task_id=tasks[0].id, digest="sha256:" + "0" * 64)


def test_procedural_reward_function(procedural: Bundle, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="single-turn"):
        environment_factory(procedural.path)
    rows = [json.loads(line) for line in write_dataset(procedural.path, tmp_path / "d.jsonl").read_text().splitlines()]
    items = {i["id"]: i for i in procedural.read_jsonl("tasks.jsonl")}
    assert len(rows) == len(items) and all(items[r["task_id"]]["question"] in r["prompt"][0]["content"] for r in rows)
    reward = reward_function(procedural.path)
    gold = [[{"role": "assistant", "content": f"<answer>{items[r['task_id']]['answer']}</answer>"}] for r in rows]
    assert reward(completions=gold, task_id=[r["task_id"] for r in rows]) == [1.0] * len(rows)
    assert reward(completions=[""] * len(rows), task_id=[r["task_id"] for r in rows]) == [0.0] * len(rows)


def _tiny_tokenizer(texts: list[str]) -> Any:
    """A byte-level BPE tokenizer trained here on the bundle's own text, with Qwen3's chat template."""
    from importlib.resources import files

    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<think>", "</think>"]
    specials += ["<tool_response>", "</tool_response>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=4000, special_tokens=specials, show_progress=False))
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", additional_special_tokens=specials[3:]
    )
    fast.chat_template = (files("trl") / "chat_templates" / "qwen3.jinja").read_text()
    fast.padding_side = "left"
    return fast


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")
def test_grpo_smoke_run_on_cpu(store_bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import torch
    from datasets import Dataset
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from trl import GRPOConfig, GRPOTrainer

    torch.manual_seed(0)
    env_cls = environment_factory(store_bundle)
    rows = dataset_rows(store_bundle)[:4]
    texts = [json.dumps(t) for t in json.loads((store_bundle / "tools.json").read_text())["tools"]]
    texts += [r["prompt"][0]["content"] for r in rows]
    texts += [t.instruction for t in Environment.from_bundle(store_bundle).tasks]
    tokenizer = _tiny_tokenizer(texts)
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        max_position_embeddings=32768,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    model = Qwen3ForCausalLM(config)
    calls: list[float | None] = []

    class Recorded(env_cls):  # type: ignore[misc, valid-type]
        def get_reward(self) -> float | None:
            value = super().get_reward()
            calls.append(value)
            return value

    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=16,
        max_steps=2,
        learning_rate=1e-4,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=True,
        bf16=False,
        seed=0,
        max_tool_calling_iterations=2,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=args,
        train_dataset=Dataset.from_list(rows),
        environment_factory=Recorded,
    )
    # The bundle's tools (and the answer tool) are what GRPOTrainer offers the model.
    offered = {t.__name__ for t in trainer.tools}
    assert offered == {python_name(t["name"]) for t in env_cls().env.tool_specs()} | {ANSWER_TOOL}
    trainer.train()
    logs = [e for e in trainer.state.log_history if "loss" in e or "reward" in e]
    for entry in logs:
        print(json.dumps({k: entry[k] for k in sorted(entry) if "reward" in k or k in ("step", "loss")}))
    assert trainer.state.global_step == 2
    assert len(calls) >= 4 and all(c is not None and 0.0 <= c <= 1.0 for c in calls)
    reward_keys = {k for e in logs for k in e if k.startswith("rewards/")}
    assert any(env_cls.__name__ in k or "Recorded" in k for k in reward_keys), reward_keys
