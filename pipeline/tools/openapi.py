"""The OpenAPI 3.1 view of a toolset: one operation per tool, validated once per build.

The document is a view of the same specs the executor runs, so the two can never disagree.
"""

from __future__ import annotations

from typing import Any

from pipeline.tools.specs import ERROR_STATUS, Toolset

SESSION_HEADER = "X-Session-Id"


def _component_name(table: str) -> str:
    return "".join(part.capitalize() for part in table.split("_"))


def error_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
        "required": ["code", "message"],
    }


def openapi_document(toolset: Toolset, title: str, version: str) -> dict[str, Any]:
    """OpenAPI 3.1: one POST route per tool, arguments as the JSON body, the session in a header.

    Row schemas are shared components referenced by every tool of the table, which keeps
    the document small and its validation fast.
    """
    rows: dict[str, Any] = {}
    for t in toolset.tools:
        # The row schema of a table: a get's result, else the items of its list (some tables have no get).
        if t.kind == "get":
            rows[t.table] = t.result
        elif t.kind == "list":
            rows.setdefault(t.table, t.result["properties"]["items"]["items"])
    components: dict[str, Any] = {"Error": error_schema()}
    components.update({_component_name(table): schema for table, schema in rows.items()})

    def ref(name: str) -> dict[str, str]:
        return {"$ref": f"#/components/schemas/{name}"}

    err = {"content": {"application/json": {"schema": ref("Error")}}}
    session = {
        "name": SESSION_HEADER,
        "in": "header",
        "required": True,
        "description": "session the call runs in (the trainer opens it and gives the agent its id)",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128},
    }
    paths = {}
    for t in toolset.tools:
        result = t.result
        if t.table in rows and result == rows[t.table]:
            result = ref(_component_name(t.table))
        elif t.kind == "list":
            result = {
                **result,
                "properties": {
                    **result["properties"],
                    "items": {"type": "array", "items": ref(_component_name(t.table))},
                },
            }
        conflicts = [c for c in t.errors if ERROR_STATUS.get(c) == 409]
        paths[f"/tools/{t.name}"] = {
            "post": {
                "operationId": t.name,
                "summary": t.description.split(". ")[0][:120],
                "description": t.description,
                "tags": [t.table],
                "parameters": [session],
                "requestBody": {"required": True, "content": {"application/json": {"schema": t.parameters}}},
                "responses": {
                    "200": {"description": "success", "content": {"application/json": {"schema": result}}},
                    "400": {"description": "invalid_argument: wrong, missing or unknown arguments", **err},
                    "404": {"description": "not_found: no such record, tool or session", **err},
                    "409": {"description": ", ".join([*conflicts, "conflict (the episode has ended)"]), **err},
                    "413": {"description": "payload too large", **err},
                },
                "x-synthenv-mode": t.mode,
                "x-synthenv-errors": list(t.errors),
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version},
        "paths": paths,
        "components": {"schemas": components},
    }


def validate_openapi(document: dict[str, Any]) -> None:
    from openapi_spec_validator import validate

    validate(document)


def validate_argument_schemas(toolset: Toolset) -> None:
    """Every argument schema must itself be a valid JSON Schema (2020-12).

    Result schemas are checked as part of the OpenAPI document; checking them here too
    would double the cost of the slowest part of the step for no extra assurance.
    """
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    for t in toolset.tools:
        try:
            Draft202012Validator.check_schema(t.parameters)
        except SchemaError as exc:
            raise ValueError(f"tool {t.name}: invalid arguments schema: {exc.message}") from None
