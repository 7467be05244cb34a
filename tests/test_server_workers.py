"""``synthenv serve --workers N``: sessions stay with their worker, whichever connection asks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from pipeline.server.workers import owner, session_prefix

TOKEN = "workers-trainer-token-0123456789"


def test_a_session_id_names_its_worker() -> None:
    assert owner(session_prefix(3) + "abc-def.ghi") == 3
    assert owner("abcdef") is None and owner("wx.abc") is None and owner("w.abc") is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_sessions_work_from_any_connection_with_two_workers(store_bundle: Path) -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "pipeline.cli.main", "serve", str(store_bundle), "--port", str(port), "--workers", "2"]
    env = {**os.environ, "SYNTHENV_TRAINER_TOKEN": TOKEN}  # every worker shares the one token
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "server did not start"
            time.sleep(0.3)
        # A new connection per request: the kernel spreads them over both workers.
        fresh = {"Connection": "close"}
        trainer = {**fresh, "Authorization": f"Bearer {TOKEN}"}
        opened = [httpx.post(f"{base}/trainer/sessions", json={"seed": i}, headers=trainer) for i in range(8)]
        sids = [r.json()["session_id"] for r in opened]
        assert {owner(s) for s in sids} <= {0, 1}
        for n, sid in enumerate(sids):
            h = {**fresh, "X-Session-Id": sid}
            before = httpx.post(f"{base}/tools/get_product", json={"id": 1}, headers=h).json()["stock"]
            changed = (before + n + 1) % 200
            r = httpx.post(f"{base}/tools/update_product", json={"id": 1, "stock": changed}, headers=h)
            assert r.status_code == 200, r.text
            assert httpx.post(f"{base}/tools/get_product", json={"id": 1}, headers=h).json()["stock"] == changed
            r = httpx.post(f"{base}/trainer/sessions/{sid}/reset", json={}, headers=trainer)
            assert r.status_code == 200, r.text
            assert httpx.post(f"{base}/tools/get_product", json={"id": 1}, headers=h).json()["stock"] == before
            r = httpx.post(f"{base}/sessions/{sid}/step", json={"action": {"answer": None}}, headers=fresh)
            assert r.json()["info"]["verification"]["assigned_task_id"] == r.json()["info"]["verification"]["task_id"]
            verdict = httpx.get(f"{base}/trainer/sessions/{sid}/verdict", headers=trainer).json()
            assert verdict["verdict"]["reward"] == r.json()["reward"], verdict
            assert httpx.delete(f"{base}/trainer/sessions/{sid}", headers=trainer).status_code == 204
        missing = httpx.post(f"{base}/tools/get_product", json={"id": 1}, headers={"X-Session-Id": "w1.nope"})
        assert missing.status_code == 404
    finally:
        server.terminate()
        server.wait(timeout=30)
