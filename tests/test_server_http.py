"""The HTTP contract of ``synthenv serve``: sessions, tool routes, errors, capacity, reaping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from pipeline.bundle import load_bundle
from pipeline.server.http import create_app
from pipeline.server.sessions import CapacityError, SessionManager, UnknownSession
from pipeline.tools import Toolset


pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


@pytest.fixture(scope="module")
def app(store_bundle: Path) -> Any:
    return create_app(store_bundle, max_sessions=16, session_ttl=600)


async def _session(c: httpx.AsyncClient, **body: Any) -> str:
    r = await c.post("/sessions", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["session_id"])


async def test_health_names_the_bundle_and_counts_sessions(app: Any, store_bundle: Path) -> None:
    bundle = load_bundle(store_bundle)
    async with _client(app) as c:
        before = (await c.get("/health")).json()
        sid = await _session(c)
        after = (await c.get("/health")).json()
        await c.delete(f"/sessions/{sid}")
    assert before["status"] == "ok" and before["bundle"] == bundle.ref and before["digest"] == bundle.digest
    assert before["digest"].startswith("sha256:")
    assert after["sessions"] == before["sessions"] + 1


async def test_session_lifecycle(app: Any) -> None:
    manager = app.state.manager
    task = manager.template.tasks[0]
    async with _client(app) as c:
        r = await c.post("/sessions", json={"task_id": task.id, "seed": 3})
        assert r.status_code == 201
        body = r.json()
        sid = body["session_id"]
        assert body["info"]["task_id"] == task.id and body["observation"]["instruction"] == task.instruction
        r = await c.post(f"/sessions/{sid}/step", json={"action": {"tool": "get_order", "arguments": {"id": 1}}})
        step = r.json()
        assert r.status_code == 200 and step["observation"]["type"] == "tool_result" and step["terminated"] is False
        r = await c.post(f"/sessions/{sid}/verify", json={"answer": task.answer})
        assert r.status_code == 200 and set(r.json()) >= {"reward", "checks"}
        r = await c.post(f"/sessions/{sid}/step", json={"action": {"answer": "no idea"}})
        assert r.json()["terminated"] is True
        r = await c.post("/tools/get_order", json={"id": 1}, headers={"X-Session-Id": sid})
        assert r.status_code == 409 and r.json()["code"] == "invalid_state"
        r = await c.post(f"/sessions/{sid}/reset", json={"seed": 1})
        assert r.status_code == 200 and set(r.json()) == {"observation", "info"}
        assert (await c.post("/tools/get_order", json={"id": 1}, headers={"X-Session-Id": sid})).status_code == 200
        assert (await c.delete(f"/sessions/{sid}")).status_code == 204
        second = await c.delete(f"/sessions/{sid}")
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
        assert r.status_code == 409 and r.json()["code"] == "forbidden_transition" and "'delivered'" in r.json()["message"]


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
async def test_bad_requests_are_4xx_with_a_message(app: Any, content: bytes, headers: dict[str, str], status: int) -> None:
    async with _client(app) as c:
        sid = await _session(c)
        h = {"X-Session-Id": sid, "Content-Type": "application/json", **headers}
        r = await c.post("/tools/get_order", content=content, headers=h)
        await c.delete(f"/sessions/{sid}")
    assert r.status_code == status, r.text
    assert r.json()["code"] and r.json()["message"]


@pytest.mark.parametrize(
    "path, body",
    [
        ("/sessions", {"seed": "x"}),
        ("/sessions", {"seed": -1}),
        ("/sessions", {"task_id": 5}),
        ("/sessions", {"colour": "red"}),
        ("/sessions", [1]),
        ("/sessions/{sid}/step", {}),
        ("/sessions/{sid}/step", {"action": "get_order"}),
        ("/sessions/{sid}/verify", {"answer": {"a": 1}}),
        ("/sessions/{sid}/reset", {"seed": 1.5}),
    ],
)
async def test_session_routes_refuse_malformed_bodies(app: Any, path: str, body: Any) -> None:
    async with _client(app) as c:
        sid = await _session(c)
        r = await c.post(path.format(sid=sid), json=body)
        await c.delete(f"/sessions/{sid}")
    assert r.status_code == 400 and r.json()["code"] == "invalid_argument", r.text


async def test_unknown_task_and_session_are_404(app: Any) -> None:
    async with _client(app) as c:
        r = await c.post("/sessions", json={"task_id": "no-such-task"})
        assert r.status_code == 404 and "no-such-task" in r.json()["message"]
        for path in ("/sessions/nope/reset", "/sessions/nope/step", "/sessions/nope/verify"):
            r = await c.post(path, json={"action": {"answer": 1}} if path.endswith("step") else {})
            assert r.status_code == 404 and "POST /sessions" in r.json()["message"]


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
    app = create_app(store_bundle, max_sessions=2, session_ttl=600)
    async with _client(app) as c:
        await _session(c)
        await _session(c)
        r = await c.post("/sessions")
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
    assert {"/health", "/sessions", "/sessions/{session_id}", "/sessions/{session_id}/step"} <= set(served["paths"])


def test_serve_command_is_registered() -> None:
    from typer.testing import CliRunner

    from pipeline.cli import app as cli

    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--max-sessions", "--session-ttl"):
        assert option in result.output
