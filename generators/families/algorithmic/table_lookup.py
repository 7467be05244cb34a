"""Look up one value in a small markdown table from a row filter (a one-row SELECT).

Tests reading structured data the way a SQL ``SELECT col FROM t WHERE ...`` does. Level 0
is a key lookup in a short table; later levels filter on non-key columns, combine several
conditions (equality and numeric comparisons), grow the table and finally ask for the row
with the largest/smallest value among the filtered ones (``ORDER BY ... LIMIT 1``). Every
item is checked so that exactly one row satisfies the question, making the answer unique.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._tables import (
    SCHEMAS,
    Column,
    Schema,
    make_rows,
    render_markdown,
)

NAME = "table_lookup"

Row = dict[str, str | int]
Condition = tuple[str, str, str | int]
"""(column, operator, value) with operator one of =, >, <."""


@dataclass(frozen=True)
class Config(Knobs):
    min_rows: int = 4
    max_rows: int = 5
    n_columns: int = 3
    n_conditions: int = 1
    key_lookup: bool = True
    """Filter on the key column (a direct lookup) instead of on other columns."""
    comparisons: bool = False
    """Allow > and < conditions on numeric columns, not only equality."""
    superlative_probability: float = 0.0
    """Chance of asking for the row with the max/min of a column among the filtered rows."""
    n_categories: int = 3

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_rows": (2, 40),
        "max_rows": (2, 40),
        "n_columns": (3, 6),
        "n_conditions": (1, 3),
        "superlative_probability": (0.0, 1.0),
        "n_categories": (2, 7),
    }

    def check(self) -> None:
        if self.min_rows > self.max_rows:
            raise ValueError("table_lookup: min_rows must be <= max_rows")
        if self.n_conditions > self.n_columns - 2:
            raise ValueError("table_lookup: n_conditions must leave an asked column and a spare column")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_rows": 4, "max_rows": 5, "n_columns": 3, "n_conditions": 1, "key_lookup": True},
    {"min_rows": 6, "max_rows": 8, "n_columns": 4, "n_conditions": 1, "key_lookup": False, "n_categories": 4},
    {"min_rows": 8, "max_rows": 10, "n_columns": 5, "n_conditions": 2, "key_lookup": False, "comparisons": True},
    {
        "min_rows": 10,
        "max_rows": 14,
        "n_columns": 5,
        "n_conditions": 2,
        "key_lookup": False,
        "comparisons": True,
        "superlative_probability": 0.4,
    },
    {
        "min_rows": 14,
        "max_rows": 20,
        "n_columns": 6,
        "n_conditions": 2,
        "key_lookup": False,
        "comparisons": True,
        "superlative_probability": 0.6,
    },
    {
        "min_rows": 20,
        "max_rows": 30,
        "n_columns": 6,
        "n_conditions": 3,
        "key_lookup": False,
        "comparisons": True,
        "superlative_probability": 0.7,
        "n_categories": 4,
    },
)

MAX_TRIES = 200


def holds(row: Row, condition: Condition) -> bool:
    column, op, value = condition
    cell = row[column]
    if op == "=":
        return cell == value
    if op == ">":
        return isinstance(cell, int) and isinstance(value, int) and cell > value
    return isinstance(cell, int) and isinstance(value, int) and cell < value


def describe(condition: Condition) -> str:
    column, op, value = condition
    words = {"=": "is", ">": "is greater than", "<": "is less than"}[op]
    return f"{column} {words} {value}"


def _condition_for(row: Row, column: Column, rows: list[Row], rng: random.Random, comparisons: bool) -> Condition:
    """A condition the given row satisfies; comparisons use a threshold strictly between values."""
    value = row[column.name]
    if column.kind == "int" and comparisons and rng.random() < 0.7:
        others = sorted({int(r[column.name]) for r in rows})
        if rng.random() < 0.5:
            lower = [v for v in others if v < int(value)]
            if lower:
                return column.name, ">", rng.choice(lower)
        else:
            higher = [v for v in others if v > int(value)]
            if higher:
                return column.name, "<", rng.choice(higher)
    return column.name, "=", value


def _pick_columns(schema: Schema, n_columns: int, rng: random.Random) -> list[Column]:
    others = list(schema.columns[1:])
    chosen = set(rng.sample(range(len(others)), n_columns - 1))
    return [schema.key] + [c for i, c in enumerate(others) if i in chosen]


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(MAX_TRIES):
        schema = rng.choice(SCHEMAS)
        columns = _pick_columns(schema, config.n_columns, rng)
        headers = [c.name for c in columns]
        rows = make_rows(schema, rng.randint(config.min_rows, config.max_rows), rng, config.n_categories)
        superlative = rng.random() < config.superlative_probability
        if superlative:
            found = _superlative(config, schema, columns, rows, rng)
        else:
            found = _single(config, schema, columns, rows, rng)
        if found is not None:
            question_text, answer = found
            break
    else:
        raise ValueError("table_lookup: could not build a question with a unique answer")
    question = (
        f"Table: {schema.table}\n\n{render_markdown(headers, rows)}\n\n{question_text}\n"
        "Answer with the value only, exactly as written in the table."
    )
    return Problem(question=question, answer=str(answer), extra={"table": schema.table})


def _single(
    config: Config, schema: Schema, columns: list[Column], rows: list[Row], rng: random.Random
) -> tuple[str, str | int] | None:
    target = rng.choice(rows)
    if config.key_lookup:
        asked = rng.choice(columns[1:])
        key = schema.key.name
        return f"What is the {asked.name} in the row where {key} is {target[key]}?", target[asked.name]
    asked = rng.choice(columns)
    pool = [c for c in columns[1:] if c is not asked]
    filters = rng.sample(pool, config.n_conditions)
    conditions = [_condition_for(target, c, rows, rng, config.comparisons) for c in filters]
    matching = [r for r in rows if all(holds(r, cond) for cond in conditions)]
    if len(matching) != 1:
        return None
    where = " and ".join(describe(c) for c in conditions)
    return f"What is the {asked.name} of the {schema.entity} whose {where}?", target[asked.name]


def _superlative(
    config: Config, schema: Schema, columns: list[Column], rows: list[Row], rng: random.Random
) -> tuple[str, str | int] | None:
    numeric = [c for c in columns[1:] if c.kind == "int"]
    if not numeric:
        return None
    ranked = rng.choice(numeric)
    asked = rng.choice([c for c in columns if c is not ranked])
    pool = [c for c in columns[1:] if c is not ranked and c is not asked]
    n_filters = min(len(pool), max(0, config.n_conditions - 1))
    anchor = rng.choice(rows)
    conditions = [_condition_for(anchor, c, rows, rng, config.comparisons) for c in rng.sample(pool, n_filters)]
    matching = [r for r in rows if all(holds(r, cond) for cond in conditions)]
    if len(matching) < 3:
        return None
    highest = rng.random() < 0.5
    best = max(int(r[ranked.name]) for r in matching) if highest else min(int(r[ranked.name]) for r in matching)
    winners = [r for r in matching if r[ranked.name] == best]
    if len(winners) != 1:
        return None
    where = f" among those whose {' and '.join(describe(c) for c in conditions)}" if conditions else ""
    word = "highest" if highest else "lowest"
    text = f"What is the {asked.name} of the {schema.entity} with the {word} {ranked.name}{where}?"
    return text, winners[0][asked.name]


FAMILY = Family(
    name=NAME,
    description="Read one value from a markdown table given row filters (equality, comparisons, max/min).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    notes="Every question is checked to select exactly one row. Tables use integer values only.",
)
