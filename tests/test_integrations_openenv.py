"""OpenEnv: OpenEnv's own clients drive a bundle over WebSocket (step actions and MCP) on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openenv.core", reason="needs the openenv extra: pip install 'synthenv[openenv]'")

from loopback import serve
from openenv.core import GenericEnvClient
from openenv.core.mcp_client import MCPToolClient

from pipeline.bundle.format import Bundle
from pipeline.integrations.episode import ANSWER_TOOL
from pipeline.integrations.openenv import create_openenv_app
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.environment import Environment
from pipeline.surface import surface_of

pytestmark = pytest.mark.anyio
TOKEN = "trainer-token-for-tests-0123456789"


def wire_answer(answer: Any) -> str:
    """An answer as the answer tool takes it: text, or a JSON list as text."""
    return answer if isinstance(answer, str) else json.dumps(answer)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def trajectory_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("traj") / "openenv.jsonl"


@pytest.fixture(scope="module")
def server(store_bundle: Path, trajectory_log: Path) -> Iterator[str]:
    app = create_openenv_app(
        store_bundle, max_sessions=4, session_ttl=60, trajectories=trajectory_log, trainer_token=TOKEN
    )
    with serve(app) as url:
        yield url


@pytest.fixture(scope="module")
def env(store_bundle: Path) -> Environment:
    return Environment.from_bundle(store_bundle)


@pytest.fixture(scope="module")
def procedural(tmp_path_factory: pytest.TempPathFactory) -> Bundle:
    return build_procedural_bundle(["gcd_lcm"], tmp_path_factory.mktemp("proc"), n=4, seed=0)


async def test_websocket_reference_solution_earns_one(server: str, env: Environment) -> None:
    task = next(t for t in env.tasks if t.solution)
    async with GenericEnvClient(base_url=server) as client:
        result = await client.reset(task_id=task.id, trainer_token=TOKEN)
        obs = result.observation
        assert obs["content"]["instruction"] == task.instruction and not result.done
        assert obs["assigned_task_id"] == task.id and obs["status"] is None
        for call in task.solution:
            result = await client.step(call.model_dump())
            assert result.observation["content"]["type"] == "tool_result" and result.reward == 0.0
        result = await client.step({"answer": task.answer})
        obs = result.observation
        assert result.done and result.reward == 1.0
        assert obs["status"] == "passed" and obs["task_id"] == obs["assigned_task_id"] == task.id
        assert obs["reason"] and obs["components"]["outcome"] == 1.0
        state = await client.state()
        assert state["task_id"] == task.id and state["step_count"] == len(task.solution) + 1
        assert state["digest"] == env.bundle.digest and state["done"] is True
        # Doing nothing earns nothing, and says so.
        await client.reset(task_id=task.id, trainer_token=TOKEN)
        result = await client.step({"answer": None})
        assert result.done and result.reward == 0.0 and result.observation["status"] == "failed"
        assert "expected" not in json.dumps(result.observation)


async def test_websocket_bad_actions_are_clear(server: str, env: Environment) -> None:
    async with GenericEnvClient(base_url=server) as client:
        await client.reset(seed=0, trainer_token=TOKEN)
        # OpenEnv's client raises on a malformed action (its message carries only the code) ...
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            await client.step({"tool": "list_orders", "answer": 3})
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            await client.step({"command": "drop table"})
        # ... and the session survives it: a well-formed call the environment cannot carry out is
        # an observation with a typed error.
        result = await client.step({"tool": "no_such_tool", "arguments": {}})
        assert result.observation["content"]["type"] == "tool_error" and not result.done
        assert result.observation["content"]["error"]["code"] in ("not_found", "invalid_argument")
        assert "no_such_tool" in result.observation["content"]["error"]["message"]
        assert result.observation["signals"]["call_valid"] is False
    # The server's error message itself names the problem (read off the wire).
    from websockets.asyncio.client import connect

    async with connect(server.replace("http://", "ws://") + "/ws") as ws:
        await ws.send(json.dumps({"type": "reset", "data": {"seed": 0, "trainer_token": TOKEN}}))
        await ws.recv()
        for action, words in (({"tool": "x", "answer": 3}, "not both"), ({"command": "x"}, "Extra inputs")):
            await ws.send(json.dumps({"type": "step", "data": action}))
            reply = json.loads(await ws.recv())
            assert reply["type"] == "error" and words in json.dumps(reply["data"]["errors"])


async def test_mcp_tool_client_default_mode(server: str, env: Environment) -> None:
    """MCPToolClient as constructed, no flags: it lists the surface's tools and calls them, a record
    whose field is called ``name`` included (passed as ``arguments={...}``)."""
    surface = surface_of(env)
    task = next(t for t in env.tasks if any("name" in c.arguments for c in t.solution))
    async with MCPToolClient(base_url=server) as client:
        await client.reset(task_id=task.id, trainer_token=TOKEN)
        names = {t.name for t in await client.list_tools()}
        assert names == {t["name"] for t in surface.tools} and ANSWER_TOOL in names
        assert "start_task" not in names
        for call in task.solution:
            name, arguments = surface.call(call.tool, dict(call.arguments))
            out = await client.call_tool(name, arguments=arguments)
            assert out["type"] == "tool_result" and out["done"] is False, out
        plain = await client.call_tool("list_records", table="categories", limit=1)  # keyword arguments as well
        assert plain["type"] == "tool_result" and plain["tool"] == "list_categories"
        bad = await client.call_tool(task.solution[0].tool, no_such_argument=1)
        assert bad["type"] == "tool_error" and bad["error"]["code"] == "invalid_argument"
        final = await client.call_tool(ANSWER_TOOL, answer=wire_answer(task.answer))
        assert final["done"] is True and final["reward"] == 1.0 and final["status"] == "passed"
        assert final["task_id"] == final["assigned_task_id"] == task.id


async def test_same_text_as_every_adapter(server: str, env: Environment) -> None:
    """What the model reads over OpenEnv is pipeline.surface's: system text, tool list, observation text."""
    surface = surface_of(env)
    task = next(t for t in env.tasks if t.solution)
    async with MCPToolClient(base_url=server) as mcp:
        await mcp.reset(task_id=task.id, trainer_token=TOKEN)
        listed = [(t.name, t.description, t.input_schema) for t in await mcp.list_tools()]
        assert listed == [(t["name"], t["description"], t["parameters"]) for t in surface.tools]
        call = task.solution[0]
        name, arguments = surface.call(call.tool, call.arguments)
        out = await mcp.call_tool(name, arguments=arguments)
        content = {k: out[k] for k in ("type", "tool", "result")}
        assert out["text"] == surface.observe(content, call.model_dump()) != ""
    async with GenericEnvClient(base_url=server) as client:
        result = await client.reset(task_id=task.id, trainer_token=TOKEN)
        assert result.observation["system"] == surface.system
        assert result.observation["text"] == surface.observe(result.observation["content"])
        result = await client.step(call.model_dump())
        assert result.observation["text"] == surface.observe(result.observation["content"], call.model_dump())


