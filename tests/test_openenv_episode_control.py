"""OpenEnv episode control: only the trainer starts episodes, the verdict reaches every client,
and the first final verdict stands. OpenEnv's own clients on a loopback server."""

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

from pipeline.integrations.episode import ANSWER_TOOL
from pipeline.integrations.openenv import BundleEnvironment, create_openenv_app, environment_factory
from pipeline.runtime.environment import Environment, Task

pytestmark = pytest.mark.anyio
TOKEN = "trainer-token-for-tests-0123456789"


def wire_answer(answer: Any) -> str:
    return answer if isinstance(answer, str) else json.dumps(answer)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def server(store_bundle: Path) -> Iterator[str]:
    with serve(create_openenv_app(store_bundle, max_sessions=4, session_ttl=60, trainer_token=TOKEN)) as url:
        yield url


@pytest.fixture(scope="module")
def env(store_bundle: Path) -> Environment:
    return Environment.from_bundle(store_bundle)


def decoy(env: Environment, task: Task) -> Task:
    """A task the trainer assigns instead: another id and another answer."""
    return next(t for t in env.tasks if t.id != task.id and json.dumps(t.answer) != json.dumps(task.answer))


async def test_task_switching_wins_nothing(server: str, env: Environment) -> None:
    """For every task: the trainer assigns another one; the agent, which knows this task's answer,
    tries every way OpenEnv offers to switch to it (a start tool, reset over the WebSocket without
    the token, plain HTTP /reset, HTTP MCP) and then plays it. Before episode control: 65 of 65
    over HTTP MCP and over the WebSocket. Now: none, on any path."""
    import httpx

    wins = {"websocket": 0, "mcp": 0, "http": 0}
    async with (
        GenericEnvClient(base_url=server) as ws,
        MCPToolClient(base_url=server) as mcp,
        httpx.AsyncClient(base_url=server) as http,
    ):
        for task in env.tasks:
            other = decoy(env, task)
            # WebSocket step actions.
            await ws.reset(task_id=other.id, trainer_token=TOKEN)
            with pytest.raises(RuntimeError, match="trainer token"):
                await ws.reset(task_id=task.id)
            for call in task.solution:
                await ws.step(call.model_dump())
            result = await ws.step({"answer": task.answer})
            assert result.observation["assigned_task_id"] == other.id
            wins["websocket"] += result.reward == 1.0
            # MCP tools over the WebSocket.
            await mcp.reset(task_id=other.id, trainer_token=TOKEN)
            switched = await mcp.call_tool("start_task", task_id=task.id)
            assert switched["type"] == "tool_error"
            with pytest.raises(RuntimeError, match="trainer token"):
                await mcp.reset(task_id=task.id, trainer_token="not-the-token-0123456789")
            for call in task.solution:
                await mcp.call_tool(call.tool, arguments=call.arguments)
            final = await mcp.call_tool(ANSWER_TOOL, answer=wire_answer(task.answer))
            wins["mcp"] += final["reward"] == 1.0
            # Plain HTTP and HTTP MCP.
            assert (await http.post("/reset", json={"task_id": task.id})).status_code == 409
            rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
            start = {"name": "start_task", "arguments": {"task_id": task.id}}
            assert "Tool not found" in (await http.post("/mcp", json={**rpc, "params": start})).text
            answer = {"name": ANSWER_TOOL, "arguments": {"answer": wire_answer(task.answer)}}
            reply = (await http.post("/mcp", json={**rpc, "params": answer})).json()
            wins["http"] += reply["result"].get("reward") == 1.0
    assert wins == {"websocket": 0, "mcp": 0, "http": 0}


async def test_reset_needs_the_token_and_leaves_the_episode_alone(server: str, env: Environment) -> None:
    task = next(t for t in env.tasks if t.solution)
    async with GenericEnvClient(base_url=server) as client:
        with pytest.raises(RuntimeError, match="trainer token"):
            await client.reset(task_id=task.id)
        result = await client.step({"answer": task.answer})
        assert result.observation["content"]["error"]["code"] == "no_episode"
        await client.reset(task_id=task.id, trainer_token=TOKEN)
        for call in task.solution:
            await client.step(call.model_dump())
        with pytest.raises(RuntimeError, match="trainer token"):
            await client.reset(task_id=decoy(env, task).id, trainer_token=TOKEN[:-1])
        result = await client.step({"answer": task.answer})
        assert result.reward == 1.0 and result.observation["task_id"] == task.id


