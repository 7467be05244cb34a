"""TRL: the environment class's tools as transformers renders them, the reference replayed, a GRPO smoke run."""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("transformers", reason="needs the trl extra: pip install 'synthenv[trl]'")
pytest.importorskip("trl", reason="needs the trl extra: pip install 'synthenv[trl]'")

from transformers.utils import get_json_schema

from pipeline.bundle.format import Bundle
from pipeline.integrations.episode import ANSWER_TOOL, EPISODE_OVER_TEXT
from pipeline.integrations.trl import dataset_rows, environment_factory, python_name, reward_function, write_dataset
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.environment import Environment
from pipeline.surface import VERB_NAMES, surface_of

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")


@pytest.fixture(scope="module")
def procedural(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    return build_procedural_bundle(["gcd_lcm"], tmp_path_factory.mktemp("proc"), n=8, seed=0)


def _answer_text(answer: Any) -> str:
    return json.dumps(answer) if not isinstance(answer, str) else answer


def test_tool_list_is_the_surface(store_bundle: Path) -> None:
    """transformers renders each method exactly as the surface's tool (TRL shows what every adapter shows)."""
    env = environment_factory(store_bundle)()
    surface = surface_of(env.env)
    served = {t["name"] for t in json.loads((store_bundle / "tools.json").read_text())["tools"]}
    names = [t["name"] for t in surface.tools]
    # The record verbs stand for the table tools; the business operations are listed as served.
    assert names[-1] == ANSWER_TOOL and {"get_record", "list_records", "create_record"} <= set(names)
    assert set(names) - VERB_NAMES - {ANSWER_TOOL} <= served and len(names) < len(served) / 2
    for tool in surface.tools:  # bound methods, as GRPOTrainer hands them to the chat template
        assert get_json_schema(getattr(env, python_name(tool["name"])))["function"] == tool, tool["name"]
    offered = {n for n, _ in inspect.getmembers(type(env), predicate=inspect.isfunction) if not n.startswith("_")}
    assert offered - {"reset", "get_reward"} == {python_name(t["name"]) for t in surface.tools}
    assert not offered & {"synthenv_reset", "synthenv_answer", "synthenv_verify"}


def test_reference_solution_through_the_methods_earns_one(store_bundle: Path) -> None:
    env_cls = environment_factory(store_bundle)
    env = env_cls()
    surface = surface_of(env.env)
    tasks = Environment.from_bundle(store_bundle).tasks
    rows = {r["task_id"]: r for r in dataset_rows(store_bundle)}
    assert set(rows) == {t.id for t in tasks}
    assert all(r["prompt"][0] == {"role": "system", "content": surface.system} for r in rows.values())
    for task in tasks[:8]:
        text = env.reset(**rows[task.id])
        assert text == task.instruction
        for call in task.solution:
            name, args = surface.call(call.tool, dict(call.arguments))
            method = getattr(env, python_name(name))
            out = method(**{python_name(k): v for k, v in args.items()})
            assert not out.startswith("error"), out
        assert env.get_reward() == 0.0  # no answer yet
        env.submit_answer(answer=_answer_text(task.answer))
        assert env.get_reward() == 1.0, task.id
        env.reset(**rows[task.id])
        env.submit_answer(answer="")
        assert env.get_reward() == 0.0
    with pytest.raises(ValueError, match="digest"):
        env.reset(task_id=tasks[0].id, digest="sha256:" + "0" * 64)


def test_first_verdict_stands(store_bundle: Path) -> None:
    """After the answer, a tool call or a second answer reads "episode over" and the reward stays."""
    env = environment_factory(store_bundle)()
    task = next(t for t in Environment.from_bundle(store_bundle).tasks if t.solution and t.answer is not None)
    env.reset(task_id=task.id)
    for call in task.solution:
        name, arguments = surface_of(env.env).call(call.tool, dict(call.arguments))
        getattr(env, python_name(name))(**arguments)
    env.submit_answer(answer=_answer_text(task.answer))
    assert env.get_reward() == 1.0
    assert env.list_records(table="orders", limit=1) == EPISODE_OVER_TEXT
    assert env.submit_answer(answer="wrong") == EPISODE_OVER_TEXT
    assert env.get_reward() == 1.0
    # A failure stands too: a later correct answer does not turn it into a pass.
    env.reset(task_id=task.id)
    env.submit_answer(answer="")
    env.submit_answer(answer=_answer_text(task.answer))
    assert env.get_reward() == 0.0


@pytest.mark.parametrize("stamp", [{"task_id": "someone-else"}, {"task_id": "x", "assigned_task_id": "y"}])
def test_verdict_on_another_task_is_masked(store_bundle: Path, stamp: dict[str, str]) -> None:
    env = environment_factory(store_bundle)()
    task = Environment.from_bundle(store_bundle).tasks[0]
    env.reset(task_id=task.id)
    inner = env.env.step

    def stamped(action: Any) -> Any:
        obs, reward, terminated, truncated, info = inner(action)
        if "verification" in info:
            info["verification"] = {**info["verification"], "status": "passed", **stamp}
            reward = 1.0
        return obs, reward, terminated, truncated, info

    env.env.step = stamped  # type: ignore[method-assign]
    env.submit_answer(answer=_answer_text(task.answer))
    assert env.get_reward() is None  # masked, never a trained-on 1.0 or 0.0


def test_bundle_ref_loads_from_a_registry(store_bundle: Path, tmp_path: Path) -> None:
    """The factory takes a bundle ref as ``synthenv pull`` does, from any registry."""
    import pipeline
    from pipeline.registry.registry import publish

    registry = str(tmp_path / "registry")
    publish(store_bundle, registry=registry)
    bundle = Environment.from_bundle(store_bundle).bundle
    for ref in (
        bundle.name,
        f"{bundle.name}@latest",
        f"{bundle.name}@{bundle.version}",
        f"{bundle.name}@{bundle.digest}",
    ):
        env = environment_factory(ref, registry=registry)()
        assert env.env.bundle.digest == bundle.digest
        assert isinstance(pipeline.load(ref, registry=registry), Environment)
    with pytest.raises(Exception, match="nothing-here"):
        environment_factory("nothing-here@1.0.0", registry=registry)


def test_procedural_reward_function(procedural: Bundle, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="single-turn"):
        environment_factory(procedural.path)
    rows = [json.loads(line) for line in write_dataset(procedural.path, tmp_path / "d.jsonl").read_text().splitlines()]
    items = {i["id"]: i for i in procedural.read_jsonl("tasks.jsonl")}
    assert len(rows) == len(items) and all(items[r["task_id"]]["question"] in r["prompt"][1]["content"] for r in rows)
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


def _tiny_model(tokenizer: Any) -> Any:
    from transformers import Qwen3Config, Qwen3ForCausalLM

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
    return Qwen3ForCausalLM(config)


def _grpo_args(out: Path, steps: int) -> Any:
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=str(out),
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=24,
        max_steps=steps,
        learning_rate=1e-4,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=True,
        bf16=False,
        seed=0,
        max_tool_calling_iterations=2,
    )