async def test_http_routes_point_to_the_websocket(server: str, env: Environment) -> None:
    """Plain HTTP cannot hold an episode: /reset and /step say where to go; /mcp lists tools and a
    tool call there says no episode is running."""
    import httpx

    async with httpx.AsyncClient(base_url=server) as http:
        assert (await http.get("/health")).json()["status"] == "healthy"
        schema = (await http.get("/schema")).json()
        assert {"tool", "arguments", "answer"} <= set(schema["action"]["properties"])
        assert {"status", "reason", "task_id", "assigned_task_id"} <= set(schema["observation"]["properties"])
        meta = (await http.get("/metadata")).json()
        assert meta["name"] == env.bundle.name and env.bundle.digest in meta["description"]
        for path, body in (("/reset", {"task_id": env.tasks[0].id}), ("/step", {"action": {"answer": 1}})):
            reply = await http.post(path, json=body)
            assert reply.status_code == 409 and "WebSocket" in reply.json()["detail"], path
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        tools = (await http.post("/mcp", json=rpc)).json()["result"]["tools"]
        assert ANSWER_TOOL in {t["name"] for t in tools}
        call = {"name": "list_records", "arguments": {"table": "categories", "limit": 1}}
        reply = (await http.post("/mcp", json={**rpc, "method": "tools/call", "params": call})).json()
        assert reply["result"]["error"]["code"] == "no_episode" and "/ws" in reply["result"]["error"]["message"]


