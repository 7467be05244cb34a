"""table_aggregate: simple (ungrouped) questions recomputed from the rendered table."""

from __future__ import annotations

import re
from fractions import Fraction

from generators.dataset import create_dataset
from generators.families.table_aggregate import gold_text


def _rows(question: str) -> list[dict[str, str]]:
    lines = [line for line in question.splitlines() if line.startswith("|")]
    headers = [h.strip() for h in lines[0].strip("|").split("|")]
    return [dict(zip(headers, (v.strip() for v in line.strip("|").split("|")))) for line in lines[2:]]


def _holds(row: dict[str, str], clause: str) -> bool:
    column, op, value = re.fullmatch(r"(\w+) (is greater than|is less than|is) (\S+)", clause).groups()
    if op == "is":
        return row[column] == value
    return int(row[column]) > int(value) if op == "is greater than" else int(row[column]) < int(value)


def test_rounding() -> None:
    assert gold_text(Fraction(136, 3), "avg") == "45.33"
    assert gold_text(Fraction(91, 2), "avg") == "45.5"
    assert gold_text(Fraction(1, 200), "avg") == "0.01"
    assert gold_text(Fraction(7), "sum") == "7"


def test_simple_questions_recomputed() -> None:
    checked = 0
    for level in range(4):
        for item in create_dataset("table_aggregate", level=level, seed=17, size=30):
            rows = _rows(item["question"])
            text = item["question"].split("\n\n")[2].splitlines()[0]
            count = re.fullmatch(r"How many \w+ are (?:there whose (.+)|listed)\?", text)
            other = re.fullmatch(
                r"What is the (total|average|minimum|maximum) (\w+) (?:of the \w+ whose (.+)|over all \w+)\?", text
            )
            if count:
                where = count.group(1)
                kept = [r for r in rows if all(_holds(r, c) for c in (where.split(" and ") if where else []))]
                value = Fraction(len(kept))
            else:
                agg, column, where = other.groups()
                kept = [
                    int(r[column]) for r in rows if all(_holds(r, c) for c in (where.split(" and ") if where else []))
                ]
                value = {
                    "total": lambda v: Fraction(sum(v)),
                    "average": lambda v: Fraction(sum(v), len(v)),
                    "minimum": lambda v: Fraction(min(v)),
                    "maximum": lambda v: Fraction(max(v)),
                }[agg](kept)
            assert gold_text(value, "avg") == item["answer"], text
            checked += 1
    assert checked > 50
