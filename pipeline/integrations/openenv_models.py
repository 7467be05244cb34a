"""The wire models of the OpenEnv adapter: what a client sends and what it gets back.

Kept apart from :mod:`pipeline.integrations.openenv` (the environment and the app) so the
Space's client package can import them without the server. Everything a trainer needs
from a step travels in fields OpenEnv serialises: OpenEnv drops ``Observation.metadata``
on the wire, so the verdict (``status``, ``reason``, the task scored and the task
assigned) is a field of its own, never metadata.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from pipeline.runtime import wire

MCP_ACTIONS: dict[str, type[Action]] = {"list_tools": ListToolsAction, "call_tool": CallToolAction}
"""OpenEnv's MCP actions by their ``type``: what ``MCPToolClient`` sends over the WebSocket."""


class BundleAction(Action):
    """``{"tool": name, "arguments": {...}}`` or ``{"answer": value}``, nothing else.

    OpenEnv's ``MCPToolClient`` sends ``{"type": "list_tools"}`` and ``{"type": "call_tool",
    ...}`` through the same validator; OpenEnv itself only routes those to its MCP actions
    when the server's action class is the bare ``Action``, so this class does it.
    """

    tool: str | None = Field(default=None, description="name of the tool to call")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments (its JSON Schema)")
    answer: Any = Field(default=None, description="the final answer; ends the episode")

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Any:
        kind = obj.get("type") if isinstance(obj, dict) else None
        if cls is BundleAction and kind in MCP_ACTIONS:
            return MCP_ACTIONS[kind].model_validate(obj, *args, **kwargs)
        return super().model_validate(obj, *args, **kwargs)

    # PydanticCustomError, not ValueError: OpenEnv sends validation errors back as JSON, and a
    # ValueError inside them cannot be serialised (the client would only see a session error).
    @model_validator(mode="after")
    def _one_kind(self) -> BundleAction:
        given = self.model_fields_set
        if "answer" in given and ({"tool", "arguments"} & given):
            raise PydanticCustomError(
                "action_kind", "an action is either a tool call (tool, arguments) or an answer, not both"
            )
        if "answer" not in given and self.tool is None:
            raise PydanticCustomError("action_kind", "an action needs 'tool' (with 'arguments') or 'answer'")
        return self

    def as_env_action(self) -> wire.Action:
        if "answer" in self.model_fields_set:
            return {"answer": self.answer}
        # A cast: ``_one_kind`` has refused an action with neither ``answer`` nor ``tool``.
        return {"tool": cast(str, self.tool), "arguments": self.arguments}


class BundleObservation(Observation):
    """What a step returns: the environment's observation, the step's signals and the verdict.

    ``status`` is set on the final observation (and on every one after it): ``passed``,
    ``failed`` or ``error`` (the verification could not run, or scored another task than
    the one assigned: mask it, do not train on it), with ``reason`` in words.
    """

    content: dict[str, Any] = Field(default_factory=dict, description="the observation (instruction, result, error)")
    text: str = Field(default="", description="the observation as the model reads it (pipeline.surface)")
    system: str | None = Field(default=None, description="at reset: the system text for the model (pipeline.surface)")
    signals: dict[str, Any] = Field(default_factory=dict, description="call_valid, call_succeeded, step")
    components: dict[str, float] = Field(default_factory=dict, description="the step's reward components")
    status: Literal["passed", "failed", "error"] | None = Field(
        default=None, description="the verdict once the episode has ended"
    )
    reason: str | None = Field(default=None, description="why the verdict is what it is")
    task_id: str | None = Field(default=None, description="the task the verdict scored (at reset: the task assigned)")
    assigned_task_id: str | None = Field(default=None, description="the task the trainer's reset assigned")


class BundleState(State):
    task_id: str | None = None
    bundle: str | None = None
    digest: str | None = None
    done: bool = False
