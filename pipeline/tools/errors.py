"""The typed errors a tool call returns, and how a refusal is worded: a jsonschema error as
an argument problem an agent can act on, a SQLite constraint as conflict, not_found or
constraint_violation naming the field. One place, so HTTP, MCP and in-process calls agree."""

from __future__ import annotations

from typing import Any

from pipeline.tools.specs import ToolSpec
from pipeline.world.schema import Table


class ToolError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def nice(name: str) -> str:
    return name.replace("_", " ")


def options(values: tuple[str, ...] | list[str]) -> str:
    return " or ".join(f"'{v}'" for v in values)


def describe(error: Any) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown argument(s)")
    if error.validator == "required":
        return error.message.replace("is a required property", "is required")
    if error.validator == "minProperties" and not where:
        return "nothing to change: give the id and at least one field"
    if error.validator is False or error.message.startswith("False schema"):
        return f"argument '{where}' does not apply here"
    return f"argument '{where}': {error.message}" if where else error.message


def leaf_errors(errors: list[Any]) -> list[Any]:
    """Errors inside allOf/if-then branches say more than the branch failure that wraps them."""
    out = []
    for e in errors:
        out.extend(leaf_errors(list(e.context)) if e.context else [e])
    return out


def as_tool_error(spec: ToolSpec, table: Table | None, exc: Exception) -> ToolError:
    """Translate what SQLite refused into the typed error an agent can act on."""
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, OverflowError):
        return ToolError("invalid_argument", f"{spec.name}: a number is outside the 64-bit integer range")
    text = str(exc)
    entity = nice(table.entity) if table is not None else "record"
    if text.startswith("UNIQUE"):
        cols = text.split(":", 1)[-1].strip()
        return ToolError("conflict", f"another {entity} already has this value of {cols}")
    if text.startswith("CHECK") and table is not None:
        name = text.split(":", 1)[-1].strip()
        column = name.removeprefix(f"ck_{table.name}_").rsplit("_", 1)[0]
        col = next((c for c in table.columns if c.name == column), None)
        if col is not None and col.values:
            hint = f"must be one of {', '.join(col.values)}"
        elif col is not None and (col.min is not None or col.max is not None):
            hint = (
                f"must be between {col.min:g} and {col.max:g}"
                if col.min is not None and col.max is not None
                else "is out of range"
            )
        else:
            hint = "is not valid"
        return ToolError("constraint_violation", f"{column} {hint}")
    if text.startswith("NOT NULL"):
        return ToolError("invalid_argument", f"{text.split('.', 1)[-1]} is required")
    if text.startswith("FOREIGN KEY"):
        if spec.kind == "delete":
            return ToolError("conflict", f"other records still refer to this {entity}; remove them first")
        return ToolError("not_found", "a referenced record does not exist")
    return ToolError("constraint_violation", text)
