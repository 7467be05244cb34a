"""The bundle's tools over MCP, bound to sessions the trainer opened, plus the agent's answer tool.

The trainer opens every episode (``POST /trainer/sessions``, :mod:`pipeline.server.trainer`)
and gives the agent the session id; an MCP call runs in the session it names, first match wins:

1. ``_meta["synthenv/session"]`` in the request (works on every transport and protocol);
2. the ``X-Session-Id`` HTTP header (so MCP and REST share one episode).

A call that names no open session opens nothing: it is a tool error (code ``no_episode``)
saying the trainer opens episodes. This stops an agent from drawing a task of its choice on
a fresh connection, and MCP clients from exhausting the sessions.

A request carrying the trainer token (``Authorization: Bearer``) is the trainer's loop, and
keeps what a trainer-driven MCP loop needs: without a named session, a handshake-era
(stateful) MCP session gets one environment session (keyed on the ``mcp-session-id``,
opened on its first call and closed when the MCP session ends). A stateless call (the
2026 protocol, which the official client picks by default) has no MCP session to key on:
it runs in the session its HTTP connection opened, and ``synthenv_reset`` naming no
session opens that one, closing the one the connection opened before; any other call on a
connection that opened none is a ``no_episode`` error. So a client that never says goodbye
holds at most one session per connection, reaped like any other after ``session_ttl`` of
idling (a new connection does not silently continue an old episode: name it). And the
episode-control tools ``synthenv_reset`` (a new episode, optionally a given
task and seed) and ``synthenv_verify`` (the full verdict on the current state) are listed
and callable. Without the token they are neither.

Every result carries the session id in ``_meta["synthenv/session"]``. Beside the bundle's
tools: the instruction is the resource ``synthenv://episode/instruction`` and the prompt
``instruction``; ``synthenv_answer`` (marked ``_meta["synthenv/control"] = true``, as the
trainer's tools are) gives the final answer: reward and which checks passed, never an
expected value. After it, every call in that episode is an ``episode_over`` error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from pipeline.bundle.manifest import Manifest, ToolUseManifest
from pipeline.server.sessions import CapacityError, SessionManager, UnknownSession
from pipeline.server.trainer import EPISODE_REQUEST, OPENS_EPISODES, VERIFY_REQUEST, bearer_ok
from pipeline.surface.text import POLICY_HEADING
from pipeline.tools.openapi import SESSION_HEADER
from pipeline.tools.specs import ToolSpec

SESSION_META = "synthenv/session"
CONTROL_META = "synthenv/control"
CONTROL_PREFIX = "synthenv_"
INSTRUCTION_URI = "synthenv://episode/instruction"
POLICY_URI = "synthenv://world/policy"
"""The world's policy (tool-use bundles that carry one): in the server's instructions, this resource and
the prompt, the same text every trainer adapter puts in its system text."""
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
        "Trainer only: start a new episode in this session (a fresh copy of the initial state); "
        "returns the instruction.",
        EPISODE_REQUEST,
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


class NoEpisode(Exception):
    """The request names no open session and is not the trainer's: it may not open one."""


NO_EPISODE = (
    f"this call names no episode: {OPENS_EPISODES} (or in _meta[{SESSION_META!r}]); an MCP connection does not open one"
)


NO_STATELESS_EPISODE = (
    f"this stateless call names no episode and its connection opened none: call {RESET} first (its result "
    f"names the session), or name one (the {SESSION_HEADER} header or _meta[{SESSION_META!r}]); "
    "a new connection does not continue another connection's episode"
)


class _Binder:
    """Maps a call to an environment session (see the module docstring for the order)."""

    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager
        self._by_mcp_id: dict[str, str] = {}
        """MCP session (the ``mcp-session-id``, or the connection where there is none) -> environment session."""

    def __len__(self) -> int:
        return len(self._by_mcp_id)

    def session_id(self, ctx: Any, trainer: bool = False, opens: bool = False) -> str:
        """The environment session ``ctx`` runs in; ``opens``: the call is ``synthenv_reset``."""
        meta = getattr(ctx, "meta", None) or {}
        explicit = meta.get(SESSION_META) if isinstance(meta, dict) else None
        headers = _headers(ctx)
        if not explicit and headers is not None:
            explicit = headers.get(SESSION_HEADER.lower())
        if explicit:
            if not isinstance(explicit, str) or not self.manager.is_open(explicit):
                raise UnknownSession(str(explicit))
            return explicit
        if not trainer:
            raise NoEpisode(NO_EPISODE)
        # The SDK keeps one Connection per handshake-era MCP session and tears down its
        # exit_stack when that session ends; the low-level request context reaches it only here.
        connection = getattr(getattr(ctx, "session", None), "_connection", None)
        if str(getattr(ctx, "protocol_version", "")) in MODERN_PROTOCOL_VERSIONS or connection is None:
            return self._stateless(ctx, opens)
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

    def _stateless(self, ctx: Any, opens: bool) -> str:
        """A stateless trainer call naming no session: its connection's session (``opens``: a new one)."""
        client = getattr(getattr(ctx, "request", None), "client", None)
        key = f"http:{client[0]}:{client[1]}" if client else None
        sid = self._by_mcp_id.get(key) if key is not None else None
        if not opens:
            if sid is None or not self.manager.is_open(sid):
                raise NoEpisode(NO_STATELESS_EPISODE)
            return sid
        if sid is not None:
            self.manager.close(sid)  # this connection's previous episode: one session per connection
        sid = self.manager.create()[0]
        if key is not None:
            self._prune()
            self._by_mcp_id[key] = sid
        return sid

    def _prune(self) -> None:
        """Forget connections whose session is gone (closed or reaped), so the map stays as small as the sessions."""
        if len(self._by_mcp_id) > 2 * self.manager.max_sessions:
            for key, sid in list(self._by_mcp_id.items()):
                if key.startswith("http:") and not self.manager.is_open(sid):
                    del self._by_mcp_id[key]

    def release(self, key: str) -> None:
        """The MCP session ``key`` ended: close its environment session."""
        sid = self._by_mcp_id.pop(key, None)
        if sid is not None:
            self.manager.close(sid)


