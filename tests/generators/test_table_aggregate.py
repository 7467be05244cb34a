"""table_aggregate: questions recomputed from the rendered table; counting answers need witnesses."""

from __future__ import annotations

import re
import time
from fractions import Fraction

from generators.dataset import create_dataset, score
from generators.families._tables import parse_witness
from generators.families.algorithmic.table_aggregate import gold_text


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
            count = re.fullmatch(r"How many \w+ are there whose (.+), and which are they\?", text)
            other = re.fullmatch(
                r"What is the (total|average|minimum|maximum) (\w+) (?:of the \w+ whose (.+)|over all \w+)\?", text
            )
            if count:
                where = count.group(1)
                kept = [r for r in rows if all(_holds(r, c) for c in where.split(" and "))]
                key = next(iter(rows[0]))
                assert parse_witness(item["answer"]) == parse_witness(
                    f"{len(kept)}: " + ", ".join(r[key] for r in kept)
                ), text
                checked += 1
                continue
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


def _witness_items(levels: range = range(6), size: int = 40) -> list[dict]:
    return [
        item
        for level in levels
        for item in create_dataset("table_aggregate", level=level, seed=23, size=size)
        if item["metadata"]["witness"]
    ]


def test_group_thresholds_recomputed() -> None:
    checked = 0
    for item in _witness_items(range(4, 6), 60):
        rows = _rows(item["question"])
        text = item["question"].split("\n\n")[2].splitlines()[0]
        m = re.fullmatch(
            r"(?:Consider only the \w+ whose (.+)\. Group them|Group the \w+) by (\w+) and compute the "
            r"(number of rows|total \w+|average \w+) of each group\. Which groups have a value greater than "
            r"(\d+), and how many are there\?",
            text,
        )
        if m is None:
            continue
        where, group, what, limit = m.groups()
        groups: dict[str, list[int]] = {}
        for r in rows:
            if all(_holds(r, c) for c in (where.split(" and ") if where else [])):
                column = what.split()[-1]
                groups.setdefault(r[group], []).append(1 if what == "number of rows" else int(r[column]))
        value = {
            "number": lambda v: Fraction(len(v)),
            "total": lambda v: Fraction(sum(v)),
            "average": lambda v: Fraction(sum(v), len(v)),
        }
        passing = [g for g, v in groups.items() if value[what.split()[0]](v) > int(limit)]
        assert parse_witness(item["answer"]) == (len(passing), frozenset(p.casefold() for p in passing)), text
        checked += 1
    assert checked > 10


def test_counting_questions_state_the_witness_form() -> None:
    items = _witness_items()
    assert len(items) > 30
    for item in items:
        assert "Answer with the count, a colon, then their" in item["question"]
        assert "`N: first, second, ...`" in item["question"]


def test_witness_exploits_score_zero() -> None:
    for item in _witness_items():
        gold = item["answer"]
        count, _, tail = gold.partition(": ")
        names = tail.split(", ")
        assert score("table_aggregate", gold, item) == 1.0
        # Any order and letter case are accepted, as the question allows.
        assert score("table_aggregate", f"{count}: " + ", ".join(reversed(names)).upper(), item) == 1.0
        assert score("table_aggregate", f"<answer>{gold}</answer>", item) == 1.0
        other = "Zzyzx"
        wrong = [
            count,  # the count alone
            tail,  # the names alone
            f"{int(count) + 1}: {tail}",  # wrong count, right names
            f"{count}: " + ", ".join([*names[:-1], other]),  # one name swapped
            f"{count}: {tail}, {other}",  # an extra name
            f"{int(count) + 1}: {tail}, {other}",  # an extra name with a matching count
            f"{count}: {tail}, {names[0]}",  # a repeated name
            f"{gold}\n{int(count) + 1}: {tail}, {other}",  # two answers, the last one wrong
            f"{gold}, {int(count) + 1}: {tail}, {other}",  # two answers on one line
            f"{gold}; {count}: {tail}",
            f"{count} - {tail}",  # not the stated form
            "1",
            "2",
            "3",
        ]
        if len(names) > 1:
            wrong.append(f"{int(count) - 1}: " + ", ".join(names[:-1]))  # one name missing
        for answer in wrong:
            assert score("table_aggregate", answer, item) == 0.0, (answer, gold)


def test_witness_scorer_is_fast_and_total_on_hostile_input() -> None:
    item = _witness_items(range(1, 2))[0]
    start = time.perf_counter()
    names = item["answer"].partition(": ")[2]
    for hostile in (
        "9" * 5000 + ": " + names,
        "1: " + "a, " * 60_000,
        "1: " + "[" * 50_000,
        item["answer"] + ", Zz" * 40_000,
        ": " * 1000,
        "-1: " + names,
        "1e3: " + names,
    ):
        assert score("table_aggregate", hostile, item) == 0.0
    assert time.perf_counter() - start < 1.0


def test_min_max_target_wide_columns() -> None:
    for level in range(6):
        for item in create_dataset("table_aggregate", level=level, seed=5, size=40):
            if item["metadata"]["aggregate"] in ("min", "max"):
                assert not re.search(r"(?:minimum|maximum) (?:rating|year)\b", item["question"])
