"""MCP over streamable HTTP with the official client (ClientSession + streamable_http_client)
against a real ``synthenv serve`` process on a loopback port: the agent plays the episode the
trainer opened (``X-Session-Id``); the trainer's own MCP loop (its token) gets one episode per
MCP session and the reset and verify tools."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from pipeline.server.client import TrainerClient
from pipeline.server.mcp import ANSWER, CONTROL_META, INSTRUCTION_URI, POLICY_URI, RESET, SESSION_META, VERIFY

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
TOKEN = "a-trainer-token-of-enough-length"
TRAINER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(bundle: Path, ttl: float) -> Iterator[str]:
    """``synthenv serve`` in its own process on a free loopback port, stopped on exit."""
    port = _free_port()
    command = [sys.executable, "-m", "pipeline.cli.main", "serve", str(bundle), "--port", str(port)]
    command += ["--max-sessions", "24", "--session-ttl", str(ttl)]
    env = {**os.environ, "SYNTHENV_TRAINER_TOKEN": TOKEN}
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "serve exited")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


@pytest.fixture(scope="module")
def served(store_bundle: Path) -> Iterator[str]:
    with serve(store_bundle, ttl=120) as base:
        yield base


@contextlib.asynccontextmanager
async def mcp_session(base: str, terminate: bool = True, **headers: str) -> AsyncIterator[ClientSession]:
    http = httpx.AsyncClient(headers=headers, timeout=30) if headers else None
    async with contextlib.AsyncExitStack() as stack:
        if http is not None:
            await stack.enter_async_context(http)
        read, write, *_ = await stack.enter_async_context(
            streamable_http_client(f"{base}/mcp", http_client=http, terminate_on_close=terminate)
        )
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        yield session


def open_sessions(base: str) -> int:
    return int(httpx.get(f"{base}/health").json()["sessions"])


async def wait_for_sessions(base: str, expected: int, seconds: float = 10) -> int:
    deadline = time.monotonic() + seconds
    while (n := open_sessions(base)) != expected and time.monotonic() < deadline:
        await anyio.sleep(0.2)
    return n


async def test_a_write_is_visible_to_the_next_call(served: str) -> None:
    with TrainerClient(served, TOKEN) as trainer:
        sid = trainer.open(seed=0)
        async with mcp_session(served, **{"X-Session-Id": sid}) as mcp:
            before = await mcp.call_tool("get_product", {"id": 1})
            stock = (before.structured_content["stock"] + 7) % 200
            await mcp.call_tool("update_product", {"id": 1, "stock": stock})
            after = await mcp.call_tool("get_product", {"id": 1})
        trainer.close(sid)
    assert after.structured_content["stock"] == stock
    assert after.meta[SESSION_META] == before.meta[SESSION_META] == sid


async def test_100_calls_use_one_session_and_closing_releases_it(served: str) -> None:
    assert await wait_for_sessions(served, 0) == 0
    async with mcp_session(served, **TRAINER) as mcp:
        seen = {(await mcp.call_tool("get_order", {"id": 1 + i % 20})).meta[SESSION_META] for i in range(100)}
        assert len(seen) == 1 and open_sessions(served) == 1
    assert await wait_for_sessions(served, 0) == 0


async def test_20_connections_use_20_sessions(served: str) -> None:
    assert await wait_for_sessions(served, 0) == 0
    seen: list[str] = []
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(20):
            mcp = await stack.enter_async_context(mcp_session(served, **TRAINER))
            for _ in range(3):
                seen.append((await mcp.call_tool("get_product", {"id": 2})).meta[SESSION_META])
        held = open_sessions(served)
    assert (held, len(set(seen))) == (20, 20)
    assert await wait_for_sessions(served, 0) == 0


async def test_an_idle_mcp_session_is_released(store_bundle: Path) -> None:
    # The timeout leaves room for a loaded CI machine between the call and the count (1 s
    # once expired the session before it was counted).
    with serve(store_bundle, ttl=6) as base:
        async with mcp_session(base, terminate=False, **TRAINER) as mcp:
            await mcp.call_tool("get_product", {"id": 3})
            assert open_sessions(base) == 1
            assert await wait_for_sessions(base, 0, seconds=60) == 0  # no DELETE: the idle timeout ends it


async def test_an_agent_runs_the_trainers_episode_over_mcp(served: str) -> None:
    tasks = {}
    with TrainerClient(served, TOKEN) as trainer:
        opened = trainer.start(seed=3)
        sid, assigned = opened.session_id, opened.info["task_id"]
        async with mcp_session(served, **{"X-Session-Id": sid}) as mcp:
            tools = {t.name: t for t in (await mcp.list_tools()).tools}
            assert ANSWER in tools and RESET not in tools and VERIFY not in tools
            assert tools[ANSWER].meta == {CONTROL_META: True} and tools["get_order"].meta is None
            read = await mcp.read_resource(INSTRUCTION_URI)
            prompt = await mcp.get_prompt("instruction")
            policy = (await mcp.read_resource(POLICY_URI)).contents[0].text
            listed = {str(r.uri) for r in (await mcp.list_resources()).resources}
            # The world's policy comes with the request wherever the agent reads it, as in every adapter.
            assert listed == {INSTRUCTION_URI, POLICY_URI} and policy.startswith("Policy of this system:\nToday is")
            assert read.contents[0].text == opened.observation["instruction"]
            assert prompt.messages[0].content.text == f"{policy}\n\n{read.contents[0].text}"
            assert mcp.initialize_result is not None and policy in (mcp.initialize_result.instructions or "")
            refused = [await mcp.call_tool(RESET, {"seed": 4}), await mcp.call_tool(VERIFY, {})]
            answered = await mcp.call_tool(ANSWER, {"answer": "no idea"})
            after = [
                await mcp.call_tool(ANSWER, {"answer": "another idea"}),
                await mcp.call_tool("create_category", {"name": "After The End"}),
            ]
        tasks["verdict"] = trainer.verdict(sid)
        trainer.close(sid)
    for r in refused:
        assert r.is_error and json.loads(r.content[0].text)["code"] == "not_found"
    assert answered.structured_content["reward"] == 0.0 and answered.structured_content["terminated"]
    shown = answered.structured_content["info"]["verification"]
    assert "expected" not in json.dumps(shown) and shown["task_id"] == shown["assigned_task_id"] == assigned
    for r in after:
        assert r.is_error and json.loads(r.content[0].text)["code"] == "episode_over"
    verdict = tasks["verdict"]
    assert verdict is not None and verdict["status"] == "failed" and verdict["task_id"] == assigned


async def test_an_agent_connection_naming_no_session_opens_none(served: str) -> None:
    assert await wait_for_sessions(served, 0) == 0
    async with mcp_session(served) as mcp:
        called = await mcp.call_tool("get_product", {"id": 1})
        answered = await mcp.call_tool(ANSWER, {"answer": 1})
        held = open_sessions(served)
    assert held == 0
    for r in (called, answered):
        error = json.loads(r.content[0].text)
        assert r.is_error and error["code"] == "no_episode" and "POST /trainer/sessions" in error["message"]


async def test_the_trainer_token_adds_reset_and_verify(served: str) -> None:
    async with mcp_session(served, **TRAINER) as mcp:
        assert {RESET, VERIFY} <= {t.name for t in (await mcp.list_tools()).tools}
        started = await mcp.call_tool(RESET, {"seed": 3})
        verdict = await mcp.call_tool(VERIFY, {"answer": None})
    assert not started.is_error and started.structured_content["observation"]["instruction"]
    assert not verdict.is_error and verdict.structured_content["episode_done"] is False
    assert verdict.structured_content["task_id"] == started.structured_content["info"]["task_id"]


def test_a_step_body_of_the_wrong_shape_names_the_right_one(served: str) -> None:
    with httpx.Client(base_url=served) as http, TrainerClient(served, TOKEN) as trainer:
        sid = trainer.open(seed=0)
        wrong = http.post(f"/sessions/{sid}/step", json={"tool": "get_order", "arguments": {"id": 1}})
        right = http.post(f"/sessions/{sid}/step", json={"action": {"tool": "get_order", "arguments": {"id": 1}}})
        trainer.close(sid)
    assert wrong.status_code == 400 and '{"action": {"tool": NAME, "arguments": {...}}}' in wrong.json()["message"]
    assert right.status_code == 200 and right.json()["observation"]["type"] == "tool_result"
