"""Blind play: serve bundles, open one trainer session per sampled task, write a brief per task; then score.

A player (a person, or a model driven by its own harness) gets only the briefs: the server, its
session id, the system text every adapter shows (how to act, the answer and refusal forms, the
world's policy), the request and the tool list. It acts through the served tool routes
(``POST /tools/NAME`` with ``X-Session-Id``) and answers once (``POST /sessions/ID/step`` with
``{"action": {"answer": ...}}``). The task ids, expected answers and the trainer token go to a
secret file the player must not read; ``score`` reads each session's verdict back through the
trainer's routes and prints the solve rate per level and family beside the reference's calls.

    python benchmarks/blind_play.py setup --bundles out/*/1.0.0 --per-level 5=9 4=4 3=3 --dir /tmp/play
    python benchmarks/blind_play.py score --dir /tmp/play       # after the player has answered
    python benchmarks/blind_play.py stop --dir /tmp/play

Level 5 is sampled by family (choices, cases, sweeps in the proportion 4:3:2), the rest
uniformly; ``--prefer KNOB`` puts tasks whose knobs carry KNOB first (e.g. ``usual_fee_answer``:
the ones the late line changes).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.server.client import TrainerClient
from pipeline.surface.text import system_text

TOP_SHARE = {"choice": 4, "case": 3, "sweep": 2}


def _sample(bundles: list[Path], per_level: dict[int, int], prefer: str | None, seed: int) -> list[tuple[Path, Any]]:
    rng = random.Random(seed)
    tasks = [(b, json.loads(line)) for b in bundles for line in (b / "tasks.jsonl").read_text().splitlines()]
    picked: list[tuple[Path, Any]] = []

    def take(pool: list[tuple[Path, Any]], n: int) -> None:
        rng.shuffle(pool)
        # spread over worlds, the preferred knob first
        pool.sort(
            key=lambda bt: (prefer is not None and not bt[1]["knobs"].get(prefer), sum(p[0] == bt[0] for p in picked))
        )
        picked.extend(pool[:n])

    for level, n in per_level.items():
        pool = [(b, t) for b, t in tasks if t["level"] == level]
        if level == 5:
            share = sum(TOP_SHARE.values())
            for family, part in TOP_SHARE.items():
                take([bt for bt in pool if bt[1]["family"] == family], round(n * part / share))
        else:
            take(pool, n)
    rng.shuffle(picked)
    return picked


def setup(args: argparse.Namespace) -> None:
    root = Path(args.dir)
    briefs = root / "briefs"
    briefs.mkdir(parents=True, exist_ok=True)
    bundles = sorted(Path(b) for b in args.bundles)
    per_level = {int(k): int(v) for k, v in (p.split("=") for p in args.per_level)}
    picked = _sample(bundles, per_level, args.prefer, args.seed)
    token = "play-" + os.urandom(8).hex()
    servers: dict[str, tuple[int, int]] = {}
    for i, bundle in enumerate(bundles):
        port = args.port + i
        log = (root / f"serve-{port}.log").open("w")
        env = {**os.environ, "SYNTHENV_TRAINER_TOKEN": token}
        command = [sys.executable, "-m", "pipeline.cli.main", "serve", str(bundle), "--port", str(port)]
        proc = subprocess.Popen([*command, "--session-ttl", "86400"], env=env, stdout=log, stderr=log)
        servers[str(bundle)] = (port, proc.pid)
    for port, _ in servers.values():
        for _ in range(300):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(1)
        else:
            raise SystemExit(f"the server on port {port} did not start")
    secret = []
    for n, (bundle, task) in enumerate(picked, 1):
        port, _ = servers[str(bundle)]
        with TrainerClient(f"http://127.0.0.1:{port}", token, timeout=120) as trainer:
            episode = trainer.start(task_id=task["id"])
        manifest = json.loads((bundle / "manifest.json").read_text())
        tools = json.loads((bundle / "tools.json").read_text())
        brief = [
            f"# Task {n:02d}",
            "",
            f"Server: http://127.0.0.1:{port}",
            f"Session id: {episode.session_id}",
            "",
            "## System text",
            "",
            system_text(False, manifest.get("policy")),
            "",
            "## Request",
            "",
            str(episode.observation.get("instruction")),
            "",
            "## Tools (call: POST /tools/NAME with header X-Session-Id and a JSON body of the arguments)",
            "",
            "These routes take each filter as a top-level argument, named as each tool's parameters list it: "
            "where the system text says filters go in the where object, put them at the top level here.",
            "",
            "```json",
            json.dumps(tools, indent=1),
            "```",
            "",
            "## Answer",
            "",
            "The system text's submit_answer is this route here: POST /sessions/SESSION_ID/step with body "
            '{"action": {"answer": ANSWER}}, once, ANSWER a JSON value: a string, or the JSON object or list the '
            "request asks for, sent as JSON (not as a string).",
        ]
        (briefs / f"task{n:02d}.md").write_text("\n".join(brief) + "\n")
        secret.append(
            {
                "n": n,
                "bundle": str(bundle),
                "port": port,
                "session": episode.session_id,
                "task": task["id"],
                "family": task["family"],
                "level": task["level"],
                "answer": task["answer"],
                "calls": len(task["solution"]),
            }
        )
    (root / "secret.json").write_text(json.dumps({"token": token, "servers": servers, "tasks": secret}, indent=1))
    print(f"{len(secret)} briefs in {briefs}; the secret (task ids, answers, token) in {root / 'secret.json'}")


def score(args: argparse.Namespace) -> None:
    data = json.loads((Path(args.dir) / "secret.json").read_text())
    rows: dict[tuple[int, str], list[int]] = {}
    for task in data["tasks"]:
        with TrainerClient(f"http://127.0.0.1:{task['port']}", data["token"]) as trainer:
            verdict = trainer.verdict(task["session"])
        passed = verdict is not None and verdict.get("status") == "passed" and verdict.get("task_id") == task["task"]
        outcome = "pass" if passed else "FAIL"
        print(f"{task['n']:>3} L{task['level']} {task['task']:<16} reference calls {task['calls']:>2}  {outcome}")
        row = rows.setdefault((task["level"], task["family"]), [0, 0])
        row[0] += passed
        row[1] += 1
    print("\n| level | family | solved |\n|---:|---|---:|")
    for (level, family), (won, played) in sorted(rows.items()):
        print(f"| {level} | {family} | {won} of {played} |")


def stop(args: argparse.Namespace) -> None:
    data = json.loads((Path(args.dir) / "secret.json").read_text())
    for _, pid in data["servers"].values():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("setup")
    make.add_argument("--bundles", nargs="+", required=True)
    make.add_argument("--per-level", nargs="+", default=["5=9", "4=4", "3=3"], help="LEVEL=N")
    make.add_argument("--prefer", help="a knob the sampled tasks should carry first")
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("--port", type=int, default=8610)
    make.add_argument("--dir", required=True)
    for name in ("score", "stop"):
        sub.add_parser(name).add_argument("--dir", required=True)
    args = parser.parse_args()
    {"setup": setup, "score": score, "stop": stop}[args.command](args)


if __name__ == "__main__":
    main()
