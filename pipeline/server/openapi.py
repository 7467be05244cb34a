"""The served OpenAPI document, the agent's map: the bundle's ``openapi.json`` plus the step route.

Tool routes are the bundle's, byte for byte (paths, argument and result schemas); this
module only adds ``/health`` and ``/sessions/{id}/step`` with the request-body schema the
server checks bodies against (``BODIES``), so the document and the checks cannot drift.
Episode control (open, reset, close, verify) is the trainer's and is not in it
(:mod:`pipeline.server.trainer`).
"""

from __future__ import annotations

import copy
from typing import Any

from pipeline.tools.openapi import SESSION_HEADER, error_schema

BODIES: dict[str, dict[str, Any]] = {
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
        "/sessions/{session_id}/step": post(
            "step_session", "Take one action (tool call or answer)", "StepRequest", True, "StepResult"
        ),
    }


def served_openapi(bundle_document: dict[str, Any], ref: str) -> dict[str, Any]:
    """The bundle's tool routes (given a session header if an older bundle lacks it) plus session routes."""
    doc = copy.deepcopy(bundle_document)
    header = {
        "name": SESSION_HEADER,
        "in": "header",
        "required": True,
        "description": "session the call runs in (the trainer opens it and gives the agent its id)",
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
        "description": f"synthenv environment {ref}: one route per tool (session in the {SESSION_HEADER} "
        "header), the session's step route and MCP (streamable HTTP) at /mcp. The trainer opens the session.",
    }
    return doc