async def test_trajectory_rows(server: str, env: Environment, trajectory_log: Path) -> None:
    # One passed and one failed episode of this test's own.
    task = next(t for t in env.tasks if t.solution)
    async with GenericEnvClient(base_url=server) as client:
        await client.reset(task_id=task.id, trainer_token=TOKEN)
        for call in task.solution:
            await client.step(call.model_dump())
        assert (await client.step({"answer": task.answer})).reward == 1.0
        await client.reset(task_id=task.id, trainer_token=TOKEN)
        assert (await client.step({"answer": None})).reward == 0.0
    rows = [json.loads(line) for line in trajectory_log.read_text().splitlines()]
    finals = [r for r in rows if r["status"]]
    assert {"passed", "failed"} <= {r["status"] for r in finals}
    assert {r["digest"] for r in rows} == {env.bundle.digest}


async def test_procedural_bundle_single_turn(procedural: Bundle) -> None:
    item = procedural.read_jsonl("tasks.jsonl")[0]
    with serve(create_openenv_app(procedural.path, max_sessions=2, trainer_token=TOKEN)) as url:
        async with GenericEnvClient(base_url=url) as client:
            result = await client.reset(task_id=item["id"], trainer_token=TOKEN)
            assert result.observation["content"]["instruction"] == item["question"]
            result = await client.step({"answer": f"<answer>{item['answer']}</answer>"})
            assert result.done and result.reward == 1.0 and result.observation["status"] == "passed"
            await client.reset(task_id=item["id"], trainer_token=TOKEN)
            result = await client.step({"answer": ""})
            assert result.done and result.reward == 0.0 and result.observation["status"] == "failed"
        async with MCPToolClient(base_url=url) as mcp:
            await mcp.reset(task_id=item["id"], trainer_token=TOKEN)
            assert {t.name for t in await mcp.list_tools()} == {ANSWER_TOOL}
            final = await mcp.call_tool(ANSWER_TOOL, answer=f"<answer>{item['answer']}</answer>")
            assert final["reward"] == 1.0 and final["status"] == "passed"


async def test_capacity_is_enforced(store_bundle: Path) -> None:
    import httpx

    with serve(create_openenv_app(store_bundle, max_sessions=1)) as url:
        async with GenericEnvClient(base_url=url) as first:
            await first.reset(seed=0)
            # A second WebSocket session is refused (the server closes it) ...
            with pytest.raises(Exception):  # noqa: B017 - OpenEnv raises RuntimeError or a close, by timing
                async with GenericEnvClient(base_url=url) as second:
                    await second.reset(seed=0)
            # ... and an HTTP session says why.
            async with httpx.AsyncClient(base_url=url) as http:
                body = {"jsonrpc": "2.0", "id": 1, "method": "openenv/session/create", "params": {}}
                reply = (await http.post("/mcp", json=body)).json()
            assert reply["error"]["data"] == {"active_sessions": 1, "max_sessions": 1}
            # The first session is unharmed.
            result = await first.step({"answer": None})
            assert result.done


def test_serve_rejects_an_unknown_protocol(store_bundle: Path) -> None:
    from typer.testing import CliRunner

    from pipeline.cli.main import app

    result = CliRunner().invoke(app, ["serve", str(store_bundle), "--protocol", "gym"])
    assert result.exit_code == 2 and "--protocol must be" in result.output
