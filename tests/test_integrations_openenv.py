"""OpenEnv: OpenEnv's own clients drive a bundle over WebSocket and HTTP MCP on loopback."""

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
from pipeline.integrations.openenv import START_TOOL, create_openenv_app
from pipeline.package.procedural import build_procedural_bundle
from pipeline.runtime.environment import Environment

pytestmark = pytest.mark.anyio


def http_mcp_client(url: str) -> MCPToolClient:
    """OpenEnv's MCP client on its HTTP path (JSON-RPC /mcp with openenv sessions).

    openenv-core 0.3.0 reads the ``use_production_mode`` flag for that path but its
    constructor never sets it; without it the client speaks the WebSocket protocol instead.
    """
    client = MCPToolClient(base_url=url)
    client.use_production_mode = True
    return client


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def trajectory_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("traj") / "openenv.jsonl"


@pytest.fixture(scope="module")
def server(store_bundle: Path, trajectory_log: Path) -> Iterator[str]:
    with serve(create_openenv_app(store_bundle, max_sessions=4, session_ttl=60, trajectories=trajectory_log)) as url:
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
        result = await client.reset(task_id=task.id)
        assert result.observation["content"]["instruction"] == task.instruction and not result.done
        for call in task.solution:
            result = await client.step(call.model_dump())
            assert result.observation["content"]["type"] == "tool_result" and result.reward == 0.0
        result = await client.step({"answer": task.answer})
        assert result.done and result.reward == 1.0
        state = await client.state()
        assert state["task_id"] == task.id and state["step_count"] == len(task.solution) + 1
        assert state["digest"] == env.bundle.digest
        # Doing nothing earns nothing.
        await client.reset(task_id=task.id)
        result = await client.step({"answer": None})
        assert result.done and result.reward == 0.0
        assert "expected" not in json.dumps(result.observation)


async def test_websocket_bad_actions_are_clear(server: str, env: Environment) -> None:
    async with GenericEnvClient(base_url=server) as client:
        await client.reset(seed=0)
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
        await ws.send(json.dumps({"type": "reset", "data": {"seed": 0}}))
        await ws.recv()
        for action, words in (({"tool": "x", "answer": 3}, "not both"), ({"command": "x"}, "Extra inputs")):
            await ws.send(json.dumps({"type": "step", "data": action}))
            reply = json.loads(await ws.recv())
            assert reply["type"] == "error" and words in json.dumps(reply["data"]["errors"])


async def test_http_mcp_reference_solution_earns_one(server: str, env: Environment) -> None:
    task = next(t for t in env.tasks if t.solution)
    async with http_mcp_client(server) as client:
        names = {t.name for t in await client.list_tools()}
        assert {START_TOOL, ANSWER_TOOL} | {t["name"] for t in env.tool_specs()} == names
        started = await client.call_tool(START_TOOL, task_id=task.id)
        assert started["instruction"] == task.instruction
        for call in task.solution:
            out = await client.call_tool(call.tool, **call.arguments)
            assert out["type"] == "tool_result" and out["done"] is False
        bad = await client.call_tool(task.solution[0].tool, no_such_argument=1)
        assert bad["type"] == "tool_error" and bad["error"]["code"] == "invalid_argument"
        final = await client.call_tool(ANSWER_TOOL, answer=json.dumps(task.answer))
        assert final["done"] is True and final["reward"] == 1.0 and final["status"] == "passed"


