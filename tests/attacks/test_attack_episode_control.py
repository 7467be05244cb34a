"""Task switching: an agent that could reset or pick its own task would win every episode.

For every task T of the bundle, the trainer opens a session assigned to another task A (one
on which T's gold play fails) and hands the agent only the session id. The agent, holding
nothing but that id and the agent-facing surface, tries to swap A for T and then plays T's
reference solution and answers T's gold answer:

* ``rest_reset``: ``POST /sessions/{id}/reset {"task_id": T}``;
* ``rest_create``: ``POST /sessions {"task_id": T}`` and plays in the new session;
* ``rest_delete``: ``DELETE /sessions/{id}``, then ``POST /sessions {"task_id": T}``;
* ``mcp_reset``: ``synthenv_reset {"task_id": T}`` over MCP with ``X-Session-Id``;
* ``mcp_new_connection``: a fresh (handshake) MCP connection naming no session, then ``synthenv_reset``;
* ``mcp_stateless``: a stateless MCP client naming no session, then ``synthenv_reset``.

A task is *won* when any reply the agent gets for T's gold answer says ``passed`` with
reward 1.0, or the trainer's verdict of the session it assigned does. The count must be 0
for every transport (run against the code before the trainer routes, every attack won all
65 tasks of the online_store bundle). The REST attacks use the episode-control routes of
those versions; the table prints with ``-s`` and is written as JSON to
``$SYNTHENV_ATTACK_TABLE`` when set.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
mcp = pytest.importorskip("mcp")

from loopback import serve  # noqa: E402
from mcp import Client, ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from pipeline.runtime.environment import Environment  # noqa: E402
from pipeline.server.http import create_app  # noqa: E402

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
TOKEN = "episode-control-attack-trainer-token"
SESSION_META, RESET, ANSWER = "synthenv/session", "synthenv_reset", "synthenv_answer"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _pairs(bundle: Path) -> list[tuple[Any, Any]]:
    """(target T, assigned A) for every task T: A is the next task on which T's gold play fails."""
    env = Environment.from_bundle(bundle)
    tasks = env.tasks
    pairs = []
    for i, target in enumerate(tasks):
        for step in range(1, len(tasks)):
            assigned = tasks[(i + step) % len(tasks)]
            env.reset(task_id=assigned.id, seed=0)
            for call in target.solution:
                env.step({"tool": call.tool, "arguments": call.arguments})
            if env.step({"answer": target.answer})[1] < 1.0:
                pairs.append((target, assigned))
                break
    env.close()
    return pairs


@pytest.fixture(scope="module")
def server(store_bundle: Path) -> Any:
    app = create_app(store_bundle, max_sessions=2048, session_ttl=600, trainer_token=TOKEN)
    with serve(app) as base:
        yield base, _pairs(store_bundle)


async def _trainer_open(http: httpx.AsyncClient, task_id: str) -> str:
    r = await http.post("/trainer/sessions", json={"task_id": task_id, "seed": 0}, headers=AUTH)
    if r.status_code in (404, 405):  # versions before the trainer routes: the only way to open one
        r = await http.post("/sessions", json={"task_id": task_id, "seed": 0})
    assert r.status_code == 201, r.text
    return str(r.json()["session_id"])


async def _trainer_verdict(http: httpx.AsyncClient, sid: str) -> dict[str, Any] | None:
    r = await http.get(f"/trainer/sessions/{sid}/verdict", headers=AUTH)
    return r.json().get("verdict") if r.status_code == 200 else None


def _passed(verification: Any) -> bool:
    return isinstance(verification, dict) and verification.get("status") == "passed" and verification["reward"] == 1.0


# -- REST --------------------------------------------------------------------------------------


async def _rest_play(http: httpx.AsyncClient, sid: str, target: Any) -> Any:
    for call in target.solution:
        await http.post(f"/tools/{call.tool}", json=call.arguments, headers={"X-Session-Id": sid})
    r = await http.post(f"/sessions/{sid}/step", json={"action": {"answer": target.answer}})
    return r.json().get("info", {}).get("verification") if r.status_code == 200 else None


