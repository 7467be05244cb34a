"""Business operations as tools: one guarded transition each, run as one transaction with
the side effects the schema implies (cascading cancellations, restocking)."""

from __future__ import annotations

from pipeline.tools.model import (
    ERRORS,
    CascadeStatus,
    Effect,
    Restock,
    TransitionTool,
    id_param,
    object_schema,
    row_schema,
)
from pipeline.world.schema import Schema, Table

RELEASE_VALUES = frozenset({"cancelled", "canceled", "void", "voided", "returned", "refunded", "withdrawn", "revoked"})
"""Statuses that end a record's claim on what hangs off it: children are cancelled with it, stock returns."""
STOCK_NAMES = frozenset(
    {"stock", "in_stock", "on_hand", "units_on_hand", "quantity_on_hand", "quantity_available", "available_quantity"}
)


def _effects(schema: Schema, table: Table, to: str) -> list[Effect]:
    """Side effects implied by the schema when a record is released (cancelled, returned, voided...)."""
    if to not in RELEASE_VALUES:
        return []
    out: list[Effect] = []
    for child in schema.tables:
        refs = [c for c in child.foreign_keys if c.references == table.name and child.name != table.name]
        if len(refs) != 1:
            continue
        ref = refs[0]
        status = next((c for c in child.columns if c.semantic == "status" and c.values and to in c.values), None)
        if status is not None:
            sources = tuple(src for src, dsts in (status.transitions or {}).items() if to in dsts)
            if sources:
                out.append(
                    CascadeStatus(table=child.name, column=status.name, ref=ref.name, to=to, allowed_from=sources)
                )
        qty = next((c for c in child.columns if c.semantic == "quantity" and not c.references), None)
        if qty is None:
            continue
        for item in child.foreign_keys:
            target = schema.table(str(item.references))
            stock = next(
                (c for c in target.columns if (c.field or c.name) in STOCK_NAMES and c.sql_type in ("INTEGER", "REAL")),
                None,
            )
            if item is not ref and stock is not None:
                out.append(
                    Restock(
                        table=target.name,
                        column=stock.name,
                        ref=ref.name,
                        lines=child.name,
                        item=item.name,
                        quantity=qty.name,
                    )
                )
    return out


def _effect_text(schema: Schema, e: Effect) -> str:
    if isinstance(e, CascadeStatus):
        froms = " or ".join(f"'{v}'" for v in e.allowed_from)
        return f"its {schema.table(e.table).plural} that are {froms} become '{e.to}'"
    lines, target = schema.table(e.lines), schema.table(e.table)
    return (
        f"each of its {lines.plural} puts its {lines.column(e.quantity).label} "
        f"back into the {target.noun}'s {target.column(e.column).label}"
    )


def operation_tools(schema: Schema) -> list[TransitionTool]:
    out = []
    for op in schema.operations:
        table = schema.table(op.table)
        allowed = " or ".join(f"'{v}'" for v in op.allowed_from) or "no status"
        effects = _effects(schema, table, op.to)
        also = f" In the same transaction, {'; '.join(_effect_text(schema, e) for e in effects)}." if effects else ""
        errors = ERRORS["transition"] + (("constraint_violation",) if any(e.kind == "restock" for e in effects) else ())
        out.append(
            TransitionTool(
                name=op.name,
                kind="transition",
                table=table.name,
                description=f"{op.description.rstrip('.')}. Sets the {table.noun}'s {table.column(op.column).label} to "
                f"'{op.to}'; allowed only when it is {allowed}.{also} Returns the updated record.",
                parameters=object_schema({"id": id_param(table)}, ["id"]),
                result=row_schema(table),
                errors=errors,
                status_column=op.column,
                to=op.to,
                allowed_from=op.allowed_from,
                sets_time=op.sets_time,
                effects=tuple(effects),
            )
        )
    return out
