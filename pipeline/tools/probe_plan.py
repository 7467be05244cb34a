"""Which probes a tool gets, as a function of its spec alone, and how they are counted.

``plan`` lets the manifest record the probe counts every shipped tool passed without
re-running them (``summary``); ``probes`` runs the cases on a scratch copy of the state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pipeline.tools.specs import (
    CreateTool,
    StatusTool,
    Toolset,
    ToolSpec,
    TransitionTool,
    UpdateTool,
    group_columns,
    measure_columns,
)
from pipeline.world.schema import Schema
from pipeline.world.timeline import terminal

VALID = "valid"
EXPECTED = {
    "wrong_type": "invalid_argument",
    "missing_field": "invalid_argument",
    "unknown_argument": "invalid_argument",
    "unknown_id": "not_found",
    "unknown_reference": "not_found",
    "duplicate_unique": "conflict",
    "forbidden_transition": "forbidden_transition",
    "final_record": "conflict",
}


@dataclass
class ProbeReport:
    calls: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def as_dict(self, tools: int) -> dict[str, Any]:
        valid = sum(n for case, n in self.calls.items() if case.startswith(VALID))
        return {
            "tools": tools,
            "calls": sum(self.calls.values()),
            "valid": valid,
            "invalid": sum(self.calls.values()) - valid,
            "failed": len(self.failures),
            "by_case": dict(sorted(self.calls.items())),
        }


def _moves_forbidden(spec: StatusTool, values: tuple[str, ...]) -> bool:
    if isinstance(spec, TransitionTool):
        return any(v not in spec.allowed_from for v in values)
    transitions = spec.transitions or {}
    return any(
        dst != src and (dst in spec.reserved or dst not in transitions.get(src, ())) for src in values for dst in values
    )


def plan(spec: ToolSpec, schema: Schema) -> list[str]:
    """The probe cases a tool gets, from its spec alone."""
    if spec.kind == "aggregate":
        report = schema.table(spec.table)
        grouped = [f"{VALID}:grouped"] if measure_columns(report) and group_columns(report) else []
        return [f"{VALID}:{report.name}", *grouped, "wrong_type", "missing_field", "unknown_argument"]
    table = schema.table(spec.table)
    cases = [VALID] + ([f"{VALID}:filtered"] if spec.kind == "list" else [])
    cases += ["wrong_type", "unknown_argument"]
    if spec.parameters.get("required"):
        cases.append("missing_field")
    if spec.kind in ("get", "update", "delete", "transition"):
        cases.append("unknown_id")
    if isinstance(spec, CreateTool):
        if any(c.name in spec.columns for c in table.foreign_keys):
            cases.append("unknown_reference")
        if any(c.unique and c.name in spec.columns and not c.references for c in table.columns):
            cases.append("duplicate_unique")
    if not isinstance(spec, (UpdateTool, TransitionTool)) or spec.status_column is None:
        return cases
    status = table.column(spec.status_column)
    if status.values and _moves_forbidden(spec, status.values):
        cases.append("forbidden_transition")
    if isinstance(spec, UpdateTool) and any(terminal(status, v) for v in status.values or ()):
        cases.append("final_record")
    return cases


def summary(schema: Schema, toolset: Toolset) -> dict[str, Any]:
    """What the manifest records: the probe counts every shipped tool passed."""
    report = ProbeReport()
    for spec in toolset.tools:
        report.calls.update(c.split(":")[0] for c in plan(spec, schema))
    return report.as_dict(len(toolset.tools))
