"""One episode that only creates rows: what it costs the server with and without the per-episode
budget (issue 25: "40,000 creates raised server memory by 108 MB").

In process (``synthenv serve``'s app through httpx's ASGI transport, no sockets), one trainer
session, then ``--creates`` calls of ``POST /tools/create_category`` with a fresh 500-character
name each. Run twice, each in a fresh child process so the figures do not share a heap: with the
CLI's defaults (``--max-writes 1000``, ``--max-rows 200``) and with budgets large enough never to
bite (what the server did before it had them). Reported per run: calls answered 2xx and 429
``limit_exceeded`` (and anything else), the first refusal's message, the process's resident
memory before and after, seconds, and the load average.

    python benchmarks/write_budget_probe.py --bundle B [--creates 40000]

Results are printed and written to ``benchmarks/results/write_budget_probe.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT))

UNBOUNDED = 10**9
"""A budget no run reaches: the server as it was before ``--max-writes`` and ``--max-rows``."""
TOKEN = "write-budget-probe-token-0123456789"


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _drive(bundle: Path, creates: int, max_writes: int | None, max_rows: int | None) -> dict[str, Any]:
    import httpx

    from pipeline.server.http import create_app
    from pipeline.server.limits import DEFAULT_MAX_ROWS, DEFAULT_MAX_WRITES

    app = create_app(
        bundle,
        max_sessions=4,
        session_ttl=3600,
        trainer_token=TOKEN,
        max_writes=DEFAULT_MAX_WRITES if max_writes is None else max_writes,
        max_rows=DEFAULT_MAX_ROWS if max_rows is None else max_rows,
    )
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        opened = await client.post("/trainer/sessions", json={"seed": 0}, headers={"Authorization": f"Bearer {TOKEN}"})
        headers = {"X-Session-Id": opened.json()["session_id"]}
        await client.post("/tools/create_category", json={"name": "Warm Up"}, headers=headers)
        before = _rss_mb()
        start = time.perf_counter()
        answers: Counter[str] = Counter()
        first_refusal = ""
        for i in range(creates):
            name = f"Category {i:06d} " + "x" * 484
            reply = await client.post("/tools/create_category", json={"name": name}, headers=headers)
            # The ASGI transport never suspends, so without this the loop never runs a cycle and keeps
            # every request's cancelled body-timeout timer (~190 bytes each) until one does; a server
            # on a socket runs one per request.
            await asyncio.sleep(0)
            if reply.status_code < 300:
                answers["2xx"] += 1
            else:
                code = str(reply.json().get("code"))
                answers[f"{reply.status_code} {code}"] += 1
                first_refusal = first_refusal or str(reply.json().get("message"))
        seconds = time.perf_counter() - start
        after = _rss_mb()
    return {
        "max_writes": max_writes,
        "max_rows": max_rows,
        "creates": creates,
        "answers": dict(answers),
        "first_refusal": first_refusal[:200],
        "rss_before_mb": round(before, 1),
        "rss_after_mb": round(after, 1),
        "rss_growth_mb": round(after - before, 1),
        "seconds": round(seconds, 1),
        "load": Path("/proc/loadavg").read_text().split()[:3],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--creates", type=int, default=40_000)
    parser.add_argument("--out", type=Path, default=RESULTS / "write_budget_probe.json")
    parser.add_argument("--one", choices=["default", "unbounded"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    bundle = args.bundle.absolute()
    if args.one:
        limit = UNBOUNDED if args.one == "unbounded" else None
        print(json.dumps(asyncio.run(_drive(bundle, args.creates, limit, limit))))
        return
    runs = []
    for one in ("default", "unbounded"):
        cmd = [sys.executable, __file__, "--bundle", str(bundle), "--creates", str(args.creates), "--one", one]
        done = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
        run = json.loads(done.stdout.strip().splitlines()[-1])
        runs.append({"budgets": one, **run})
        print(
            f"{one:<9} answers {run['answers']}  memory {run['rss_before_mb']} -> {run['rss_after_mb']} MB "
            f"(+{run['rss_growth_mb']})  {run['seconds']} s  load {' '.join(run['load'])}"
        )
        if run["first_refusal"]:
            print(f"          first refusal: {run['first_refusal']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(runs, indent=1) + "\n")


if __name__ == "__main__":
    main()
