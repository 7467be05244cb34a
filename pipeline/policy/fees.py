"""What a record "comes to", and the fee a refund keeps back: the policy's money lines.

A person who cancels something asks what they get back. The world's answer is a line of its
policy: for an operation that undoes a purchase (cancel, refund, return, withdraw), what was paid
on the record (the amounts of the payments that reference it, where the world keeps payments;
else the record's own amount) comes back less a fee of a few per cent, rounded to the cent per
record. No tool returns that figure: it is read across records, reduced by the rule and added
up, which is the computation a policy without judgment skips.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from pipeline.policy.model import Rule, with_article
from pipeline.world.schema import Column, Operation, Schema, Table

REFUND_VERBS = frozenset({"cancel", "refund", "return", "withdraw"})
"""Operations that undo a purchase: the person gets money back."""
FEES = (5, 10, 15, 20, 25)
"""Per cent kept back, chosen per operation by the world's seed."""
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Source:
    """Where a record's amount is read: ``column`` of the record itself (``via`` None), or of the rows
    of ``table`` whose ``via`` references it (an order's payments)."""

    column: Column
    table: Table
    via: Column | None = None


def money_column(table: Table) -> Column | None:
    """A table's amount (none where amounts carry a currency of their own: a sum across currencies
    means nothing)."""
    if any("currency" in (c.field or c.name).lower() for c in table.columns):
        return None
    return next((c for c in table.columns if c.semantic == "money" and not c.nullable), None)


def amount_source(schema: Schema, table: Table) -> Source | None:
    """What a person means by what their records "come to": what was paid on them (a payments table
    whose rows reference the record) where the world keeps that, else the record's own amount, else
    another table of amounts on it (never prices that a quantity multiplies: a sum of them means
    nothing)."""
    children = []
    for child in sorted(schema.tables, key=lambda t: t.name):
        money = money_column(child)
        if money is None or child.name == table.name or any(c.semantic == "quantity" for c in child.columns):
            continue
        for fk in child.foreign_keys:
            if fk.references == table.name and not fk.nullable:
                children.append(Source(money, child, fk))
    paid = [s for s in children if "pay" in s.table.name.lower()]
    own = money_column(table)
    if paid:
        return paid[0]
    if own is not None:
        return Source(own, table)
    return children[0] if children else None


def is_refund(op: Operation) -> bool:
    return op.name.split("_")[0] in REFUND_VERBS


def fee_rule(schema: Schema, op: Operation, seed: int) -> Rule | None:
    """The refund line of ``op`` (None for an operation that refunds nothing, or a record with no amount)."""
    table = schema.table(op.table)
    source = amount_source(schema, table)
    if not is_refund(op) or source is None:
        return None
    fee = random.Random(f"{seed}/{schema.name}/{op.name}/fee").choice(FEES)
    if source.via is None:
        what = f"its {source.column.label}"
    elif "pay" in source.table.name.lower():
        what = f"what was paid on it (the {source.column.label} of its {source.table.plural}, added up)"
    else:
        what = f"the {source.column.label} of its {source.table.plural}, added up,"
    text = (
        f"When {with_article(table.noun)} is set to {op.to.replace('_', ' ')} ({op.name} or otherwise), the customer "
        f"gets back {what} less a fee of {fee} % of that, rounded to the nearest cent (half a cent up) for each "
        f"{table.noun}."
    )
    return Rule(
        id="",
        kind="fee",
        text=text,
        enforced=False,
        table=table.name,
        operation=op.name,
        column=source.column.name,
        limit=float(fee),
        child=source.table.name if source.via is not None else None,
        via=source.via.name if source.via is not None else None,
        goal=op.to,
    )


def refund(paid: Decimal, rule: Rule) -> Decimal:
    """What comes back of ``paid`` under a fee rule: less the fee, rounded half up to the cent."""
    kept = Decimal(str(rule.limit or 0))
    return (paid * (Decimal(100) - kept) / Decimal(100)).quantize(CENT, rounding=ROUND_HALF_UP)
