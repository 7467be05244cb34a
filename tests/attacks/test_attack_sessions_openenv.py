"""The OpenEnv server's sessions: HTTP session-creates cannot lock out WebSocket clients, and
the task order does not repeat after a restart.

Before, 16 ``openenv/session/create`` calls to ``POST /mcp`` filled a 16-slot server and
every WebSocket client was refused until they idled out; the server the CLI starts always
has a trainer token, and with one those calls need it (403 otherwise).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

pytest.importorskip("openenv.core", reason="needs the openenv extra: pip install 'synthenv[openenv]'")

from loopback import serve
from openenv.core import GenericEnvClient

from pipeline.integrations.openenv import create_openenv_app, environment_factory
from pipeline.integrations.openenv_guard import CREATE

pytestmark = pytest.mark.anyio
TOKEN = "attack-openenv-trainer-token"
SLOTS = 16


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _create(i: int) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": i, "method": CREATE, "params": {}}


async def _websocket_clients_served(url: str, n: int) -> int:
    served = 0
    for seed in range(n):
        try:
            async with GenericEnvClient(base_url=url) as client:
                result = await client.reset(seed=seed, trainer_token=TOKEN)
                served += bool(result.observation)
        except Exception:  # refused: OpenEnv closes the socket or raises, by timing
            pass
    return served


@pytest.mark.parametrize("guarded", [False, True], ids=["no-token-server", "trainer-token-server"])
async def test_http_session_creates_cannot_lock_out_websocket_clients(store_bundle: Path, guarded: bool) -> None:
    app = create_openenv_app(store_bundle, max_sessions=SLOTS, trainer_token=TOKEN if guarded else None)
    with serve(app) as url:
        async with httpx.AsyncClient(base_url=url) as http:
            replies = [await http.post("/mcp", json=_create(i)) for i in range(SLOTS)]
            batch = await http.post("/mcp", json=[_create(100), _create(101)])
            tools = await http.post("/mcp", json={"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}})
        served = await _websocket_clients_served(url, 3)
        if guarded:
            async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {TOKEN}"}) as trainer:
                allowed = (await trainer.post("/mcp", json=_create(200))).json()
    if not guarded:  # what OpenEnv does on its own: the slots go to whoever asks first
        assert all("session_id" in r.json().get("result", {}) for r in replies)
        assert served == 0
        return
    assert {r.status_code for r in replies} == {403}
    assert all(r.json()["error"]["code"] == -32001 and "trainer token" in r.json()["error"]["message"] for r in replies)
    assert batch.status_code == 403 and [e["id"] for e in batch.json()] == [100, 101]
    assert tools.status_code == 200  # other JSON-RPC calls pass through unchanged
    assert served == 3
    assert "session_id" in allowed["result"]


def test_the_task_order_does_not_repeat_after_a_restart(store_bundle: Path) -> None:
    """Two server starts (two factories), eight resets each without a seed: different task orders."""

    def order() -> list[str]:
        session = environment_factory(store_bundle, trainer_token=TOKEN)()
        return [session.reset(trainer_token=TOKEN).task_id for _ in range(8)]

    first, second = order(), order()
    assert first != second
    seeded = environment_factory(store_bundle, trainer_token=TOKEN)()
    again = environment_factory(store_bundle, trainer_token=TOKEN)()
    given = [seeded.reset(seed=s, trainer_token=TOKEN).task_id for s in range(4)]
    assert given == [again.reset(seed=s, trainer_token=TOKEN).task_id for s in range(4)]  # a trainer's seed holds


def test_an_openenv_episode_has_the_same_write_budget(store_bundle: Path) -> None:
    session = environment_factory(store_bundle, trainer_token=TOKEN, max_writes=10, max_rows=2)()
    session.reset(seed=0, trainer_token=TOKEN)
    created = [session.play({"tool": "create_category", "arguments": {"name": f"Oe Cap {i}"}}) for i in range(3)]
    assert [o.content["type"] for o in created] == ["tool_result", "tool_result", "tool_error"]
    assert created[2].content["error"]["code"] == "limit_exceeded" and "--max-rows" in created[2].text
    session.reset(seed=0, trainer_token=TOKEN)  # a new episode starts the count again
    assert session.play({"tool": "create_category", "arguments": {"name": "Oe After"}}).content["type"] == "tool_result"