async def test_status_error_reaches_the_websocket_and_mcp(
    server: str, env: Environment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A verifier that raises is an infrastructure error: the client sees ``error``, not a wrong answer."""
    import pipeline.runtime.session as session

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("disk went away")

    monkeypatch.setattr(session, "verify", broken)
    task = next(t for t in env.tasks if t.solution)
    async with GenericEnvClient(base_url=server) as client:
        await client.reset(task_id=task.id, trainer_token=TOKEN)
        result = await client.step({"answer": task.answer})
        obs = result.observation
        assert result.done and obs["status"] == "error" and result.reward == 0.0
        assert "could not run" in obs["reason"] and obs["task_id"] == task.id
        assert "disk went away" not in json.dumps(obs)
    async with MCPToolClient(base_url=server) as mcp:
        await mcp.reset(task_id=task.id, trainer_token=TOKEN)
        final = await mcp.call_tool(ANSWER_TOOL, answer=wire_answer(task.answer))
        assert final["status"] == "error" and final["done"] is True


async def test_the_first_final_verdict_stands(server: str, env: Environment) -> None:
    task = next(t for t in env.tasks if t.solution)
    async with GenericEnvClient(base_url=server) as client:
        await client.reset(task_id=task.id, trainer_token=TOKEN)
        first = await client.step({"answer": None})
        assert first.done and first.observation["status"] == "failed"
        steps = (await client.state())["step_count"]
        for action in [*[c.model_dump() for c in task.solution], {"answer": task.answer}]:
            again = await client.step(action)
            obs = again.observation
            assert obs["content"]["error"]["code"] == "episode_over" and again.done
            assert obs["status"] == "failed" and again.reward is None
        assert (await client.state())["step_count"] == steps
    async with MCPToolClient(base_url=server) as mcp:
        await mcp.reset(task_id=task.id, trainer_token=TOKEN)
        assert (await mcp.call_tool(ANSWER_TOOL, answer="nothing"))["status"] == "failed"
        again = await mcp.call_tool(ANSWER_TOOL, answer=wire_answer(task.answer))
        assert again["error"]["code"] == "episode_over" and again["status"] == "failed"


def test_tasks_are_drawn_from_an_unpredictable_seed(store_bundle: Path) -> None:
    """Two servers started the same way draw different task sequences (a fixed seed would repeat)."""
    draws = []
    for _ in range(2):
        make = environment_factory(store_bundle)
        draws.append([make().reset().task_id for _ in range(8)])
    assert draws[0] != draws[1]
    # A seed the trainer gives still reproduces its draw.
    make = environment_factory(store_bundle)
    assert make().reset(seed=3).task_id == make().reset(seed=3).task_id


def test_a_verdict_on_another_task_is_an_error(store_bundle: Path) -> None:
    """The verdict names the task it scored; if that is not the task assigned, status is ``error``."""

    class Misfiled:
        def __init__(self, inner: Environment) -> None:
            self.inner, self.bundle, self.tasks = inner, inner.bundle, inner.tasks

        def tool_specs(self) -> list[dict[str, Any]]:
            return self.inner.tool_specs()

        def reset(self, task_id: str | None = None, seed: int | None = None) -> Any:
            return self.inner.reset(task_id=task_id, seed=seed)

        def step(self, action: Any) -> Any:
            obs, reward, term, trunc, info = self.inner.step(action)
            if "verification" in info:
                info["verification"] = {**info["verification"], "task_id": "some-other-task"}
            return obs, reward, term, trunc, info

        def close(self) -> None:
            self.inner.close()

    inner = Environment.from_bundle(store_bundle)
    task = next(t for t in inner.tasks if t.solution)
    env = BundleEnvironment(Misfiled(inner))
    env.reset(task_id=task.id)
    for call in task.solution:
        env.play(call.model_dump())
    final = env.play({"answer": task.answer})
    assert final.status == "error" and final.reward == 0.0
    assert final.task_id == "some-other-task" and final.assigned_task_id == task.id


def test_serve_openenv_uses_or_generates_a_trainer_token(
    store_bundle: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``synthenv serve --protocol openenv`` never runs without a token: a given one is used,
    otherwise one is generated and printed once."""
    import pipeline.server.runner as runner
    from pipeline.cli.serve_openenv import serve_openenv

    apps: list[Any] = []

    class Idle:
        def run(self) -> None:
            pass

    def make_server(app: Any, *_: Any, **__: Any) -> Idle:
        apps.append(app)
        return Idle()

    monkeypatch.setattr(runner, "make_server", make_server)
    monkeypatch.delenv("SYNTHENV_TRAINER_TOKEN", raising=False)
    serve_openenv(store_bundle, "127.0.0.1", 0, 2, 60.0, "warning", None)
    printed = capsys.readouterr().err
    token = printed.split("trainer_token=...)): ")[1].split()[0]
    serve_openenv(store_bundle, "127.0.0.1", 0, 2, 60.0, "warning", None, trainer_token=TOKEN)
    assert "trainer_token=...)):" not in capsys.readouterr().err
    assert len(apps) == 2
    for app, given in zip(apps, (token, TOKEN), strict=True):
        with serve(app) as url, GenericEnvClient(base_url=url).sync() as client:
            with pytest.raises(RuntimeError, match="trainer token"):
                client.reset(trainer_token="not-the-token-0123456789")
            assert client.reset(trainer_token=given).observation["assigned_task_id"]