class _PerStep:
    """Counts the verdicts of each training step (passed / failed / error; no answer counts as failed)."""

    def __init__(self) -> None:
        from transformers import TrainerCallback

        self.statuses: list[str] = []
        self.rows: list[dict[str, int]] = []
        outer = self

        class Callback(TrainerCallback):  # type: ignore[misc]
            seen = 0

            def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
                new = outer.statuses[self.seen :]
                self.seen = len(outer.statuses)
                outer.rows.append(
                    {"step": state.global_step, **{s: new.count(s) for s in ("passed", "failed", "error")}}
                )

        self.callback = Callback()


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")
def test_grpo_ten_steps_over_a_tool_use_bundle(store_bundle: Path, tmp_path: Path) -> None:
    """Ten GRPO steps on CPU, a tiny model built from a config; each step's verdicts counted and every
    episode in the trajectory log."""
    import torch
    from datasets import Dataset
    from trl import GRPOTrainer

    torch.manual_seed(0)
    log = tmp_path / "trajectories.jsonl"
    env_cls = environment_factory(store_bundle, trajectories=log)
    rows = dataset_rows(store_bundle)[:10]
    surface = surface_of(env_cls().env)
    texts = [json.dumps(t) for t in surface.tools] + [surface.system]
    texts += [t.instruction for t in Environment.from_bundle(store_bundle).tasks]
    tokenizer = _tiny_tokenizer(texts)
    counts = _PerStep()

    class Recorded(env_cls):  # type: ignore[misc, valid-type]
        def get_reward(self) -> float | None:
            value = super().get_reward()
            counts.statuses.append(self.episode.status or "failed")
            return value

    trainer = GRPOTrainer(
        model=_tiny_model(tokenizer),
        processing_class=tokenizer,
        args=_grpo_args(tmp_path / "out", 10),
        train_dataset=Dataset.from_list(rows),
        environment_factory=Recorded,
        callbacks=[counts.callback],
    )
    offered = {t.__name__ for t in trainer.tools}
    assert offered == {python_name(t["name"]) for t in surface.tools}
    trainer.train()
    for row in counts.rows:
        print("TRL-TOOL-USE " + json.dumps(row))
    assert trainer.state.global_step == 10 and len(counts.rows) == 10
    assert sum(sum(r[s] for s in ("passed", "failed", "error")) for r in counts.rows) == len(counts.statuses) >= 20
    episodes = [json.loads(line) for line in log.read_text().splitlines()]
    digest = env_cls().env.bundle.digest
    assert len({e["episode"] for e in episodes}) >= 20 and all(e["digest"] == digest for e in episodes)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")
def test_grpo_ten_steps_over_a_procedural_bundle(procedural: Bundle, tmp_path: Path) -> None:
    import torch
    from datasets import Dataset
    from trl import GRPOTrainer

    torch.manual_seed(0)
    log = tmp_path / "trajectories.jsonl"
    rows = dataset_rows(procedural.path)
    score = reward_function(procedural.path, trajectories=log)
    counts = _PerStep()

    def synthenv_reward(completions: list[Any], task_id: list[str], **kwargs: Any) -> list[float | None]:
        rewards = score(completions=completions, task_id=task_id, **kwargs)
        counts.statuses += ["error" if r is None else "passed" if r >= 1.0 else "failed" for r in rewards]
        return rewards

    texts = [r["prompt"][0]["content"] + r["prompt"][1]["content"] for r in rows] + ["<answer>12</answer>"] * 20
    tokenizer = _tiny_tokenizer(texts)
    trainer = GRPOTrainer(
        model=_tiny_model(tokenizer),
        reward_funcs=synthenv_reward,
        processing_class=tokenizer,
        args=_grpo_args(tmp_path / "out", 10),
        train_dataset=Dataset.from_list(rows),
        callbacks=[counts.callback],
    )
    trainer.train()
    for row in counts.rows:
        print("TRL-PROCEDURAL " + json.dumps(row))
    assert trainer.state.global_step == 10 and len(counts.rows) == 10
    assert sum(r["passed"] + r["failed"] + r["error"] for r in counts.rows) == len(counts.statuses) == 20
    episodes = [json.loads(line) for line in log.read_text().splitlines()]
    assert len({e["episode"] for e in episodes}) == 20
