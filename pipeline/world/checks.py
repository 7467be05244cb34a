"""Every row-level promise of a schema as one SQL predicate: the rows that break it.

One catalogue serves two readers. The realism check counts the violating rows of each
check over a whole generated database; the executor runs the checks a write could break
on just the rows it wrote (``WHERE r.id IN (...)``) and on the rows that read them (children
through ``parents``), and refuses the write with the check's message. So population,
verification of a build and the tools can never disagree about what a valid row is.

Kinds: ``rule`` (declared business rules), ``timeline`` (declared ``after`` order, children
not before parents, status stamps after creation and in lifecycle order) and ``status``
(a stamp exists exactly when the status history allows; a history row's move is legal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pipeline.world.rules import operands, parse, violation_sql
from pipeline.world.schema import Column, Schema, Table
from pipeline.world.sqlnames import quote_ident as _q
from pipeline.world.sqlnames import quote_literal
from pipeline.world.timeline import anchor_column, is_birth, lifecycle_order, passed_through, stamps_of

CheckKind = Literal["rule", "timeline", "status"]


@dataclass(frozen=True)
class RowCheck:
    table: str
    kind: CheckKind
    name: str
    """What is checked, for reports (``invoices: insurance_covered <= amount``)."""
    sql: str
    """Predicate over alias ``r`` of ``table``: true for a violating row."""
    message: str
    """Why a write breaking it is refused, in the domain's words."""
    parents: tuple[tuple[str, str], ...] = ()
    """(reference column of ``table``, referenced table) for each referenced row the check reads."""


def _width(*columns: Column) -> int:
    return 10 if any(c.semantic == "date" for c in columns) else 19


def _day(expr: str, width: int) -> str:
    return f"substr({expr}, 1, {width})"


def _in(values: frozenset[str] | list[str]) -> str:
    return ", ".join(quote_literal(v) for v in sorted(values))


def _timeline(schema: Schema, table: Table) -> list[RowCheck]:
    out = []
    noun = table.noun
    for c in table.columns:
        if c.after:
            base = table.column(c.after)
            w = _width(c, base)
            out.append(
                RowCheck(
                    table.name,
                    "timeline",
                    f"{table.name}: {c.name} >= {base.name}",
                    f"{_day('r.' + _q(c.name), w)} < {_day('r.' + _q(base.name), w)}",
                    f"{_a(noun)}'s {c.label} cannot be earlier than its {base.label}",
                )
            )
    own = anchor_column(table)
    if own is not None and not is_birth(own):
        for fk in table.foreign_keys:
            parent = schema.table(str(fk.references))
            theirs = anchor_column(parent)
            if theirs is None or parent.name == table.name:
                continue
            w = _width(own, theirs)
            parent_time = f"(SELECT p.{_q(theirs.name)} FROM {_q(parent.name)} p WHERE p.id = r.{_q(fk.name)})"
            out.append(
                RowCheck(
                    table.name,
                    "timeline",
                    f"{table.name}: {own.name} >= {fk.name}.{theirs.name}",
                    f"{_day('r.' + _q(own.name), w)} < {_day(parent_time, w)}",
                    f"{_a(noun)}'s {own.label} cannot be earlier than the {theirs.label} of its {fk.label}",
                    parents=((fk.name, parent.name),),
                )
            )
    for status in (c for c in table.columns if c.semantic == "status" and c.transitions):
        stamps = stamps_of(table, status)
        for s in stamps:
            if own is not None:
                w = _width(s, own)
                out.append(
                    RowCheck(
                        table.name,
                        "timeline",
                        f"{table.name}: {s.name} >= {own.name}",
                        f"{_day('r.' + _q(s.name), w)} < {_day('r.' + _q(own.name), w)}",
                        f"{_a(noun)}'s {s.label} cannot be earlier than its {own.label}",
                    )
                )
            for later in stamps:
                if later is s or s.stamp is None or later.stamp is None:
                    continue
                if lifecycle_order(status, s.stamp.value, later.stamp.value):
                    w = _width(s, later)
                    out.append(
                        RowCheck(
                            table.name,
                            "timeline",
                            f"{table.name}: {s.name} <= {later.name}",
                            f"{_day('r.' + _q(s.name), w)} > {_day('r.' + _q(later.name), w)}",
                            f"{_a(noun)} is {_words(s.stamp.value)} before it is {_words(later.stamp.value)}: "
                            f"its {s.label} cannot be later than its {later.label}",
                        )
                    )
    return out


def _words(value: str) -> str:
    return value.replace("_", " ")


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _status(table: Table) -> list[RowCheck]:
    out = []
    for status in (c for c in table.columns if c.semantic == "status" and c.transitions):
        for s in stamps_of(table, status):
            value = str(s.stamp.value) if s.stamp else ""
            may, must = passed_through(status, value)
            never = [v for v in status.values or () if v not in may]
            col, st = "r." + _q(s.name), "r." + _q(status.name)
            if never:
                out.append(
                    RowCheck(
                        table.name,
                        "status",
                        f"{table.name}: {s.name} empty unless {status.name} passed {value!r}",
                        f"{col} IS NOT NULL AND {st} IN ({_in(never)})",
                        f"{_a(table.noun)} that never was {_words(value)} has no {s.label}",
                    )
                )
            if must:
                out.append(
                    RowCheck(
                        table.name,
                        "status",
                        f"{table.name}: {s.name} set once {status.name} passed {value!r}",
                        f"{col} IS NULL AND {st} IN ({_in(must)})",
                        f"{_a(table.noun)} that has been {_words(value)} keeps its {s.label}",
                    )
                )
    for c in table.columns:
        if c.follows and c.transitions is not None:
            legal = " OR ".join(
                f"(r.{_q(c.follows)} = '{src}' AND r.{_q(c.name)} IN ({_in(list(dsts))}))"
                for src, dsts in sorted(c.transitions.items())
                if dsts
            )
            out.append(
                RowCheck(
                    table.name,
                    "status",
                    f"{table.name}: {c.follows} -> {c.name} is a legal move",
                    f"NOT ({legal or '0'})",
                    f"{c.label} must be a status {table.noun}s may move to from {table.column(c.follows).label}",
                )
            )
    return out


def _rules(schema: Schema, table: Table) -> list[RowCheck]:
    out = []
    for rule in table.rules:
        refs = {r.via for r in operands(parse(rule.check)) if r.via}
        if rule.when:
            refs |= {r.via for r in operands(parse(rule.when, condition=True)) if r.via}
        parents = tuple((via, str(table.column(via).references)) for via in sorted(refs))
        name = f"{table.name}: {rule.check}" + (f" when {rule.when}" if rule.when else "")
        out.append(
            RowCheck(
                table.name,
                "rule",
                name,
                violation_sql(schema, table, rule.check, rule.when),
                rule.message
                or f"every {table.noun} must satisfy {rule.check}" + (f" when {rule.when}" if rule.when else ""),
                parents=parents,
            )
        )
    return out


def row_checks(schema: Schema) -> list[RowCheck]:
    """Every row-level check of the schema, table by table."""
    out: list[RowCheck] = []
    for table in schema.tables:
        out += _rules(schema, table) + _timeline(schema, table) + _status(table)
    return out
