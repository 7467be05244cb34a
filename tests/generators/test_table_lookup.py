"""table_lookup: re-reading the rendered table and question selects exactly the gold row."""

from __future__ import annotations

import re

from generators.dataset import create_dataset


def _parse_table(question: str) -> list[dict[str, str]]:
    lines = [line for line in question.splitlines() if line.startswith("|")]
    headers = [h.strip() for h in lines[0].strip("|").split("|")]
    return [dict(zip(headers, (v.strip() for v in line.strip("|").split("|")))) for line in lines[2:]]


def _holds(row: dict[str, str], clause: str) -> bool:
    column, op, value = re.fullmatch(r"(\w+) (is greater than|is less than|is) (\S+)", clause).groups()
    if op == "is":
        return row[column] == value
    return int(row[column]) > int(value) if op == "is greater than" else int(row[column]) < int(value)


def test_questions_select_the_gold_row() -> None:
    for level in range(6):
        for item in create_dataset("table_lookup", level=level, seed=16, size=30):
            rows = _parse_table(item["question"])
            text = item["question"].split("\n\n")[2].splitlines()[0]
            key = re.fullmatch(r"What is the (\w+) in the row where (\w+) is (\S+)\?", text)
            single = re.fullmatch(r"What is the (\w+) of the \w+ whose (.+)\?", text)
            best = re.fullmatch(
                r"What is the (\w+) of the \w+ with the (highest|lowest) (\w+)(?: among those whose (.+))?\?", text
            )
            if key:
                asked, column, value = key.groups()
                matching = [r for r in rows if r[column] == value]
            elif best:
                asked, word, ranked, where = best.groups()
                kept = [r for r in rows if all(_holds(r, c) for c in (where.split(" and ") if where else []))]
                extreme = (max if word == "highest" else min)(int(r[ranked]) for r in kept)
                matching = [r for r in kept if int(r[ranked]) == extreme]
            else:
                asked, where = single.groups()
                matching = [r for r in rows if all(_holds(r, c) for c in where.split(" and "))]
            assert len(matching) == 1, text
            assert matching[0][asked] == item["answer"]