async def rest_reset(http: httpx.AsyncClient, base: str, sid: str, target: Any) -> Any:
    await http.post(f"/sessions/{sid}/reset", json={"task_id": target.id})
    return await _rest_play(http, sid, target)


async def rest_create(http: httpx.AsyncClient, base: str, sid: str, target: Any) -> Any:
    r = await http.post("/sessions", json={"task_id": target.id})
    mine = str(r.json()["session_id"]) if r.status_code == 201 else sid
    return await _rest_play(http, mine, target)


async def rest_delete(http: httpx.AsyncClient, base: str, sid: str, target: Any) -> Any:
    await http.delete(f"/sessions/{sid}")
    r = await http.post("/sessions", json={"task_id": target.id})
    mine = str(r.json()["session_id"]) if r.status_code == 201 else sid
    return await _rest_play(http, mine, target)


# -- MCP ---------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _handshake(base: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(httpx.AsyncClient(headers=headers, timeout=30))
        read, write, *_ = await stack.enter_async_context(streamable_http_client(f"{base}/mcp", http_client=http))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        yield session


async def _mcp_play(call: Callable[..., Awaitable[Any]], target: Any, meta: dict[str, str] | None) -> Any:
    for step in target.solution:
        await call(step.tool, step.arguments, meta=meta)
    answered = await call(ANSWER, {"answer": target.answer}, meta=meta)
    content = answered.structured_content if not answered.is_error else None
    return (content or {}).get("info", {}).get("verification")


async def mcp_reset(http: httpx.AsyncClient, base: str, sid: str, target: Any) -> Any:
    async with _handshake(base, {"X-Session-Id": sid}) as client:
        await client.call_tool(RESET, {"task_id": target.id})
        return await _mcp_play(client.call_tool, target, None)


async def mcp_new_connection(http: httpx.AsyncClient, base: str, sid: str, target: Any) -> Any:
    async with _handshake(base, {}) as client:
        await client.call_tool(RESET, {"task_id": target.id})
        return await _mcp_play(client.call_tool, target, None)


async def mcp_stateless(http: httpx.AsyncClient, base: str, sid: str, target: Any) -> Any:
    async with Client(f"{base}/mcp") as client:
        started = await client.call_tool(RESET, {"task_id": target.id})
        mine = (started.meta or {}).get(SESSION_META) if not started.is_error else None
        return await _mcp_play(client.call_tool, target, {SESSION_META: mine or sid})


ATTACKS: dict[str, Callable[[httpx.AsyncClient, str, str, Any], Awaitable[Any]]] = {
    "rest_reset": rest_reset,
    "rest_create": rest_create,
    "rest_delete": rest_delete,
    "mcp_reset": mcp_reset,
    "mcp_new_connection": mcp_new_connection,
    "mcp_stateless": mcp_stateless,
}
TABLE: dict[str, dict[str, int]] = {}


@pytest.mark.parametrize("attack", list(ATTACKS))
async def test_no_task_is_won_by_switching(server: tuple[str, list[tuple[Any, Any]]], attack: str) -> None:
    base, pairs = server
    won: list[str] = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for target, assigned in pairs:
            sid = await _trainer_open(http, assigned.id)
            try:
                reply = await ATTACKS[attack](http, base, sid, target)
            except Exception:  # a refused attack may end in a transport error: it won nothing
                reply = None
            if _passed(reply) or _passed(await _trainer_verdict(http, sid)):
                won.append(target.id)
            await http.delete(f"/trainer/sessions/{sid}", headers=AUTH)
    TABLE[attack] = {"won": len(won), "tasks": len(pairs)}
    print(f"\n{attack}: {len(won)} of {len(pairs)} tasks won by switching")
    if os.environ.get("SYNTHENV_ATTACK_TABLE"):
        Path(os.environ["SYNTHENV_ATTACK_TABLE"]).write_text(json.dumps(TABLE, indent=1))
    assert len(pairs) > 10
    assert won == [], f"{attack} won {len(won)} of {len(pairs)} tasks: {won[:5]}"
