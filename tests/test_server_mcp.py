"""MCP: the same tools as the bundle's specs, round trips in process and over streamable HTTP."""

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

from pipeline.server.mcp import ANSWER, CONTROL_PREFIX, RESET, SESSION_META, build_mcp_server
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
    assert [t.name for t in listed if t not in tools] == [RESET, ANSWER]
    for tool in tools:
        spec = specs[tool.name]
        assert tool.input_schema == spec.parameters and tool.output_schema == spec.result
        assert tool.description == spec.description
        assert tool.annotations is not None and tool.annotations.read_only_hint == (spec.mode == "read")


async def test_call_tool_round_trip_keeps_its_session(manager: SessionManager) -> None:
    async with Client(build_mcp_server(manager)) as client:
        first = await client.call_tool("get_product", {"id": 1})
        assert not first.is_error and first.structured_content["id"] == 1
        assert json.loads(first.content[0].text) == first.structured_content
        sid = first.meta[SESSION_META]
        stock = first.structured_content["stock"]
        meta = {SESSION_META: sid}
        await client.call_tool("update_product", {"id": 1, "stock": (stock + 1) % 200}, meta=meta)
        again = await client.call_tool("get_product", {"id": 1}, meta=meta)
        assert again.structured_content["stock"] == (stock + 1) % 200 and again.meta[SESSION_META] == sid
        elsewhere = await client.call_tool("get_product", {"id": 1})
        assert elsewhere.meta[SESSION_META] != sid and elsewhere.structured_content["stock"] == stock


async def test_handshake_connection_is_one_session(manager: SessionManager) -> None:
    async with Client(build_mcp_server(manager), mode="legacy") as client:
        created = await client.call_tool("create_category", {"name": "Zz Probe Category"})
        found = await client.call_tool("list_categories", {"name": "Zz Probe Category"})
    assert found.structured_content["total"] == 1 and found.meta[SESSION_META] == created.meta[SESSION_META]


async def test_errors_are_tool_errors_with_a_code(manager: SessionManager) -> None:
    async with Client(build_mcp_server(manager)) as client:
        bad = await client.call_tool("get_order", {"id": "x"})
        missing = await client.call_tool("get_order", {"id": 10**9})
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
    app = create_app(store_bundle, max_sessions=8, session_ttl=60, host="127.0.0.1")
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
        sid = (await http.post("/sessions", json={"seed": 0})).json()["session_id"]
        made = await http.post("/tools/create_category", json={"name": "Over The Wire"}, headers={"X-Session-Id": sid})
        assert made.status_code == 200
    async with Client(f"{live_server}/mcp") as client:
        tools = (await client.list_tools()).tools
        found = await client.call_tool("list_categories", {"name": "Over The Wire"}, meta={SESSION_META: sid})
    assert len(tools) > 10 and found.structured_content["total"] == 1
