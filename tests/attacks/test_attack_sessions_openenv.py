"""The OpenEnv server's sessions: HTTP session-creates cannot lock out WebSocket clients, and
the task order does not repeat after a restart.

Before, 16 ``openenv/session/create`` calls to ``POST /mcp`` filled a 16-slot server and
every WebSocket client was refused until they idled out; the server the CLI starts always
has a trainer token, and with one those calls need it (403 otherwise).

One client address could also open WebSockets up to the server-wide cap and lock every other
client out; now it holds at most ``--max-sessions-per-client`` of them, and the next is a 503
with ``Retry-After`` before the upgrade (no hang), while another address is still served.

Behind a reverse proxy every client had the proxy's address, so one client's share was every
client's; ``--forwarded-allow-ips`` names the proxies whose ``X-Forwarded-For`` is the client's
address (loopback by default), and a header from any other peer is ignored.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("openenv.core", reason="needs the openenv extra: pip install 'synthenv[openenv]'")

import websockets
from loopback import free_port, running, serve
from openenv.core import GenericEnvClient
from typer.testing import CliRunner

from pipeline.cli.common import EXIT_CODES
from pipeline.cli.main import app as cli
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


OTHER_PEER = "127.0.0.2"  # the whole of 127/8 is loopback on Linux: a second client address on one machine


class _ErrorLines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


async def _open(url: str, local: str | None = None, forwarded_for: str | None = None) -> Any:
    """A real WebSocket to ``/ws`` from ``local`` (a source address), with ``X-Forwarded-For: forwarded_for``
    as a proxy sends it, or the refusal it raised."""
    ws_url = url.replace("http://", "ws://") + "/ws"
    options: dict[str, Any] = {"local_addr": (local, 0)} if local else {}
    if forwarded_for is not None:
        options["additional_headers"] = {"X-Forwarded-For": forwarded_for}
    try:
        return await websockets.connect(ws_url, open_timeout=10, **options)
    except websockets.InvalidStatus as exc:
        return exc


async def _reset(ws: Any, seed: int = 0) -> dict[str, Any]:
    await ws.send(json.dumps({"type": "reset", "data": {"seed": seed, "trainer_token": TOKEN}}))
    reply: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
    return reply


async def test_one_client_cannot_hold_every_websocket_session(store_bundle: Path) -> None:
    """A client that never says goodbye opens WebSockets until refused: it gets its share (3 of 8), the
    next is a 503 with Retry-After at once, and a client at another address is still served. Without the
    cap it held all 8 and the other client was refused (OpenEnv's CAPACITY_REACHED)."""
    app = create_openenv_app(store_bundle, max_sessions=8, max_sessions_per_client=3, trainer_token=TOKEN)
    errors = _ErrorLines()
    with serve(app) as url:
        logging.getLogger("uvicorn.error").addHandler(errors)  # after uvicorn's logging set-up, which drops handlers
        held, refused = [], None
        for seed in range(8):  # OpenEnv's own client, never closed
            client = GenericEnvClient(base_url=url)
            try:
                await client.connect()
                held.append((client, await client.reset(seed=seed, trainer_token=TOKEN)))
            except ConnectionError as exc:
                refused = exc
                break
        assert len(held) == 3 and all(r.observation["assigned_task_id"] for _, r in held)
        assert refused is not None and "503" in str(refused)

        started = time.monotonic()
        raw = await _open(url)
        assert time.monotonic() - started < 2  # refused, never left hanging
        assert isinstance(raw, websockets.InvalidStatus), raw
        response = raw.response
        assert response.status_code == 503 and response.headers["Retry-After"] == "1"
        body = json.loads(response.body)
        assert body["code"] == "unavailable" and "--max-sessions-per-client" in body["message"]

        others = [await _open(url, OTHER_PEER) for _ in range(3)]  # another address has its own share
        assert all(not isinstance(ws, Exception) for ws in others)
        assert [(await _reset(ws, i))["type"] for i, ws in enumerate(others)] == ["observation"] * 3
        assert isinstance(await _open(url, OTHER_PEER), websockets.InvalidStatus)

        await held[0][0].close()  # saying goodbye gives the slot back
        for _ in range(50):
            again = await _open(url)
            if not isinstance(again, Exception):
                break
            await asyncio.sleep(0.05)
        assert not isinstance(again, Exception) and (await _reset(again))["type"] == "observation"
        for ws in [*others, again]:
            await ws.close()
        for client, _ in held[1:]:
            await client.close()
    logging.getLogger("uvicorn.error").removeHandler(errors)
    assert errors.lines == []  # a refusal is no server error (uvicorn's spurious handshake line is dropped)


def test_the_cli_sets_the_cap_for_openenv_only(store_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--max-sessions-per-client N`` reaches the OpenEnv server; with --protocol synthenv, whose sessions only
    the trainer opens, it is a usage error (exit 2) rather than a flag silently ignored."""
    import pipeline.server.runner as runner

    apps: list[Any] = []

    class Idle:
        def run(self) -> None:
            pass

    monkeypatch.setattr(runner, "make_server", lambda app, *a, **k: apps.append(app) or Idle())
    invoke = CliRunner().invoke
    args = ["serve", str(store_bundle), "--port", "0", "--max-sessions-per-client", "1"]
    refused = invoke(cli, args)
    assert refused.exit_code == EXIT_CODES["usage"], refused.output
    assert "--max-sessions-per-client takes --protocol openenv only" in refused.output and not apps
    served = invoke(cli, [*args, "--protocol", "openenv", "--trainer-token", TOKEN])
    assert served.exit_code == 0, served.output
    assert "1 per client address" in served.output

    async def two_sockets(url: str) -> list[Any]:
        first, second = [await _open(url) for _ in range(2)]
        if not isinstance(first, Exception):
            await first.close()
        return [first, second]

    with serve(apps[0]) as url:
        first, second = asyncio.run(two_sockets(url))
    assert not isinstance(first, Exception) and isinstance(second, websockets.InvalidStatus)
    assert second.response.status_code == 503


async def test_a_full_server_answers_503_before_the_upgrade(store_bundle: Path) -> None:
    """With every slot held (2 of 2, by two addresses), the next WebSocket from a third address is a
    503 with Retry-After naming --max-sessions, at once, rather than an accepted socket OpenEnv then
    closes with an error; a slot given back is served again."""
    app = create_openenv_app(store_bundle, max_sessions=2, max_sessions_per_client=64, trainer_token=TOKEN)
    with serve(app) as url:
        held = [await _open(url), await _open(url, OTHER_PEER)]
        assert all(not isinstance(ws, Exception) for ws in held)
        assert [(await _reset(ws, i))["type"] for i, ws in enumerate(held)] == ["observation"] * 2
        started = time.monotonic()
        full = await _open(url, "127.0.0.3")
        assert time.monotonic() - started < 2
        assert isinstance(full, websockets.InvalidStatus), full
        assert full.response.status_code == 503 and full.response.headers["Retry-After"] == "1"
        assert "--max-sessions" in json.loads(full.response.body)["message"]
        await held[0].close()
        for _ in range(50):
            again = await _open(url, "127.0.0.3")
            if not isinstance(again, Exception):
                break
            await asyncio.sleep(0.05)
        assert not isinstance(again, Exception) and (await _reset(again))["type"] == "observation"
        await again.close()
        await held[1].close()


CLIENT_A, CLIENT_B = "203.0.113.7", "203.0.113.8"  # two clients behind one proxy (TEST-NET-3 addresses)


def _built_by_the_cli(monkeypatch: pytest.MonkeyPatch, bundle: Path, *flags: str) -> Any:
    """The uvicorn server ``synthenv serve BUNDLE --protocol openenv FLAGS`` builds (make_server's, on a free
    loopback port), not yet running; no ``$FORWARDED_ALLOW_IPS`` unless the test sets one."""
    import pipeline.server.runner as runner

    built: list[Any] = []
    make_server = runner.make_server

    class Idle:
        def run(self) -> None:
            pass

    monkeypatch.setattr(runner, "make_server", lambda *a, **k: built.append(make_server(*a, **k)) or Idle())
    args = ["serve", str(bundle), "--port", str(free_port()), "--protocol", "openenv", "--trainer-token", TOKEN]
    result = CliRunner().invoke(cli, [*args, *flags])
    assert result.exit_code == 0, result.output
    return built[0]


def _refused_for_its_share(ws: Any) -> bool:
    if not isinstance(ws, websockets.InvalidStatus):
        return False
    body = json.loads(ws.response.body)
    return (
        ws.response.status_code == 503
        and ws.response.headers["Retry-After"] == "1"
        and "--max-sessions-per-client" in body["message"]
    )


async def test_a_trusted_proxys_clients_are_counted_apart(store_bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One session per client, every socket from a proxy on loopback (trusted by default): two clients the
    proxy names apart are both served, the second socket of one of them is a 503 with Retry-After, also
    with a forged address put in front of the proxy's (the proxy appends the one it saw), and the proxy's
    own address, without the header, has a share of its own."""
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    server = _built_by_the_cli(monkeypatch, store_bundle, "--max-sessions-per-client", "1")
    with running(server) as url:
        first, second = await _open(url, forwarded_for=CLIENT_A), await _open(url, forwarded_for=CLIENT_B)
        assert not isinstance(first, Exception) and not isinstance(second, Exception)
        assert [(await _reset(ws, i))["type"] for i, ws in enumerate([first, second])] == ["observation"] * 2
        assert _refused_for_its_share(await _open(url, forwarded_for=CLIENT_A))
        assert _refused_for_its_share(await _open(url, forwarded_for=f"198.51.100.1, {CLIENT_A}"))
        direct = await _open(url)
        assert not isinstance(direct, Exception)
        for ws in (first, second, direct):
            await ws.close()


@pytest.mark.parametrize("source", ["flag", "environment"])
async def test_an_untrusted_peers_forwarded_for_is_ignored(
    store_bundle: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    """With --forwarded-allow-ips (or $FORWARDED_ALLOW_IPS) naming another proxy (10.9.9.9), a loopback peer's
    X-Forwarded-For is not believed: two sockets claiming two clients are one client, the second refused."""
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    flags = ["--max-sessions-per-client", "1"]
    if source == "flag":
        flags += ["--forwarded-allow-ips", "10.9.9.9"]
    else:
        monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.9.9.9")
    server = _built_by_the_cli(monkeypatch, store_bundle, *flags)
    with running(server) as url:
        first = await _open(url, forwarded_for=CLIENT_A)
        assert not isinstance(first, Exception) and (await _reset(first))["type"] == "observation"
        assert _refused_for_its_share(await _open(url, forwarded_for=CLIENT_B))
        await first.close()


@pytest.mark.parametrize("value", ["localhost", "10.0.0.1/8", "*,10.0.0.1", "10.0.0.300"])
def test_a_bad_forwarded_allow_ips_is_a_usage_error(
    store_bundle: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """An entry that is no IP address or network (uvicorn would keep it as a name no peer ever has, trusting
    nobody without a word) exits 2 with one line naming it, from the flag or $FORWARDED_ALLOW_IPS, before
    any server is built; a good value reaches every server serve starts (one process, --workers, openenv)."""
    import pipeline.server.runner as runner
    import pipeline.server.workers as workers

    built: list[dict[str, Any]] = []

    class Idle:
        def run(self, sockets: Any = None) -> None:
            pass

    monkeypatch.setattr(runner, "make_server", lambda *a, **k: built.append(k) or Idle())
    monkeypatch.setattr(workers, "serve_workers", lambda build, host, port, n, run: run(None, []))
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    invoke = CliRunner().invoke
    args = ["serve", str(store_bundle), "--port", "0", "--trainer-token", TOKEN]
    for protocol in (["--protocol", "synthenv"], ["--protocol", "openenv"], ["--workers", "2"]):
        flagged = invoke(cli, [*args, *protocol, "--forwarded-allow-ips", value])
        monkeypatch.setenv("FORWARDED_ALLOW_IPS", value)
        from_env = invoke(cli, [*args, *protocol])
        monkeypatch.delenv("FORWARDED_ALLOW_IPS")
        for result in (flagged, from_env):
            assert result.exit_code == EXIT_CODES["usage"], result.output
            lines = result.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: --forwarded-allow-ips (or $FORWARDED_ALLOW_IPS)")
            assert repr(value.split(",")[0] if value.startswith("*") else value) in lines[0], lines[0]
    assert built == []
    for protocol in (["--protocol", "synthenv"], ["--protocol", "openenv"], ["--workers", "2"]):
        served = invoke(cli, [*args, *protocol, "--forwarded-allow-ips", "10.0.0.0/8, ::1"])
        assert served.exit_code == 0, served.output
        default = invoke(cli, [*args, *protocol])
        assert default.exit_code == 0, default.output
    assert [k["forwarded_allow_ips"] for k in built] == [["10.0.0.0/8", "::1"], None] * 3
