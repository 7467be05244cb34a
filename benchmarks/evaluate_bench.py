"""Evaluation figures: the scripted baselines on tool-use bundles, and a model run against a fake server.

For each domain: build the bundle (seed 0), run every scripted baseline with ``--trials``
trials (no model), print the baseline table (pass@1 % per level; ``!`` marks a level a
trivial policy passes) and the seconds per episode. Then start the scripted
OpenAI-compatible test server (``tests/llm/fakellm.py``) playing the reference solution
through real tool calls (answering at once in about a quarter of the trials) and evaluate
it through litellm with K = 4: the report as printed
and the seconds per episode (cold cache, then replayed from the cache).

    python benchmarks/evaluate_bench.py                       # online_store and library_loans
    python benchmarks/evaluate_bench.py --domains airline --trials 4

Results are also written as JSON under ``benchmarks/results/evaluate_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "llm"))

from pipeline.jobs.evaluate import Target, baselines, evaluate  # noqa: E402
from pipeline.jobs.steps import Inputs, generate  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def follower(bundle: Path, hasty_share: float = 0.25) -> Any:
    """Plays the reference solution, except that in about ``hasty_share`` of the conversations
    (decided by a hash of the instruction and the trial number) it answers "0" at once."""
    import hashlib
    import threading

    from pipeline.bundle.format import load_bundle

    tasks = {t["instruction"]: t for t in load_bundle(bundle).read_jsonl("tasks.jsonl")}
    trials: dict[str, int] = {}
    lock = threading.Lock()

    def hasty(instruction: str) -> bool:
        with lock:  # a task's trials run one after another, so this counter is the trial number
            trial = trials[instruction] = trials.get(instruction, -1) + 1
        digest = hashlib.sha256(f"{instruction}/{trial}".encode()).digest()
        return digest[0] < 256 * hasty_share

    def text(answer: Any) -> str:
        if answer is None:
            return "done"
        if isinstance(answer, list):
            return "\n".join(map(str, answer))
        return answer if isinstance(answer, str) else json.dumps(answer)

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        task = tasks[body["messages"][1]["content"]]
        done = sum(1 for m in body["messages"] if m["role"] == "assistant" and m.get("tool_calls"))
        if done == 0 and hasty(task["instruction"]):
            return {"tool_calls": [{"id": "h", "name": "submit_answer", "arguments": json.dumps({"answer": "0"})}]}
        if done < len(task["solution"]):
            step = task["solution"][done]
            call = {"id": f"c{done}", "name": step["tool"], "arguments": json.dumps(step["arguments"])}
        else:
            call = {"id": "final", "name": "submit_answer", "arguments": json.dumps({"answer": text(task["answer"])})}
        return {"tool_calls": [call]}

    return answer


def fake_model_run(bundle: Path, work: Path, trials: int, concurrency: int) -> dict[str, Any]:
    from fakellm import FakeLLM

    from pipeline.evaluate.config import EvalConfig
    from pipeline.llm.client import LLMSettings

    out: dict[str, Any] = {}
    with FakeLLM({"evaluate": [follower(bundle)] * 100_000}, lifetime=3600) as fake:
        settings = LLMSettings(model="openai/fake-follower", base_url=fake.url, cache_dir=str(work / "cache"))
        for label in ("cold", "cached"):
            summary = evaluate(
                Target(str(bundle)),
                settings=settings,
                config=EvalConfig(),
                trials=trials,
                out=work / f"model-{label}",
                concurrency=concurrency,
            )
            out[label] = {"timing": summary["timing"], "usage": summary["usage"], "text": summary["text"]}
        out["requests"] = len(fake.requests)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domains", nargs="+", default=["online_store", "library_loans"])
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--model-trials", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    results: dict[str, Any] = {"load_average_start": list(os.getloadavg()), "domains": {}}
    with tempfile.TemporaryDirectory(prefix="synthenv-evaluate-bench-") as tmp:
        work = Path(tmp)
        for domain in args.domains:
            bundle = Path(generate(Inputs(domain=domain, seed=0), work / "bundles", work / f"build-{domain}")["path"])
            suite = baselines(Target(str(bundle)), trials=args.trials, out=work / f"baselines-{domain}")
            print(f"\n## {suite['bundle']}: scripted baselines, {args.trials} trials per task\n")
            print(suite["table"])
            for free in suite["trivial_passes"]:
                print(f"  trivial pass: {free['policy']} {free['family']} L{free['level']} {free['pass_at_1']:.2f}")
            timing = {name: r["timing"] for name, r in suite["runs"].items()}
            for name, t in timing.items():
                print(f"  {name}: {t['episodes_played']} episodes, {1000 * t['seconds_per_episode']:.1f} ms/episode")
            results["domains"][domain] = {
                "bundle": suite["bundle"],
                "table": suite["table"],
                "trivial_passes": suite["trivial_passes"],
                "timing": timing,
            }
        first = Path(generate(Inputs(domain=args.domains[0], seed=0), work / "bundles", work / "again")["path"])
        model = fake_model_run(first, work, args.model_trials, args.concurrency)
        print(f"\n## fake model (reference follower, hasty in ~1/4 of trials), K = {args.model_trials}\n")
        lines = model["cold"]["text"].splitlines()
        print("\n".join(lines[:4] + [line for line in lines if line.startswith("(all)")]))
        for label in ("cold", "cached"):
            t, u = model[label]["timing"], model[label]["usage"]
            print(
                f"  {label}: {t['episodes_played']} episodes, {t['seconds']:.1f} s, "
                f"{1000 * t['seconds_per_episode']:.1f} ms/episode (concurrency {t['concurrency']}), "
                f"model calls {u['calls']} (cached {u['cached']}), load {t['load_average']}"
            )
        results["model"] = {k: v for k, v in model.items() if k != "text"}
    results["load_average_end"] = list(os.getloadavg())
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "evaluate_bench.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"\nload average: start {results['load_average_start']}, end {results['load_average_end']}")


if __name__ == "__main__":
    main()
