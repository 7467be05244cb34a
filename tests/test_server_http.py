"""The HTTP contract of ``synthenv serve``: trainer-opened sessions, tool routes, errors, capacity, reaping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from pipeline.bundle.format import load_bundle
from pipeline.server.http import create_app
from pipeline.server.sessions import CapacityError, SessionManager, UnknownSession
from pipeline.tools.specs import Toolset

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000")


TOKEN = "trainer-secret-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def app(store_bundle: Path) -> Any:
    return create_app(store_bundle, max_sessions=16, session_ttl=600, trainer_token=TOKEN)


async def _session(c: httpx.AsyncClient, **body: Any) -> str:
    r = await c.post("/trainer/sessions", json=body, headers=AUTH)
    assert r.status_code == 201, r.text
    return str(r.json()["session_id"])


async def _close(c: httpx.AsyncClient, sid: str) -> httpx.Response:
    return await c.delete(f"/trainer/sessions/{sid}", headers=AUTH)


async def test_health_names_the_bundle_and_counts_sessions(app: Any, store_bundle: Path) -> None:
    bundle = load_bundle(store_bundle)
    async with _client(app) as c:
        before = (await c.get("/health")).json()
        sid = await _session(c)
        after = (await c.get("/health")).json()
        await _close(c, sid)
    assert before["status"] == "ok" and before["bundle"] == bundle.ref and before["digest"] == bundle.digest
    assert before["digest"].startswith("sha256:")
    assert after["sessions"] == before["sessions"] + 1


async def test_session_lifecycle(app: Any) -> None:
    manager = app.state.manager
    task = manager.template.tasks[0]
    async with _client(app) as c:
        r = await c.post("/trainer/sessions", json={"task_id": task.id, "seed": 3}, headers=AUTH)
        assert r.status_code == 201
        body = r.json()
        sid = body["session_id"]
        assert body["info"]["task_id"] == task.id and body["observation"]["instruction"] == task.instruction
        r = await c.post(f"/sessions/{sid}/step", json={"action": {"tool": "get_order", "arguments": {"id": 1}}})
        step = r.json()
        assert r.status_code == 200 and step["observation"]["type"] == "tool_result" and step["terminated"] is False
        r = await c.post(f"/sessions/{sid}/step", json={"action": {"answer": "no idea"}})
        assert r.json()["terminated"] is True and r.json()["info"]["verification"]["status"] == "failed"
        r = await c.post("/tools/get_order", json={"id": 1}, headers={"X-Session-Id": sid})
        assert r.status_code == 409 and r.json()["code"] == "episode_over"
        r = await c.post(f"/trainer/sessions/{sid}/reset", json={"seed": 1}, headers=AUTH)
        assert r.status_code == 200 and set(r.json()) == {"observation", "info"}
        assert (await c.post("/tools/get_order", json={"id": 1}, headers={"X-Session-Id": sid})).status_code == 200
        assert (await _close(c, sid)).status_code == 204
        second = await _close(c, sid)
        assert second.status_code == 404 and second.json()["message"]


async def test_tool_routes_return_results_and_typed_errors(app: Any) -> None:
    toolset: Toolset = app.state.manager.template.toolset
    async with _client(app) as c:
        sid = await _session(c)
        h = {"X-Session-Id": sid}
        ok = await c.post("/tools/get_order", json={"id": 1}, headers=h)
        assert ok.status_code == 200
        Draft202012Validator(toolset.get("get_order").result).validate(ok.json())
        cases = [
            ("get_order", {"id": 10**9}, 404, "not_found"),
            ("get_order", {"id": "1"}, 400, "invalid_argument"),
            ("get_order", {}, 400, "invalid_argument"),
            ("get_order", [1, 2], 400, "invalid_argument"),
            ("list_orders", {"limit": 10_000}, 400, "invalid_argument"),
            ("no_such_tool", {}, 404, "not_found"),
        ]
        for tool, args, status, code in cases:
            r = await c.post(f"/tools/{tool}", json=args, headers=h)
            assert (r.status_code, r.json()["code"]) == (status, code), (tool, args, r.text)
            assert r.json()["message"]
        delivered = (await c.post("/tools/list_orders", json={"status": "delivered", "limit": 1}, headers=h)).json()
        r = await c.post("/tools/cancel_order", json={"id": delivered["items"][0]["id"]}, headers=h)
        assert (
            r.status_code == 409 and r.json()["code"] == "forbidden_transition" and "'delivered'" in r.json()["message"]
        )


@pytest.mark.parametrize(
    "content, headers, status",
    [
        (b"{not json", {}, 400),
        (b'{"id": NaN}', {}, 400),
        (b'{"id": Infinity}', {}, 400),
        (b"[" * 100_000 + b"]" * 100_000, {}, 400),
        (b"", {}, 400),
        (b'{"id": 1}', {"X-Session-Id": "nope"}, 404),
        (b'{"id": 1}', {"X-Session-Id": ""}, 400),
        (b"x" * (2 << 20), {}, 413),
    ],
    ids=["malformed", "nan", "infinity", "deep", "empty", "unknown-session", "blank-session", "huge"],
)
async def test_bad_requests_are_4xx_with_a_message(
    app: Any, content: bytes, headers: dict[str, str], status: int
) -> None:
    async with _client(app) as c:
        sid = await _session(c)
        h = {"X-Session-Id": sid, "Content-Type": "application/json", **headers}
        r = await c.post("/tools/get_order", content=content, headers=h)
        await _close(c, sid)
    assert r.status_code == status, r.text
    assert r.json()["code"] and r.json()["message"]


@pytest.mark.parametrize(
    "path, body",
    [
        ("/trainer/sessions", {"seed": "x"}),
        ("/trainer/sessions", {"seed": -1}),
        ("/trainer/sessions", {"task_id": 5}),
        ("/trainer/sessions", {"colour": "red"}),
        ("/trainer/sessions", [1]),
        ("/sessions/{sid}/step", {}),
        ("/sessions/{sid}/step", {"action": "get_order"}),
        ("/trainer/sessions/{sid}/reset", {"seed": 1.5}),
    ],
)
async def test_session_routes_refuse_malformed_bodies(app: Any, path: str, body: Any) -> None:
    async with _client(app) as c:
        sid = await _session(c)
        r = await c.post(path.format(sid=sid), json=body, headers=AUTH)
        await _close(c, sid)
    assert r.status_code == 400 and r.json()["code"] == "invalid_argument", r.text


async def test_unknown_task_and_session_are_404(app: Any) -> None:
    async with _client(app) as c:
        r = await c.post("/trainer/sessions", json={"task_id": "no-such-task"}, headers=AUTH)
        assert r.status_code == 404 and "no-such-task" in r.json()["message"]
        for path in ("/trainer/sessions/nope/reset", "/sessions/nope/step"):
            r = await c.post(path, json={"action": {"answer": 1}} if path.endswith("step") else {}, headers=AUTH)
            assert r.status_code == 404 and "POST /trainer/sessions" in r.json()["message"]


async def test_sql_fragments_are_data(app: Any) -> None:
    async with _client(app) as c:
        h = {"X-Session-Id": await _session(c)}
        evil = "x'); DROP TABLE orders; --"
        r = await c.post("/tools/list_customers", json={"full_name_contains": evil}, headers=h)
        assert r.status_code == 200 and r.json()["total"] == 0
        r = await c.post("/tools/create_category", json={"name": evil}, headers=h)
        assert r.status_code == 200 and r.json()["name"] == evil
        assert (await c.post("/tools/list_orders", json={"limit": 1}, headers=h)).json()["total"] > 0


async def test_sessions_are_isolated(app: Any) -> None:
    async with _client(app) as c:
        a, b = {"X-Session-Id": await _session(c)}, {"X-Session-Id": await _session(c)}
        before = (await c.post("/tools/get_product", json={"id": 1}, headers=b)).json()["stock"]
        await c.post("/tools/update_product", json={"id": 1, "stock": (before + 1) % 200}, headers=a)
        assert (await c.post("/tools/get_product", json={"id": 1}, headers=b)).json()["stock"] == before
        assert (await c.post("/tools/get_product", json={"id": 1}, headers=a)).json()["stock"] == (before + 1) % 200


async def test_over_capacity_is_503_with_a_message(store_bundle: Path) -> None:
    app = create_app(store_bundle, max_sessions=2, session_ttl=600, trainer_token=TOKEN)
    async with _client(app) as c:
        await _session(c)
        await _session(c)
        r = await c.post("/trainer/sessions", headers=AUTH)
    assert r.status_code == 503 and r.headers["retry-after"] and "maximum of 2 sessions" in r.json()["message"]


def test_idle_sessions_are_reaped(store_bundle: Path) -> None:
    now = [0.0]
    manager = SessionManager(store_bundle, max_sessions=2, session_ttl=10, clock=lambda: now[0])
    old, _, _ = manager.create()
    now[0] = 8.0
    fresh, _, _ = manager.create()
    with pytest.raises(CapacityError):
        manager.create()
    now[0] = 12.0
    manager.get(fresh)  # use keeps a session alive
    assert manager.reap() == 1 and not manager.is_open(old) and manager.is_open(fresh)
    with pytest.raises(UnknownSession):
        manager.get(old)
    manager.create()  # full again
    now[0] = 30.0
    third, _, _ = manager.create()  # idle sessions make room
    assert manager.is_open(third) and not manager.is_open(fresh)
    assert manager.close(third) and not manager.close(third)


async def test_served_openapi_has_every_bundle_route_unchanged(app: Any, store_bundle: Path) -> None:
    from openapi_spec_validator import validate

    bundle_doc = json.loads((store_bundle / "openapi.json").read_text(encoding="utf-8"))
    async with _client(app) as c:
        served = (await c.get("/openapi.json")).json()
    validate(served)
    for path, item in bundle_doc["paths"].items():
        ours = served["paths"][path]["post"]
        assert ours["requestBody"] == item["post"]["requestBody"]
        assert ours["responses"]["200"] == item["post"]["responses"]["200"]
        assert any(p["name"] == "X-Session-Id" and p["in"] == "header" for p in ours["parameters"])
    assert {"/health", "/sessions/{session_id}/step"} <= set(served["paths"])
    # The agent's map holds no way to start, reset, pick or close an episode.
    assert not [
        p for p in served["paths"] if not p.startswith("/tools/") and not p.endswith("/step") and p != "/health"
    ]


def test_serve_command_is_registered() -> None:
    from typer.testing import CliRunner

    from pipeline.cli.main import app as cli

    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--max-sessions", "--session-ttl", "--trainer-token", "--forwarded-allow-ips"):
        assert option in result.output


async def test_no_agent_facing_route_returns_an_expected_value(app: Any) -> None:
    """Session and tool routes never reveal the gold: no verify route, no knobs, only pass/fail at the end."""
    task = next(t for t in app.state.manager.template.tasks if t.family == "conditional")
    async with _client(app) as c:
        sid = await _session(c, task_id=task.id)
        r = await c.post(f"/sessions/{sid}/verify", json={"answer": None})
        assert r.status_code == 404
        r = await c.post(f"/trainer/sessions/{sid}/verify", json={})
        assert r.status_code == 401  # the session id alone opens nothing
        r = await c.post(f"/sessions/{sid}/step", json={"action": {"answer": "done"}})
        shown = r.text
        assert r.json()["info"]["verification"]["status"] == "failed"
        for change in task.verifier.changes:
            for value in change.values.values():
                if isinstance(value, str) and len(value) > 3:
                    assert value not in shown
            assert json.dumps(change.key)[1:-1] not in shown
        served = (await c.get("/openapi.json")).json()
    assert not any("verify" in path or "trainer" in path for path in served["paths"])


async def test_trainer_route_needs_the_token_and_returns_the_full_verdict(store_bundle: Path) -> None:
    trained = create_app(store_bundle, max_sessions=4, session_ttl=600, trainer_token=TOKEN)
    task = next(t for t in trained.state.manager.template.tasks if t.verifier.changes)
    async with _client(trained) as c:
        sid = await _session(c, task_id=task.id)
        url = f"/trainer/sessions/{sid}/verify"
        for headers in ({}, {"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": sid}, {"X-Session-Id": sid}):
            r = await c.post(url, json={}, headers=headers)
            assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer", headers
        auth = {"Authorization": f"Bearer {TOKEN}"}
        r = await c.post(url, json={}, headers=auth)
        assert r.status_code == 200 and r.json()["status"] == "failed" and r.json()["episode_done"] is False
        expected = [ch["expected"] for ch in r.json()["checks"] if ch["name"].startswith("change")]
        assert expected and all("key" in e for e in expected)
        for call in task.solution:
            await c.post(f"/sessions/{sid}/step", json={"action": call.model_dump()})
        r = await c.post(url, json={"answer": task.answer}, headers=auth)
        assert r.json()["status"] == "passed" and r.json()["reward"] == 1.0
        assert r.json()["task_id"] == r.json()["assigned_task_id"] == task.id
        r = await c.post(url, json={"answer": {"a": 1}}, headers=auth)
        assert r.status_code == 400 and r.json()["code"] == "invalid_argument"
        r = await c.post("/trainer/sessions/nope/verify", json={}, headers=auth)
        assert r.status_code == 404
    with pytest.raises(ValueError, match="at least 16"):
        create_app(store_bundle, trainer_token="short")


def test_an_idle_session_expires_exactly_at_its_ttl_and_is_closed(store_bundle: Path) -> None:
    now = [0.0]
    manager = SessionManager(store_bundle, max_sessions=3, session_ttl=10, clock=lambda: now[0])
    sid, _, _ = manager.create()
    env = manager.get(sid)
    now[0] = 9.5
    assert manager.get(sid) is env  # used at 9.5: alive until 19.5
    now[0] = 19.0
    assert manager.is_open(sid) and len(manager) == 1
    now[0] = 19.6
    with pytest.raises(UnknownSession):
        manager.get(sid)  # expired even before the reaper ran
    assert manager.reap() == 1 and len(manager) == 0
    assert env._session is None  # the reaped session was closed, its connection released


async def test_no_agent_facing_route_starts_resets_or_closes_an_episode(app: Any) -> None:
    tasks = app.state.manager.template.tasks
    async with _client(app) as c:
        sid = await _session(c, task_id=tasks[0].id)
        attempts = [
            await c.post("/sessions", json={"task_id": tasks[1].id}),
            await c.post(f"/sessions/{sid}/reset", json={"task_id": tasks[1].id}),
            await c.delete(f"/sessions/{sid}"),
        ]
        for r in attempts:
            assert r.status_code in (404, 405) and "POST /trainer/sessions" in r.json()["message"], r.text
        assert app.state.manager.get(sid).assigned_task_id == tasks[0].id
        trainer_routes = [
            ("POST", "/trainer/sessions"),
            ("POST", f"/trainer/sessions/{sid}/reset"),
            ("DELETE", f"/trainer/sessions/{sid}"),
            ("POST", f"/trainer/sessions/{sid}/verify"),
            ("GET", f"/trainer/sessions/{sid}/verdict"),
        ]
        for method, path in trainer_routes:
            for headers in ({}, {"X-Session-Id": sid}, {"Authorization": f"Bearer {sid}"}):
                r = await c.request(method, path, headers=headers, json={} if method == "POST" else None)
                assert r.status_code == 401, (method, path, headers)
        assert app.state.manager.is_open(sid) and app.state.manager.get(sid).assigned_task_id == tasks[0].id
        await _close(c, sid)


async def test_create_app_without_a_token_generates_one(store_bundle: Path) -> None:
    made = create_app(store_bundle, max_sessions=2, session_ttl=600)
    token = made.state.trainer_token
    assert isinstance(token, str) and len(token) >= 32
    async with _client(made) as c:
        assert (await c.post("/trainer/sessions", json={})).status_code == 401
        r = await c.post("/trainer/sessions", json={}, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201
        assert token not in (await c.get("/health")).text
    assert create_app(store_bundle, max_sessions=2).state.trainer_token != token


async def test_the_first_verdict_stands_and_names_its_task(app: Any) -> None:
    task = next(t for t in app.state.manager.template.tasks if t.verifier.changes and t.verifier.answer is None)
    async with _client(app) as c:
        sid = await _session(c, task_id=task.id)
        h = {"X-Session-Id": sid}
        assert (await c.get(f"/trainer/sessions/{sid}/verdict", headers=AUTH)).json()["verdict"] is None
        for call in task.solution:
            assert (await c.post(f"/tools/{call.tool}", json=call.arguments, headers=h)).status_code == 200
        r = await c.post(f"/sessions/{sid}/step", json={"action": {"answer": task.answer}})
        shown = r.json()["info"]["verification"]
        assert shown["status"] == "passed" and shown["task_id"] == shown["assigned_task_id"] == task.id
        state = (await c.post(f"/trainer/sessions/{sid}/verify", json={"answer": task.answer}, headers=AUTH)).json()
        first = (await c.get(f"/trainer/sessions/{sid}/verdict", headers=AUTH)).json()
        assert first["episode_done"] and first["verdict"]["status"] == "passed"
        assert first["verdict"]["task_id"] == first["assigned_task_id"] == task.id
        later = [
            await c.post(f"/sessions/{sid}/step", json={"action": {"answer": "something else"}}),
            await c.post(
                f"/sessions/{sid}/step", json={"action": {"tool": "create_category", "arguments": {"name": "X"}}}
            ),
            await c.post(f"/sessions/{sid}/step", json={"action": {"junk": 1}}),
        ]
        for r in later:
            body = r.json()
            assert r.status_code == 200 and body["observation"]["error"]["code"] == "episode_over"
            assert body["reward"] == 0.0 and "verification" not in body["info"]
        r = await c.post("/tools/create_category", json={"name": "After The End"}, headers=h)
        assert r.status_code == 409 and r.json()["code"] == "episode_over"
        again = (await c.post(f"/trainer/sessions/{sid}/verify", json={"answer": task.answer}, headers=AUTH)).json()
        assert again == state  # nothing was written after the answer
        assert (await c.get(f"/trainer/sessions/{sid}/verdict", headers=AUTH)).json() == first
        await _close(c, sid)


@pytest.mark.slow
def test_serve_without_a_token_prints_a_generated_one_that_works(store_bundle: Path, tmp_path: Path) -> None:
    import os
    import re
    import subprocess
    import sys
    import time

    from loopback import free_port

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "SYNTHENV_TRAINER_TOKEN"}
    log = tmp_path / "serve.err"
    command = [sys.executable, "-m", "pipeline.cli.main", "serve", str(store_bundle), "--port", str(port)]
    with log.open("wb") as err:
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=err)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        printed = re.findall(r"trainer token \(Authorization: Bearer\): (\S+)", log.read_text())
        assert len(printed) == 1, log.read_text()
        assert httpx.post(f"{base}/trainer/sessions", json={}).status_code == 401
        r = httpx.post(f"{base}/trainer/sessions", json={}, headers={"Authorization": f"Bearer {printed[0]}"})
        assert r.status_code == 201 and printed[0] not in httpx.get(f"{base}/health").text
    finally:
        proc.terminate()
        proc.wait(timeout=20)