def _is_trainer(ctx: Any, token: str | None) -> bool:
    return bearer_ok(_headers(ctx), token)


def _policy_text(manifest: Manifest) -> str:
    """``Policy of this system:`` and the bundle's numbered rules, or "" when it has none."""
    text = manifest.policy if isinstance(manifest, ToolUseManifest) else None
    if not isinstance(text, str) or not text.strip():
        return ""
    return f"{POLICY_HEADING}\n{text.strip()}"


def build_mcp_server(manager: SessionManager, trainer_token: str | None = None) -> Server[Any]:
    """A low-level MCP server: the bundle's tool specs verbatim, the answer tool (and, for the
    trainer's requests, the episode-control tools), and the instruction as a resource and a prompt.
    Without ``trainer_token`` no request is the trainer's."""
    specs = manager.template.toolset.tools
    tools = [mcp_tool(t) for t in specs]
    names = {t.name for t in specs}
    schemas: dict[str, Any] = {t.name: t.parameters for t in specs}
    schemas.update({name: tool.input_schema for name, tool in CONTROL_TOOLS.items()})
    binder = _Binder(manager)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        control = [CONTROL_TOOLS[ANSWER]]
        if _is_trainer(ctx, trainer_token):
            control += [CONTROL_TOOLS[RESET], CONTROL_TOOLS[VERIFY]]
        return types.ListToolsResult(tools=tools + control)

    def episode(sid: str, name: str, arguments: dict[str, Any], ctx: Any) -> types.CallToolResult:
        if name == ANSWER:
            obs, reward, terminated, truncated, info = manager.get(sid).step({"answer": arguments.get("answer")})
            if obs.get("type") == "error":
                return _error(str(obs["error"]["code"]), str(obs["error"]["message"]), sid)
            return _result({"reward": reward, "terminated": terminated, "truncated": truncated, "info": info}, sid)
        if name == RESET:  # the trainer's (checked by the caller)
            try:
                obs, info = manager.reset(sid, task_id=arguments.get("task_id"), seed=arguments.get("seed"))
            except ValueError as exc:
                return _error("not_found", str(exc), sid)
            return _result({"observation": obs, "info": info}, sid)
        env = manager.get(sid)
        return _result({"episode_done": env.done, **env.verify(arguments.get("answer"))}, sid)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments or {}
        trainer = _is_trainer(ctx, trainer_token)
        if name not in names and name != ANSWER and (name not in CONTROL_TOOLS or not trainer):
            return _error("not_found", f"unknown tool {name[:80]!r}; tools/list names them")
        try:
            sid = binder.session_id(ctx, trainer, opens=name == RESET)
        except NoEpisode as exc:
            return _error("no_episode", str(exc))
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
        try:
            sid = binder.session_id(ctx, _is_trainer(ctx, trainer_token))
        except NoEpisode as exc:
            raise ValueError(str(exc)) from None
        task = manager.get(sid).task
        return sid, task.instruction if task is not None else ""

    policy = _policy_text(manager.bundle.manifest)

    async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        resource = types.Resource(
            name="instruction",
            title="The episode's instruction",
            uri=INSTRUCTION_URI,
            description="What the agent is asked to do in this session's current episode.",
            mime_type="text/plain",
        )
        resources = [resource]
        if policy:
            resources.append(
                types.Resource(
                    name="policy",
                    title="The policy of this system",
                    uri=POLICY_URI,
                    description="The numbered rules every request is judged against (a refusal names one).",
                    mime_type="text/plain",
                )
            )
        return types.ListResourcesResult(resources=resources)

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if policy and str(params.uri) == POLICY_URI:
            text_policy = types.TextResourceContents(uri=POLICY_URI, mime_type="text/plain", text=policy)
            return types.ReadResourceResult(contents=[text_policy])
        if str(params.uri) != INSTRUCTION_URI:
            raise ValueError(
                f"unknown resource {str(params.uri)[:80]!r}; the resources are {INSTRUCTION_URI}"
                + (f" and {POLICY_URI}" if policy else "")
            )
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
        if policy:  # the prompt is what a client hands its model: the rules come with the request
            text = f"{policy}\n\n{text}"
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        return types.GetPromptResult(messages=[message], _meta={SESSION_META: sid})

    title = manager.bundle.manifest.title or manager.bundle.name
    return Server(
        f"synthenv:{manager.bundle.name}",
        version=manager.bundle.version,
        title=title,
        instructions=f"Tools of the {title} environment ({manager.bundle.ref}). Calls run in the episode the "
        f"trainer opened: send its session id as the {SESSION_HEADER} header or in _meta[{SESSION_META!r}]. "
        f"The instruction is the resource {INSTRUCTION_URI} (or the prompt 'instruction'); "
        f"{ANSWER} gives the final answer and ends the episode."
        + (f" Every request is judged against the policy of this system ({POLICY_URI}):\n{policy}" if policy else ""),
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
