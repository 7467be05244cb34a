"""The same tools over MCP (list_tools / call_tool), bound to the same sessions.

Which session a call runs in, first match wins:

1. ``_meta["synthenv/session"]`` in the request (works on every transport and protocol);
2. the ``X-Session-Id`` HTTP header (a session made with ``POST /sessions``, so MCP and
   REST can share one episode);
3. on a handshake-era (stateful) MCP connection, one session per connection, opened on
   its first tool call;
4. otherwise a new session is opened for the call.

Every result carries the session id in ``_meta["synthenv/session"]``, so a stateless
client keeps its episode by sending it back. Sessions opened here are ordinary sessions:
they count against the capacity and are reaped when idle.
"""

from __future__ import annotations

import json
import weakref
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from pipeline.server.sessions import CapacityError, SessionManager, UnknownSession
from pipeline.tools import SESSION_HEADER, ToolSpec


def mcp_tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.name, description=spec.description, input_schema=spec.parameters, output_schema=spec.result,
        annotations=types.ToolAnnotations(read_only_hint=spec.mode == "read", destructive_hint=spec.kind == "delete",
                                          idempotent_hint=spec.mode == "read", open_world_hint=False),
    )


def _error(code: str, message: str, session: str | None = None) -> types.CallToolResult:
    payload = {"code": code, "message": message}
    meta = {SESSION_META: session} if session else None
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(payload))], is_error=True,
                                _meta=meta)


SESSION_META = "synthenv/session"


class _Binder:
    """Maps a call to an environment session (see the module docstring for the order)."""

    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager
        self._by_connection: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._by_mcp_id: dict[str, str] = {}

    def session_id(self, ctx: Any) -> str:
        meta = getattr(ctx, "meta", None) or {}
        explicit = meta.get(SESSION_META) if isinstance(meta, dict) else None
        headers = getattr(getattr(ctx, "request", None), "headers", None)
        if not explicit and headers is not None:
            explicit = headers.get(SESSION_HEADER.lower())
        if explicit:
            if not isinstance(explicit, str) or not self.manager.is_open(explicit):
                raise UnknownSession(str(explicit))
            return explicit
        if str(getattr(ctx, "protocol_version", "")) in MODERN_PROTOCOL_VERSIONS:
            return self.manager.create()[0]
        mcp_id = headers.get("mcp-session-id") if headers is not None else None
        if mcp_id:
            return self._bound(self._by_mcp_id, str(mcp_id))
        # The SDK keeps one Connection per handshake-era client; its request contexts do not expose it publicly.
        connection = getattr(getattr(ctx, "session", None), "_connection", None)
        if connection is None:
            return self.manager.create()[0]
        return self._bound(self._by_connection, connection)

    def _bound(self, table: Any, key: Any) -> str:
        sid = table.get(key)
        if sid is None or not self.manager.is_open(sid):
            self._by_mcp_id = {k: v for k, v in self._by_mcp_id.items() if self.manager.is_open(v)}
            sid = self.manager.create()[0]
            table[key] = sid
        return str(sid)


def build_mcp_server(manager: SessionManager) -> Server[Any]:
    """A low-level MCP server whose tool list is the bundle's tool specs, verbatim."""
    specs = manager.template.toolset.tools
    tools = [mcp_tool(t) for t in specs]
    schemas = {t.name: t.parameters for t in specs}
    binder = _Binder(manager)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            sid = binder.session_id(ctx)
        except UnknownSession as exc:
            return _error("not_found", exc.message)
        except CapacityError as exc:
            return _error("unavailable", str(exc))
        obs, _, _, _, _ = manager.get(sid).step({"tool": params.name, "arguments": params.arguments or {}})
        if obs["type"] == "tool_result":
            result = obs["result"]
            return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(result))],
                                        structured_content=result, _meta={SESSION_META: sid})
        error = obs["error"]
        return _error(str(error["code"]), str(error["message"]), sid)

    title = str(manager.bundle.manifest.get("title") or manager.bundle.name)
    return Server(
        f"synthenv:{manager.bundle.name}", version=manager.bundle.version, title=title,
        instructions=f"Tools of the {title} environment ({manager.bundle.ref}). Calls run in a session; "
        f"session; results name it in _meta[{SESSION_META!r}]: send it back there (or as the {SESSION_HEADER} "
        "header) to stay in the same episode.",
        get_tool_input_schema=schemas.get, on_list_tools=list_tools, on_call_tool=call_tool,
    )
