"""MCP: the same tools as the bundle's specs, round trips in process and over streamable HTTP, in sessions
the trainer opened (an MCP request naming none opens none)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp import Client

from pipeline.server.mcp import ANSWER, CONTROL_PREFIX, RESET, SESSION_META, VERIFY, build_mcp_server
from pipeline.server.sessions import SessionManager

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def manager(store_bundle: Path) -> SessionManager:
    return SessionManager(store_bundle, max_sessions=32, session_ttl=600)


async def test_list_tools_mirrors_the_specs(manager: SessionManager) -> None:
    specs = {t.name: t for t in manager.template.toolset.tools}
    async with Client(build_mcp_server(manager)) as client:
        listed = (await client.list_tools()).tools
    tools = [t for t in listed if not t.name.startswith(CONTROL_PREFIX)]
    assert [t.name for t in tools] == list(specs)
    assert [t.name for t in listed if t not in tools] == [ANSWER]  # no reset, no verify: the trainer's
    for tool in tools:
        spec = specs[tool.name]
        assert tool.input_schema == spec.parameters and tool.output_schema == spec.result
        assert tool.description == spec.description
        assert tool.annotations is not None and tool.annotations.read_only_hint == (spec.mode == "read")


async def test_call_tool_round_trip_keeps_its_session(manager: SessionManager) -> None:
    sid, other = manager.create(seed=0)[0], manager.create(seed=0)[0]
    meta = {SESSION_META: sid}
    async with Client(build_mcp_server(manager)) as client:
        first = await client.call_tool("get_product", {"id": 1}, meta=meta)
        assert not first.is_error and first.structured_content["id"] == 1
        assert json.loads(first.content[0].text) == first.structured_content and first.meta[SESSION_META] == sid
        stock = first.structured_content["stock"]
        await client.call_tool("update_product", {"id": 1, "stock": (stock + 1) % 200}, meta=meta)
        again = await client.call_tool("get_product", {"id": 1}, meta=meta)
        assert again.structured_content["stock"] == (stock + 1) % 200 and again.meta[SESSION_META] == sid
        elsewhere = await client.call_tool("get_product", {"id": 1}, meta={SESSION_META: other})
        assert elsewhere.meta[SESSION_META] == other and elsewhere.structured_content["stock"] == stock


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_call_naming_no_session_opens_none(manager: SessionManager, mode: str) -> None:
    before = len(manager)
    async with Client(build_mcp_server(manager, "a-trainer-token-of-enough-length"), mode=mode) as client:
        results = [
            await client.call_tool("create_category", {"name": "Zz Probe Category"}),
            await client.call_tool(ANSWER, {"answer": 1}),
            await client.call_tool(RESET, {"task_id": manager.template.tasks[0].id}),
            await client.call_tool(VERIFY, {}),
        ]
    assert len(manager) == before
    assert all(r.is_error for r in results)
    codes = [json.loads(r.content[0].text)["code"] for r in results]
    assert codes == ["no_episode", "no_episode", "not_found", "not_found"]  # reset and verify: unknown to an agent
    assert "POST /trainer/sessions" in json.loads(results[0].content[0].text)["message"]


async def test_control_tools_are_not_callable_by_the_agent(manager: SessionManager) -> None:
    tasks = manager.template.tasks
    sid = manager.create(task_id=tasks[0].id)[0]
    async with Client(build_mcp_server(manager, "a-trainer-token-of-enough-length")) as client:
        reset = await client.call_tool(RESET, {"task_id": tasks[1].id}, meta={SESSION_META: sid})
        verify = await client.call_tool(VERIFY, {}, meta={SESSION_META: sid})
    assert reset.is_error and verify.is_error
    assert manager.get(sid).assigned_task_id == tasks[0].id and manager.get(sid).task == tasks[0]


async def test_errors_are_tool_errors_with_a_code(manager: SessionManager) -> None:
    meta = {SESSION_META: manager.create(seed=0)[0]}
    async with Client(build_mcp_server(manager)) as client:
        bad = await client.call_tool("get_order", {"id": "x"}, meta=meta)
        missing = await client.call_tool("get_order", {"id": 10**9}, meta=meta)
        unknown = await client.call_tool("get_product", {"id": 1}, meta={SESSION_META: "no-such-session"})
    assert bad.is_error and json.loads(bad.content[0].text)["code"] == "invalid_argument"
    assert missing.is_error and json.loads(missing.content[0].text)["code"] == "not_found"
    assert unknown.is_error and "no open session" in json.loads(unknown.content[0].text)["message"]


async def test_mcp_shares_a_session_made_over_rest(manager: SessionManager) -> None:
    sid, _, _ = manager.create(seed=0)
    manager.get(sid).step({"tool": "create_category", "arguments": {"name": "Made Over Rest"}})
    async with Client(build_mcp_server(manager)) as client:
        found = await client.call_tool("list_categories", {"name": "Made Over Rest"}, meta={SESSION_META: sid})
    assert found.structured_content["total"] == 1


TOKEN = "a-trainer-token-of-enough-length"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live_server(store_bundle: Path) -> Iterator[str]:
    """The real app under uvicorn on a loopback port, stopped after the test."""
    import uvicorn

    from pipeline.server.http import create_app

    port = _free_port()
    app = create_app(store_bundle, max_sessions=8, session_ttl=60, host="127.0.0.1", trainer_token=TOKEN)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def test_mcp_over_streamable_http_with_a_rest_session(live_server: str) -> None:
    async with httpx.AsyncClient(base_url=live_server) as http:
        opened = await http.post("/trainer/sessions", json={"seed": 0}, headers={"Authorization": f"Bearer {TOKEN}"})
        sid = opened.json()["session_id"]
        made = await http.post("/tools/create_category", json={"name": "Over The Wire"}, headers={"X-Session-Id": sid})
        assert made.status_code == 200
    async with Client(f"{live_server}/mcp") as client:
        tools = (await client.list_tools()).tools
        found = await client.call_tool("list_categories", {"name": "Over The Wire"}, meta={SESSION_META: sid})
    assert len(tools) > 10 and found.structured_content["total"] == 1