async def test_http_endpoints_and_trajectory(server: str, env: Environment, trajectory_log: Path) -> None:
    import httpx

    async with httpx.AsyncClient(base_url=server) as http:
        assert (await http.get("/health")).json()["status"] == "healthy"
        schema = (await http.get("/schema")).json()
        assert {"tool", "arguments", "answer"} <= set(schema["action"]["properties"])
        meta = (await http.get("/metadata")).json()
        assert meta["name"] == env.bundle.name and env.bundle.digest in meta["description"]
        bad = await http.post("/step", json={"action": {"nonsense": 1}})
        assert bad.status_code == 422
    # One passed and one failed episode of this test's own (under xdist the other tests of this
    # module may run in another process, against another server and log).
    task = next(t for t in env.tasks if t.solution)
    async with GenericEnvClient(base_url=server) as client:
        await client.reset(task_id=task.id)
        for call in task.solution:
            await client.step(call.model_dump())
        assert (await client.step({"answer": task.answer})).reward == 1.0
        await client.reset(task_id=task.id)
        assert (await client.step({"answer": None})).reward == 0.0
    rows = [json.loads(line) for line in trajectory_log.read_text().splitlines()]
    finals = [r for r in rows if r["status"]]
    assert {"passed", "failed"} <= {r["status"] for r in finals}
    assert {r["digest"] for r in rows} == {env.bundle.digest}


async def test_procedural_bundle_single_turn(procedural: Bundle) -> None:
    item = procedural.read_jsonl("tasks.jsonl")[0]
    with serve(create_openenv_app(procedural.path, max_sessions=2)) as url:
        async with GenericEnvClient(base_url=url) as client:
            result = await client.reset(task_id=item["id"])
            assert result.observation["content"]["instruction"] == item["question"]
            result = await client.step({"answer": f"<answer>{item['answer']}</answer>"})
            assert result.done and result.reward == 1.0
            await client.reset(task_id=item["id"])
            result = await client.step({"answer": ""})
            assert result.done and result.reward == 0.0
        async with http_mcp_client(url) as client:
            assert {t.name for t in await client.list_tools()} == {START_TOOL, ANSWER_TOOL}
            started: dict[str, Any] = await client.call_tool(START_TOOL, task_id=item["id"])
            assert started["instruction"] == item["question"]
            final = await client.call_tool(ANSWER_TOOL, answer=f"<answer>{item['answer']}</answer>")
            assert final["reward"] == 1.0


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


async def test_package_openenv_writes_a_space_that_serves(store_bundle: Path, tmp_path: Path) -> None:
    import importlib.util

    import yaml
    from openenv.cli._validation import validate_multi_mode_deployment
    from typer.testing import CliRunner

    from pipeline.cli.main import app

    dest = tmp_path / "space"
    result = CliRunner().invoke(app, ["package", str(store_bundle), "--openenv", str(dest), "--json"])
    assert result.exit_code == 0, result.output
    env = Environment.from_bundle(store_bundle)
    digest = env.bundle.digest
    spec = yaml.safe_load((dest / "openenv.yaml").read_text())
    assert spec["app"] == "server.app:app" and spec["metadata"]["synthenv"]["digest"] == digest
    front = yaml.safe_load((dest / "README.md").read_text().split("---")[1])
    assert front["sdk"] == "docker" and front["synthenv_digest"] == digest and "openenv" in front["tags"]
    assert f'digest = "{digest}"' in (dest / "pyproject.toml").read_text()
    assert digest in (dest / "Dockerfile").read_text() and list((dest / "wheels").glob("synthenv-*.whl"))
    # OpenEnv's own deployment check: everything but a uv lock file (made with `uv lock`, not here).
    _ok, issues = validate_multi_mode_deployment(dest)
    assert [i for i in issues if "uv.lock" not in i] == [], issues
    # The Space's app module runs: load it from the directory and play a step over WebSocket.
    module_spec = importlib.util.spec_from_file_location("space_app", dest / "server" / "app.py")
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    with serve(module.app) as url:
        async with GenericEnvClient(base_url=url) as client:
            result_ = await client.reset(seed=0)
            assert result_.observation["content"]["instruction"]
    again = CliRunner().invoke(app, ["package", str(store_bundle), "--openenv", str(dest)])
    assert again.exit_code == 2 and "not empty" in again.output


def test_serve_rejects_an_unknown_protocol(store_bundle: Path) -> None:
    from typer.testing import CliRunner

    from pipeline.cli.main import app

    result = CliRunner().invoke(app, ["serve", str(store_bundle), "--protocol", "gym"])
    assert result.exit_code == 2 and "--protocol must be" in result.output
