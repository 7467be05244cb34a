"""Population side of the business rules: values drawn so that every declared rule holds.

A rule's left side is the field population adjusts (:mod:`pipeline.world.rules`). For a
time field the rule is a bound applied while the column is drawn (a loan is requested after
the artwork's acquisition), so the times drawn after it see the bound too. For a number the
rule is applied once every table is drawn and derived (its right side may be a total):
each row's allowed interval is the intersection of the column's range and every rule that
applies to the row, and only the rows outside it are redrawn inside it, so the column keeps
its distribution wherever the data was already plausible.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from pipeline.world.rules import operands, parse, split
from pipeline.world.schema import BusinessRule, Column, Table

if TYPE_CHECKING:
    from pipeline.data.columns import Context, TableData

Array = np.ndarray
DAY = 86_400
_TIMES = ("timestamp", "date")


def _column_values(table: Table, name: str, cols: dict[str, Array], nulls: dict[str, Array] | None) -> Array:
    col = table.column(name)
    values = cols[name]
    if col.values or values.dtype == object:
        return values
    out = values.astype(float)
    mask = (nulls or {}).get(name)
    if mask is not None:
        out = np.where(mask, np.nan, out)
    return out


def evaluate(
    node: ast.expr, table: Table, cols: dict[str, Array], ctx: Context, nulls: dict[str, Array] | None
) -> Array:
    """A rule expression over every row (NaN where an operand is empty; booleans for conditions)."""
    if isinstance(node, ast.Constant):
        return np.asarray(node.value)
    if isinstance(node, ast.Name):
        return _column_values(table, node.id, cols, nulls)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        fk = table.column(node.value.id)
        parent = ctx.data[str(fk.references)]
        values = _column_values(parent.table, node.attr, parent.values, parent.nulls)
        return values[cols[fk.name] - 1]
    if isinstance(node, ast.BinOp):
        left, right = evaluate(node.left, table, cols, ctx, nulls), evaluate(node.right, table, cols, ctx, nulls)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        return left * right
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -evaluate(node.operand, table, cols, ctx, nulls)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return ~evaluate(node.operand, table, cols, ctx, nulls).astype(bool)
    if isinstance(node, ast.BoolOp):
        parts = [evaluate(v, table, cols, ctx, nulls).astype(bool) for v in node.values]
        out = parts[0]
        for p in parts[1:]:
            out = (out & p) if isinstance(node.op, ast.And) else (out | p)
        return out
    if isinstance(node, ast.Compare):
        left, op, right_node = evaluate(node.left, table, cols, ctx, nulls), node.ops[0], node.comparators[0]
        if isinstance(op, ast.In | ast.NotIn) and isinstance(right_node, ast.List | ast.Tuple):
            inside = np.isin(left.astype(str), [str(e.value) for e in right_node.elts if isinstance(e, ast.Constant)])
            return ~inside if isinstance(op, ast.NotIn) else inside
        other = evaluate(right_node, table, cols, ctx, nulls)
        with np.errstate(invalid="ignore"):
            if isinstance(op, ast.Eq):
                return np.asarray(left == other)
            if isinstance(op, ast.NotEq):
                return np.asarray(left != other)
            if isinstance(op, ast.Lt):
                return np.asarray(left < other)
            if isinstance(op, ast.LtE):
                return np.asarray(left <= other)
            if isinstance(op, ast.Gt):
                return np.asarray(left > other)
            return np.asarray(left >= other)
    raise ValueError(f"cannot evaluate {ast.unparse(node)!r}")


def _applies(
    rule: BusinessRule, table: Table, cols: dict[str, Array], ctx: Context, nulls: dict[str, Array], n: int
) -> Array:
    if not rule.when:
        return np.ones(n, dtype=bool)
    return np.broadcast_to(evaluate(parse(rule.when, condition=True), table, cols, ctx, nulls), (n,)).astype(bool)


def _ready(rule: BusinessRule, table: Table, cols: dict[str, Array], ctx: Context) -> bool:
    """Every operand has been drawn (a task drawing one fresh value may not have them all)."""
    left, _, right = split(rule.check)
    refs = list(operands(right))
    if rule.when:
        refs += list(operands(parse(rule.when, condition=True)))
    del left
    for ref in refs:
        if ref.via is None and ref.field not in cols:
            return False
        if ref.via is not None:
            fk = table.column(ref.via)
            parent = ctx.data.get(str(fk.references))
            if ref.via not in cols or parent is None or ref.field not in parent.values:
                return False
    return True


# -- times: bounds while drawing -----------------------------------------------------------------


def time_bounds(
    table: Table, column: Column, n: int, cols: dict[str, Array], ctx: Context
) -> tuple[Array | None, Array | None]:
    """(lower, upper) epoch seconds the rules put on a time column (None: no bound from rules)."""
    lower: Array | None = None
    upper: Array | None = None
    for rule in table.rules:
        left, op, right = split(rule.check)
        if left != column.name or not _ready(rule, table, cols, ctx):
            continue
        bound = np.broadcast_to(evaluate(right, table, cols, ctx, None), (n,)).astype(float)
        if column.semantic == "date" or _is_date(right, table, ctx):
            day = np.floor(bound / DAY) * DAY
            bound = day if op in (">=", ">") else day + DAY - 1
        if op in (">", "<"):
            bound = bound + (1 if op == ">" else -1)
        bound = np.nan_to_num(bound, nan=-np.inf if op in (">=", ">") else np.inf)
        if op in (">=", ">"):
            lower = bound if lower is None else np.maximum(lower, bound)
        else:
            upper = bound if upper is None else np.minimum(upper, bound)
    return lower, upper


def _is_date(node: ast.expr, table: Table, ctx: Context) -> bool:
    if isinstance(node, ast.Name):
        return table.column(node.id).semantic == "date"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        parent = ctx.data[str(table.column(node.value.id).references)].table
        return parent.column(node.attr).semantic == "date"
    return False


# -- numbers: repairs once everything is drawn ----------------------------------------------------


def _order(table: Table) -> list[str]:
    """Left-side columns, each after the columns its rules read from the same row."""
    deps: dict[str, set[str]] = {}
    for rule in table.rules:
        left, _, right = split(rule.check)
        if table.column(left).semantic in _TIMES:
            continue
        deps.setdefault(left, set()).update(r.field for r in operands(right) if r.via is None)
    done: list[str] = []
    while len(done) < len(deps):
        ready = [c for c in deps if c not in done and not (deps[c] & (set(deps) - set(done) - {c}))]
        done.extend(sorted(ready) if ready else sorted(set(deps) - set(done)))
    return done


def enforce_numbers(
    data: TableData, ctx: Context, seed_rng: np.random.Generator, fixed: frozenset[str] = frozenset()
) -> None:
    """Redraw, inside its allowed interval, every row a numeric rule rejects (in dependency order).

    A row no value can fix (a refund on an order whose total is below the smallest refund) is
    moved to another parent that allows one, when its reference is free to move (``fixed``
    names the references that are not: lines a total is summed over, unique pairs).
    """
    table = data.table
    for name in _order(table):
        column = table.column(name)
        rules = [r for r in table.rules if split(r.check)[0] == name]
        lo, hi = _interval(data, column, rules, ctx)
        stuck = _bad(data, column, lo, hi) & ~_feasible(column, lo, hi)
        if stuck.any():
            _repoint(data, column, rules, ctx, seed_rng, stuck, fixed)
            lo, hi = _interval(data, column, rules, ctx)
        _enforce_one(data, column, lo, hi, seed_rng)


def _interval(data: TableData, column: Column, rules: Iterable[BusinessRule], ctx: Context) -> tuple[Array, Array]:
    """Per row, the interval the rules allow (infinite where no rule applies)."""
    table, n = data.table, data.n
    integer = column.sql_type == "INTEGER"
    step = 1.0 if integer else 0.01
    lo = np.full(n, -np.inf)
    hi = np.full(n, np.inf)
    for rule in rules:
        _, op, right = split(rule.check)
        bound = np.broadcast_to(evaluate(right, table, data.values, ctx, data.nulls), (n,)).astype(float)
        where = _applies(rule, table, data.values, ctx, data.nulls, n) & ~np.isnan(bound)
        if op in (">=", ">"):
            b = bound + (step if op == ">" else 0)
            b = np.ceil(b) if integer else np.ceil(np.round(b * 100, 6)) / 100
            if not integer:
                # The cent nearest the bound may sit an ulp on the wrong side of it as SQLite computes
                # the rule (8.2 * 0.2 + 0.5 is 2.1399999999999997, and 2.14 breaks "<="): step past it.
                b = np.where((b < bound) | ((b == bound) & (op == ">")), b + step, b)
            lo = np.where(where, np.maximum(lo, b), lo)
        else:
            b = bound - (step if op == "<" else 0)
            b = np.floor(b) if integer else np.floor(np.round(b * 100, 6)) / 100
            if not integer:
                b = np.where((b > bound) | ((b == bound) & (op == "<")), b - step, b)
            hi = np.where(where, np.minimum(hi, b), hi)
    return lo, hi


def _bad(data: TableData, column: Column, lo: Array, hi: Array) -> Array:
    values = data.values[column.name].astype(float)
    bad = (values < lo) | (values > hi)
    null = data.nulls.get(column.name)
    return bad & ~null if null is not None else bad


def _feasible(column: Column, lo: Array, hi: Array) -> Array:
    low = np.maximum(lo, column.min if column.min is not None else -np.inf)
    high = np.minimum(hi, column.max if column.max is not None else np.inf)
    return low <= high


def _holds(rule: BusinessRule, table: Table, data: TableData, ctx: Context) -> Array:
    """True where the row keeps the rule (an empty operand or an unmet condition keeps it)."""
    n = data.n
    node = parse(rule.check)
    if not isinstance(node, ast.Compare):
        return np.ones(n, dtype=bool)
    left = np.broadcast_to(evaluate(node.left, table, data.values, ctx, data.nulls), (n,)).astype(float)
    right = np.broadcast_to(evaluate(node.comparators[0], table, data.values, ctx, data.nulls), (n,)).astype(float)
    with np.errstate(invalid="ignore"):
        ok = np.asarray(evaluate(node, table, data.values, ctx, data.nulls)).astype(bool)
    return ~_applies(rule, table, data.values, ctx, data.nulls, n) | np.isnan(left) | np.isnan(right) | ok


def _repoint(
    data: TableData,
    column: Column,
    rules: list[BusinessRule],
    ctx: Context,
    g: np.random.Generator,
    stuck: Array,
    fixed: frozenset[str],
) -> None:
    """Move rows no value can fix to random other parents, keeping a move only where every rule of the
    row and its creation after the parent's still hold and the column's interval becomes feasible."""
    table = data.table
    vias = {r.via for rule in rules for r in operands(split(rule.check)[2]) if r.via is not None}
    for via in sorted(vias):
        fk = table.column(via)
        if fk.unique or via in fixed or fk.references == table.name:
            continue
        parent = ctx.data[str(fk.references)]
        pool = _parents_allowing(data, column, rules, ctx, via, parent.n)
        if not len(pool):
            continue
        for _ in range(12):
            rows = np.flatnonzero(stuck)
            if not len(rows):
                return
            before = data.values[via][rows].copy()
            data.values[via][rows] = pool[g.integers(0, len(pool), len(rows))]
            lo, hi = _interval(data, column, rules, ctx)
            keep = _feasible(column, lo, hi)[rows]
            for rule in table.rules:
                if split(rule.check)[0] != column.name:
                    keep &= _holds(rule, table, data, ctx)[rows]
            if data.anchor is not None and parent.anchor is not None:
                keep &= data.anchor[rows] >= parent.anchor[data.values[via][rows] - 1]
            data.values[via][rows] = np.where(keep, data.values[via][rows], before)
            stuck[rows[keep]] = False


def _parents_allowing(
    data: TableData, column: Column, rules: list[BusinessRule], ctx: Context, via: str, m: int
) -> Array:
    """Ids of the parents whose own values leave the column a value in range (all, when a rule also reads
    the row's own fields and so cannot be judged per parent)."""
    ids = np.arange(1, m + 1)
    ok = np.ones(m, dtype=bool)
    probe = {via: ids}
    for rule in rules:
        _, op, right = split(rule.check)
        refs = list(operands(right))
        if rule.when or any(r.via != via for r in refs):
            continue
        bound = np.broadcast_to(evaluate(right, data.table, probe, ctx, None), (m,)).astype(float)
        if op in ("<=", "<") and column.min is not None:
            ok &= ~(bound < column.min)
        if op in (">=", ">") and column.max is not None:
            ok &= ~(bound > column.max)
    return ids[ok]


def _enforce_one(data: TableData, column: Column, lo: Array, hi: Array, g: np.random.Generator) -> None:
    n = data.n
    integer = column.sql_type == "INTEGER"
    values = data.values[column.name].astype(float)
    bad = _bad(data, column, lo, hi)
    if not bad.any():
        return
    low = np.maximum(lo, column.min if column.min is not None else -np.inf)
    high = np.minimum(hi, column.max if column.max is not None else np.inf)
    # An open side of the interval gets a plausible edge: half or one and a half times the other.
    low = np.where(np.isinf(low), np.where(high > 0, high / 2, high - 100), low)
    high = np.where(np.isinf(high), np.where(low > 0, low * 1.5, low + 100), high)
    possible = low <= high
    u = g.random(n)
    drawn = low + (high - low) * u
    drawn = np.floor(drawn) if integer else np.floor(drawn * 100) / 100
    drawn = np.clip(drawn, low, high)
    fixed = np.where(bad & possible, drawn, values)
    impossible = bad & ~possible
    if impossible.any() and column.nullable:
        mask = data.nulls.get(column.name, np.zeros(n, dtype=bool))
        data.nulls[column.name] = mask | impossible
    data.values[column.name] = fixed.astype(np.int64) if integer else np.round(fixed, 2)
