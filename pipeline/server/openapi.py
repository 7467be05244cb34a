"""The served OpenAPI document: the bundle's ``openapi.json`` plus the session routes.

Tool routes are the bundle's, byte for byte (paths, argument and result schemas); this
module only adds ``/health`` and ``/sessions...`` with the request-body schemas the
server checks bodies against (``BODIES``), so the document and the checks cannot drift.
"""

from __future__ import annotations

import copy
from typing import Any

from pipeline.tools.openapi import SESSION_HEADER, error_schema

MAX_SEED = 2**63 - 1

BODIES: dict[str, dict[str, Any]] = {
    "SessionCreate": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "task_id": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": "task to run (default: drawn with the seed)",
            },
            "seed": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_SEED,
                "description": "seed of the task draw (default: drawn by the server, echoed in info)",
            },
        },
    },
    "StepRequest": {
        "type": "object",
        "additionalProperties": False,
        "required": ["action"],
        "properties": {
            "action": {
                "type": "object",
                "description": "{'tool': name, 'arguments': {...}} or "
                "{'answer': value}; a malformed action comes back as an error observation",
            }
        },
    },
}
BODIES["SessionReset"] = BODIES["SessionCreate"]

SHAPES: dict[str, str] = {
    "SessionCreate": '{"task_id": ID, "seed": N} (both optional)',
    "SessionReset": '{"task_id": ID, "seed": N} (both optional)',
    "StepRequest": '{"action": {"tool": NAME, "arguments": {...}}} or {"action": {"answer": VALUE}}',
    "VerifyRequest": '{"answer": VALUE} (optional)',
}
"""Each request body's shape as README shows it: a refused body's error names the right one."""

_OBJECT = {"type": "object"}
RESPONSES: dict[str, dict[str, Any]] = {
    "Health": {
        "type": "object",
        "required": ["status", "bundle", "digest", "sessions"],
        "properties": {
            "status": {"const": "ok"},
            "bundle": {"type": "string"},
            "digest": {"type": "string"},
            "sessions": {"type": "integer"},
        },
    },
    "SessionCreated": {
        "type": "object",
        "required": ["session_id", "observation", "info"],
        "properties": {"session_id": {"type": "string"}, "observation": _OBJECT, "info": _OBJECT},
    },
    "ResetResult": {
        "type": "object",
        "required": ["observation", "info"],
        "properties": {"observation": _OBJECT, "info": _OBJECT},
    },
    "StepResult": {
        "type": "object",
        "required": ["observation", "reward", "terminated", "truncated", "info"],
        "properties": {
            "observation": _OBJECT,
            "reward": {"type": "number"},
            "terminated": {"type": "boolean"},
            "truncated": {"type": "boolean"},
            "info": _OBJECT,
        },
    },
}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> dict[str, Any]:
    text = {
        400: "invalid_argument: malformed body",
        404: "not_found: unknown session or task",
        413: "payload too large",
        503: "at capacity: close a session or retry (see Retry-After)",
    }
    return {str(s): _json(_ref("Error"), text[s]) for s in statuses}


def _session_paths() -> dict[str, Any]:
    sid = {"name": "session_id", "in": "path", "required": True, "schema": {"type": "string"}}

    def post(
        op: str,
        summary: str,
        body: str,
        required: bool,
        ok: str,
        status: str = "200",
        path_param: bool = True,
        errors: tuple[int, ...] = (400, 404, 413),
    ) -> dict[str, Any]:
        return {
            "post": {
                "operationId": op,
                "summary": summary,
                "tags": ["sessions"],
                **({"parameters": [sid]} if path_param else {}),
                "requestBody": {"required": required, "content": {"application/json": {"schema": _ref(body)}}},
                "responses": {status: _json(_ref(ok), summary), **_errors(*errors)},
            }
        }

    return {
        "/health": {
            "get": {
                "operationId": "health",
                "summary": "Liveness, the bundle served and open sessions",
                "tags": ["server"],
                "responses": {"200": _json(_ref("Health"), "ok")},
            }
        },
        "/sessions": post(
            "create_session",
            "Open a session and reset it to a task",
            "SessionCreate",
            False,
            "SessionCreated",
            "201",
            path_param=False,
            errors=(400, 404, 413, 503),
        ),
        "/sessions/{session_id}/reset": post(
            "reset_session", "Start a new episode in the session", "SessionReset", False, "ResetResult"
        ),
        "/sessions/{session_id}/step": post(
            "step_session", "Take one action (tool call or answer)", "StepRequest", True, "StepResult"
        ),
        "/sessions/{session_id}": {
            "delete": {
                "operationId": "close_session",
                "summary": "Close the session (closing twice answers 404)",
                "tags": ["sessions"],
                "parameters": [sid],
                "responses": {"204": {"description": "closed"}, **_errors(404)},
            }
        },
    }


def served_openapi(bundle_document: dict[str, Any], ref: str) -> dict[str, Any]:
    """The bundle's tool routes (given a session header if an older bundle lacks it) plus session routes."""
    doc = copy.deepcopy(bundle_document)
    header = {
        "name": SESSION_HEADER,
        "in": "header",
        "required": True,
        "description": "session the call runs in (from POST /sessions)",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    }
    for path, item in doc.get("paths", {}).items():
        op = item.get("post", {})
        if path.startswith("/tools/") and not any(p.get("name") == SESSION_HEADER for p in op.get("parameters", [])):
            op.setdefault("parameters", []).append(header)
        op.get("responses", {}).setdefault("413", _json(_ref("Error"), "payload too large"))
    doc["paths"] = {**_session_paths(), **doc.get("paths", {})}
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("Error", error_schema())
    schemas.update(BODIES)
    schemas.update(RESPONSES)
    doc["info"] = {
        **doc.get("info", {}),
        "description": f"synthenv environment {ref}: sessions, one route per tool "
        f"(session in the {SESSION_HEADER} header) and MCP (streamable HTTP) at /mcp.",
    }
    return doc
