"""The bundle's tools over MCP, bound to the same sessions, plus what an agent needs to run an episode.

Which environment session a call runs in, first match wins:

1. ``_meta["synthenv/session"]`` in the request (works on every transport and protocol);
2. the ``X-Session-Id`` HTTP header (a session made with ``POST /sessions``, so MCP and
   REST can share one episode);
3. on a handshake-era (stateful) MCP connection, one session per MCP session: keyed on
   the ``mcp-session-id`` over streamable HTTP (the connection itself on stdio and in
   memory), opened on its first call and closed when the MCP session ends (the client's
   DELETE, the idle timeout, a dropped connection);
4. otherwise (the stateless 2026 protocol) a new session is opened for the call.

Every result carries the session id in ``_meta["synthenv/session"]``, so a stateless
client keeps its episode by sending it back. Sessions opened here are ordinary sessions:
they count against the capacity and are reaped when idle.

Episode control, beside the bundle's tools: the instruction is the resource
``synthenv://episode/instruction`` and the prompt ``instruction``; the tools whose names
start with ``synthenv_`` (also marked ``_meta["synthenv/control"] = true``) are for the
loop driving the agent, not for the agent, and a trainer drops them from the tool list
it shows: ``synthenv_reset`` (a new episode, optionally a given task and seed),
``synthenv_answer`` (the final answer: reward and which checks passed, never an expected
value) and, only for a request carrying the trainer token (``Authorization: Bearer``),
``synthenv_verify`` (the trainer's full verdict on the current state).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from pipeline.runtime.environment import agent_info
from pipeline.server.openapi import BODIES
from pipeline.server.sessions import CapacityError, SessionManager, UnknownSession
from pipeline.server.trainer import VERIFY_REQUEST
from pipeline.tools.openapi import SESSION_HEADER
from pipeline.tools.specs import ToolSpec

SESSION_META = "synthenv/session"
CONTROL_META = "synthenv/control"
CONTROL_PREFIX = "synthenv_"
INSTRUCTION_URI = "synthenv://episode/instruction"
RESET, ANSWER, VERIFY = f"{CONTROL_PREFIX}reset", f"{CONTROL_PREFIX}answer", f"{CONTROL_PREFIX}verify"
_ANSWER_SCHEMA = VERIFY_REQUEST["properties"]["answer"]


def mcp_tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.parameters,
        output_schema=spec.result,
        annotations=types.ToolAnnotations(
            read_only_hint=spec.mode == "read",
            destructive_hint=spec.kind == "delete",
            idempotent_hint=spec.mode == "read",
            open_world_hint=False,
        ),
    )


def _control(name: str, description: str, schema: dict[str, Any], read_only: bool) -> types.Tool:
    return types.Tool(
        name=name,
        description=description,
        input_schema=schema,
        annotations=types.ToolAnnotations(read_only_hint=read_only, open_world_hint=False),
        _meta={CONTROL_META: True},
    )


CONTROL_TOOLS = {
    RESET: _control(
        RESET,
        "Start a new episode in this session (a fresh copy of the initial state); returns the instruction.",
        BODIES["SessionReset"],
        read_only=False,
    ),
    ANSWER: _control(
        ANSWER,
        "Give the final answer and end the episode; returns the reward and which checks passed.",
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["answer"],
            "properties": {"answer": _ANSWER_SCHEMA},
        },
        read_only=False,
    ),
    VERIFY: _control(
        VERIFY,
        "Trainer only: the full verdict (expected and observed per check) on the current state, "
        "without ending the episode.",
        VERIFY_REQUEST,
        read_only=True,
    ),
}


def _result(payload: dict[str, Any], session: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(payload, default=str))],
        structured_content=None if error else payload,
        is_error=error,
        _meta={SESSION_META: session},
    )


def _error(code: str, message: str, session: str | None = None) -> types.CallToolResult:
    payload = {"code": code, "message": message}
    meta = {SESSION_META: session} if session else None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(payload))], is_error=True, _meta=meta
    )


def _headers(ctx: Any) -> Mapping[str, str] | None:
    return getattr(getattr(ctx, "request", None), "headers", None)


class _Binder:
    """Maps a call to an environment session (see the module docstring for the order)."""

    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager
        self._by_mcp_id: dict[str, str] = {}
        """MCP session (the ``mcp-session-id``, or the connection where there is none) -> environment session."""

    def __len__(self) -> int:
        return len(self._by_mcp_id)

    def session_id(self, ctx: Any) -> str:
        meta = getattr(ctx, "meta", None) or {}
        explicit = meta.get(SESSION_META) if isinstance(meta, dict) else None
        headers = _headers(ctx)
        if not explicit and headers is not None:
            explicit = headers.get(SESSION_HEADER.lower())
        if explicit:
            if not isinstance(explicit, str) or not self.manager.is_open(explicit):
                raise UnknownSession(str(explicit))
            return explicit
        # The SDK keeps one Connection per handshake-era MCP session and tears down its
        # exit_stack when that session ends; the low-level request context reaches it only here.
        connection = getattr(getattr(ctx, "session", None), "_connection", None)
        if str(getattr(ctx, "protocol_version", "")) in MODERN_PROTOCOL_VERSIONS or connection is None:
            return self.manager.create()[0]
        mcp_id = headers.get("mcp-session-id") if headers is not None else None
        key = str(mcp_id or getattr(connection, "session_id", None) or f"connection:{id(connection)}")
        sid = self._by_mcp_id.get(key)
        if sid is not None and self.manager.is_open(sid):
            return sid
        sid = self.manager.create()[0]
        if key not in self._by_mcp_id:
            connection.exit_stack.callback(self.release, key)
        self._by_mcp_id[key] = sid
        return sid

    def release(self, key: str) -> None:
        """The MCP session ``key`` ended: close its environment session."""
        sid = self._by_mcp_id.pop(key, None)
        if sid is not None:
            self.manager.close(sid)


def _is_trainer(ctx: Any, token: str | None) -> bool:
    headers = _headers(ctx)
    if token is None or headers is None:
        return False
    scheme, _, given = str(headers.get("authorization", "")).partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def build_mcp_server(manager: SessionManager, trainer_token: str | None = None) -> Server[Any]:
    """A low-level MCP server: the bundle's tool specs verbatim, the episode-control tools,
    and the instruction as a resource and a prompt."""
    specs = manager.template.toolset.tools
    tools = [mcp_tool(t) for t in specs]
    names = {t.name for t in specs}
    schemas: dict[str, Any] = {t.name: t.parameters for t in specs}
    schemas.update({name: tool.input_schema for name, tool in CONTROL_TOOLS.items()})
    binder = _Binder(manager)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        control = [CONTROL_TOOLS[RESET], CONTROL_TOOLS[ANSWER]]
        if _is_trainer(ctx, trainer_token):
            control.append(CONTROL_TOOLS[VERIFY])
        return types.ListToolsResult(tools=tools + control)

    def episode(sid: str, name: str, arguments: dict[str, Any], ctx: Any) -> types.CallToolResult:
        if name == RESET:
            try:
                obs, info = manager.reset(sid, task_id=arguments.get("task_id"), seed=arguments.get("seed"))
            except ValueError as exc:
                return _error("not_found", str(exc), sid)
            return _result({"observation": obs, "info": agent_info(info)}, sid)
        if name == ANSWER:
            obs, reward, terminated, truncated, info = manager.get(sid).step({"answer": arguments.get("answer")})
            if obs.get("type") == "error":
                return _error(str(obs["error"]["code"]), str(obs["error"]["message"]), sid)
            return _result({"reward": reward, "terminated": terminated, "truncated": truncated, "info": info}, sid)
        if not _is_trainer(ctx, trainer_token):
            return _error("not_found", f"unknown tool {name!r}", sid)
        env = manager.get(sid)
        return _result({"episode_done": env.done, **env.verify(arguments.get("answer"))}, sid)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments or {}
        if name not in names and name not in CONTROL_TOOLS:
            return _error("not_found", f"unknown tool {name[:80]!r}; tools/list names them")
        try:
            sid = binder.session_id(ctx)
        except UnknownSession as exc:
            return _error("not_found", exc.message)
        except CapacityError as exc:
            return _error("unavailable", str(exc))
        if name in CONTROL_TOOLS:
            return episode(sid, name, arguments, ctx)
        obs, _, _, _, _ = manager.get(sid).step({"tool": name, "arguments": arguments})
        if obs["type"] == "tool_result":
            return _result(obs["result"], sid)
        error = obs["error"]
        return _error(str(error["code"]), str(error["message"]), sid)

    def instruction(ctx: Any) -> tuple[str, str]:
        sid = binder.session_id(ctx)
        task = manager.get(sid).task
        return sid, task.instruction if task is not None else ""

    async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        resource = types.Resource(
            name="instruction",
            title="The episode's instruction",
            uri=INSTRUCTION_URI,
            description="What the agent is asked to do in this session's current episode.",
            mime_type="text/plain",
        )
        return types.ListResourcesResult(resources=[resource])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) != INSTRUCTION_URI:
            raise ValueError(f"unknown resource {str(params.uri)[:80]!r}; the one resource is {INSTRUCTION_URI}")
        sid, text = instruction(ctx)
        contents = types.TextResourceContents(uri=INSTRUCTION_URI, mime_type="text/plain", text=text)
        return types.ReadResourceResult(contents=[contents], _meta={SESSION_META: sid})

    async def list_prompts(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
        prompt = types.Prompt(name="instruction", description="The current episode's instruction as a user message.")
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != "instruction":
            raise ValueError(f"unknown prompt {params.name[:80]!r}; the one prompt is 'instruction'")
        sid, text = instruction(ctx)
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        return types.GetPromptResult(messages=[message], _meta={SESSION_META: sid})

    title = str(manager.bundle.manifest.get("title") or manager.bundle.name)
    return Server(
        f"synthenv:{manager.bundle.name}",
        version=manager.bundle.version,
        title=title,
        instructions=f"Tools of the {title} environment ({manager.bundle.ref}). Each MCP session is one "
        f"episode; the instruction is the resource {INSTRUCTION_URI} (or the prompt 'instruction'). "
        f"Tools named {CONTROL_PREFIX}* control the episode. Stateless clients: results name the session in "
        f"_meta[{SESSION_META!r}]; send it back there (or as the {SESSION_HEADER} header) to stay in it.",
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
