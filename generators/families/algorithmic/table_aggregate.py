"""Aggregate a column of a small markdown table: COUNT/SUM/AVG/MIN/MAX with filters and groups.

Tests the arithmetic half of SQL: selecting the rows a ``WHERE`` keeps, then aggregating
them without dropping or double-counting any. Harder levels have more rows, add conditions
(equality and numeric comparisons), then group rows (``GROUP BY``) and ask for the largest or
smallest group aggregate or for the groups that pass a ``HAVING`` threshold. Averages are
asked rounded to two decimals and the gold value is rounded the same way.

Counts of a few rows cluster on 1, 2 or 3, so a constant answer would earn reward on them.
Counting questions therefore ask for a witness: the count, a colon and the matching rows'
keys (or the passing groups), ``3: Ann, Bo, Cy``, and the scorer checks every name. A COUNT
always has a filter (the whole table's count is just its length), the extreme group COUNT
is not asked (the smallest group nearly always has one or two rows), and MIN/MAX target only
wide columns (the lowest 1-5 rating is nearly always 1).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._tables import (
    SCHEMAS,
    Column,
    make_rows,
    render_markdown,
    witness_form,
    witness_or,
    witness_text,
)

NAME = "table_aggregate"

Row = dict[str, str | int]
Condition = tuple[str, str, str | int]
AGGREGATES = ("count", "sum", "avg", "min", "max")


@dataclass(frozen=True)
class Config(Knobs):
    min_rows: int = 4
    max_rows: int = 6
    n_conditions: int = 0
    comparisons: bool = False
    allow_avg: bool = False
    group_probability: float = 0.0
    """Chance of a GROUP BY question (max/min over groups, or a HAVING count)."""
    n_categories: int = 3

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_rows": (2, 40),
        "max_rows": (2, 40),
        "n_conditions": (0, 3),
        "group_probability": (0.0, 1.0),
        "n_categories": (2, 7),
    }

    def check(self) -> None:
        if self.min_rows > self.max_rows:
            raise ValueError("table_aggregate: min_rows must be <= max_rows")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_rows": 4, "max_rows": 6, "n_conditions": 0},
    {"min_rows": 6, "max_rows": 8, "n_conditions": 1},
    {"min_rows": 8, "max_rows": 12, "n_conditions": 1, "comparisons": True, "allow_avg": True},
    {"min_rows": 10, "max_rows": 14, "n_conditions": 2, "comparisons": True, "allow_avg": True},
    {
        "min_rows": 12,
        "max_rows": 18,
        "n_conditions": 1,
        "comparisons": True,
        "allow_avg": True,
        "group_probability": 0.6,
        "n_categories": 4,
    },
    {
        "min_rows": 16,
        "max_rows": 24,
        "n_conditions": 2,
        "comparisons": True,
        "allow_avg": True,
        "group_probability": 0.7,
        "n_categories": 4,
    },
)

MAX_TRIES = 200
WIDE_SPREAD = 30
"""MIN/MAX only target columns spanning at least this many values: the extreme of a narrow
column (a 1-5 rating) is nearly always its bound, a constant that would earn reward."""


def holds(row: Row, condition: Condition) -> bool:
    column, op, value = condition
    cell = row[column]
    if op == "=":
        return cell == value
    if op == ">":
        return int(cell) > int(value)
    return int(cell) < int(value)


def describe(condition: Condition) -> str:
    column, op, value = condition
    return f"{column} {({'=': 'is', '>': 'is greater than', '<': 'is less than'})[op]} {value}"


def aggregate(name: str, values: list[int]) -> Fraction:
    """Exact aggregate of a non-empty list (count may be of an empty list)."""
    if name == "count":
        return Fraction(len(values))
    if name == "sum":
        return Fraction(sum(values))
    if name == "avg":
        return Fraction(sum(values), len(values))
    return Fraction(max(values) if name == "max" else min(values))


def gold_text(value: Fraction, name: str) -> str:
    """Integers as digits; averages rounded half-up to two decimals, trailing zeros cut."""
    if value.denominator == 1:
        return str(value.numerator)
    sign, magnitude = ("-", -value) if value < 0 else ("", value)
    cents = int((magnitude * 100 + Fraction(1, 2)) // 1)
    return f"{sign}{cents // 100}.{cents % 100:02d}".rstrip("0").rstrip(".")


def _random_condition(
    columns: tuple[Column, ...], rows: list[Row], rng: random.Random, comparisons: bool, exclude: set[str]
) -> Condition | None:
    pool = [c for c in columns[1:] if c.name not in exclude and (c.kind == "cat" or comparisons)]
    if not pool:
        return None
    column = rng.choice(pool)
    values = (
        sorted({r[column.name] for r in rows}, key=str)
        if column.kind == "cat"
        else sorted({int(r[column.name]) for r in rows})
    )
    if column.kind == "cat":
        return column.name, "=", rng.choice(values)
    threshold = rng.choice(values[1:-1] or values)
    return column.name, rng.choice((">", "<")), threshold


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(MAX_TRIES):
        schema = rng.choice(SCHEMAS)
        rows = make_rows(schema, rng.randint(config.min_rows, config.max_rows), rng, config.n_categories)
        numeric = [c for c in schema.columns if c.kind == "int"]
        categorical = [c for c in schema.columns if c.kind == "cat"]
        grouped = bool(categorical) and rng.random() < config.group_probability
        group_by = rng.choice(categorical) if grouped else None
        names = [a for a in AGGREGATES if config.allow_avg or a != "avg"]
        if group_by is not None:
            # The largest group MAX is just the overall MAX: group on additive aggregates.
            names = [a for a in names if a in ("count", "sum", "avg")]
        agg = rng.choice(names)
        target = rng.choice([c for c in numeric if agg not in ("min", "max") or c.high - c.low >= WIDE_SPREAD])
        exclude = {target.name} | ({group_by.name} if group_by else set())
        conditions: list[Condition] = []
        # A COUNT of the whole table is just its length: counts always filter.
        n_conditions = max(config.n_conditions, 1 if agg == "count" and group_by is None else 0)
        for _ in range(n_conditions):
            cond = _random_condition(schema.columns, rows, rng, config.comparisons, exclude)
            if cond is None:
                break
            conditions.append(cond)
            exclude.add(cond[0])
        kept = [r for r in rows if all(holds(r, c) for c in conditions)]
        cond_text = " and ".join(describe(c) for c in conditions)
        scope = (
            f"Consider only the {schema.table} whose {cond_text}. Group them"
            if conditions
            else (f"Group the {schema.table}")
        )
        answer_form = "Answer with a single number."
        if group_by is None:
            if len(kept) < (1 if agg == "count" else 2):
                continue
            if agg == "count":
                answer = witness_text([str(r[schema.key.name]) for r in kept])
                answer_form = witness_form(f"{schema.key.name} values")
                question_text = f"How many {schema.table} are there whose {cond_text}, and which are they?"
            else:
                answer = gold_text(aggregate(agg, [int(r[target.name]) for r in kept]), agg)
                question_text = _simple_question(agg, target.name, schema.table, cond_text)
        else:
            groups: dict[str, list[int]] = {}
            for r in kept:
                groups.setdefault(str(r[group_by.name]), []).append(int(r[target.name]))
            if len(groups) < 2:
                continue
            per_group = {name: aggregate(agg, v) for name, v in groups.items()}
            intro = f"{scope} by {group_by.name} and compute the {_agg_phrase(agg, target.name)} of each group."
            # The smallest group COUNT is nearly always 1 or 2: group counts are only asked with witnesses.
            if agg != "count" and rng.random() < 0.5:
                highest = rng.random() < 0.5
                value = (max if highest else min)(per_group.values())
                answer = gold_text(value, agg)
                question_text = f"{intro} What is the {'largest' if highest else 'smallest'} of these group values?"
            else:
                distinct = sorted(set(per_group.values()))
                if len(distinct) < 2:
                    continue
                threshold = distinct[rng.randrange(len(distinct) - 1)]
                limit = int(threshold) if threshold.denominator == 1 else int(threshold // 1)
                answer = witness_text([name for name, g in per_group.items() if g > limit])
                answer_form = witness_form(f"{group_by.name} values")
                question_text = f"{intro} Which groups have a value greater than {limit}, and how many are there?"
        break
    else:
        raise ValueError("table_aggregate: could not build a question")
    rounding = " If the result is not a whole number, round it to 2 decimal places." if agg == "avg" else ""
    witness = ":" in answer
    question = (
        f"Table: {schema.table}\n\n{render_markdown([c.name for c in schema.columns], rows)}\n\n"
        f"{question_text}\n{answer_form}{'' if witness else rounding}"
    )
    return Problem(
        question=question,
        answer=answer,
        extra={"table": schema.table, "aggregate": agg, "grouped": group_by is not None, "witness": witness},
    )


score = witness_or("number")
"""Counting items check the count and every listed name; the rest compare as numbers."""


def _agg_phrase(agg: str, column: str) -> str:
    return {
        "count": "number of rows",
        "sum": f"total {column}",
        "avg": f"average {column}",
        "min": f"minimum {column}",
        "max": f"maximum {column}",
    }[agg]


def _simple_question(agg: str, column: str, table: str, cond_text: str) -> str:
    if agg == "count":
        return f"How many {table} are there whose {cond_text}?" if cond_text else f"How many {table} are listed?"
    if cond_text:
        return f"What is the {_agg_phrase(agg, column)} of the {table} whose {cond_text}?"
    return f"What is the {_agg_phrase(agg, column)} over all {table}?"


FAMILY = Family(
    name=NAME,
    description="COUNT/SUM/AVG/MIN/MAX over a markdown table with WHERE filters and GROUP BY questions.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="number",
    score=score,
    notes="Averages are rounded half-up to 2 decimals in the gold answer (the question says so). Counting "
    "questions (COUNT, HAVING) are answered as `N: name, name, ...` and the names are checked.",
)
