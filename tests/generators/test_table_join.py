"""table_join: lookups, counts and sums recomputed by joining the rendered tables; counts need witnesses."""

from __future__ import annotations

import re

from generators.dataset import create_dataset, score
from generators.families._tables import parse_witness


def _tables(question: str) -> dict[str, list[dict[str, str]]]:
    out = {}
    for block in re.finditer(r"Table: (\w+)\n\n((?:\|.*\n?)+)", question):
        lines = block.group(2).strip().splitlines()
        headers = [h.strip() for h in lines[0].strip("|").split("|")]
        out[block.group(1)] = [
            dict(zip(headers, (v.strip() for v in line.strip("|").split("|")))) for line in lines[2:]
        ]
    return out


def test_join_answers() -> None:
    checked = 0
    for level in range(6):
        for item in create_dataset("table_join", level=level, seed=18, size=30):
            t = _tables(item["question"])
            dept = {d["dept_id"]: d for d in t["departments"]}
            emp = {e["emp_id"]: e for e in t["employees"]}
            by_name = {e["name"]: e for e in t["employees"]}
            text = item["question"].strip().splitlines()[-2]
            if m := re.fullmatch(r"What is the (\w+) of the department that (\w+) works in\?", text):
                expected = dept[by_name[m.group(2)]["dept_id"]][m.group(1)]
            elif m := re.fullmatch(
                r"What is the (\w+) of the department of the employee who leads project (\w+)\?", text
            ):
                lead = next(p["lead_id"] for p in t["projects"] if p["project"] == m.group(2))
                expected = dept[emp[lead]["dept_id"]][m.group(1)]
            elif m := re.fullmatch(
                r"How many employees work in "
                r"(?:the (\w+) department|a department located in (\w+)|a department on floor (\d+)), "
                r"and who are they\?",
                text,
            ):
                name, city, floor = m.groups()
                col, val = ("department", name) if name else ("city", city) if city else ("floor", floor)
                members = [e["name"] for e in t["employees"] if dept[e["dept_id"]][col] == val]
                assert parse_witness(item["answer"]) == parse_witness(f"{len(members)}: " + ", ".join(members))
                checked += 1
                continue
            elif m := re.fullmatch(
                r"What is the total budget of the projects led by employees of the (\w+) department\?", text
            ):
                expected = str(
                    sum(
                        int(p["budget"])
                        for p in t["projects"]
                        if dept[emp[p["lead_id"]]["dept_id"]]["department"] == m.group(1)
                    )
                )
            else:
                continue
            assert item["answer"] == expected, text
            checked += 1
    assert checked > 40


def _count_items() -> list[dict]:
    return [
        item
        for level in range(1, 4)
        for item in create_dataset("table_join", level=level, seed=31, size=60)
        if item["metadata"]["kind"] == "count"
    ]


def test_count_questions_state_the_witness_form() -> None:
    items = _count_items()
    assert len(items) > 30
    for item in items:
        assert "Answer with the count, a colon, then their names separated by commas" in item["question"]
        assert "`N: first, second, ...`" in item["question"]


def test_count_witness_exploits_score_zero() -> None:
    for item in _count_items():
        gold = item["answer"]
        count, _, tail = gold.partition(": ")
        names = tail.split(", ")
        assert score("table_join", gold, item) == 1.0
        assert score("table_join", f"{count}: " + ", ".join(reversed(names)).lower(), item) == 1.0
        t = _tables(item["question"])
        outsider = next((e["name"] for e in t["employees"] if e["name"] not in names), "Zzyzx")
        wrong = [
            count,  # the head count alone, the answer the old form asked for
            tail,  # the names alone
            f"{int(count) + 1}: {tail}",
            f"{count}: " + ", ".join([*names[:-1], outsider]),  # an employee of another department
            f"{int(count) + 1}: {tail}, {outsider}",
            f"{count}: {tail}, {names[0]}",
            f"{gold}, {int(count) + 1}: {tail}, {outsider}",
            f"{gold}\n{int(count) + 1}: {tail}, {outsider}",
            ", ".join(e["name"] for e in t["employees"]),  # every employee
            f"{len(t['employees'])}: " + ", ".join(e["name"] for e in t["employees"]),
            "1",
            "2",
            "3",
        ]
        if len(names) > 1:
            wrong.append(f"{int(count) - 1}: " + ", ".join(names[:-1]))
        for answer in wrong:
            if parse_witness(answer) == parse_witness(gold):
                continue  # the whole table is the answer when everyone matches
            assert score("table_join", answer, item) == 0.0, (answer, gold)


def test_non_count_answers_still_compare_as_text() -> None:
    for item in create_dataset("table_join", level=0, seed=3, size=20):
        assert score("table_join", item["answer"].upper(), item) == 1.0
        assert score("table_join", item["answer"] + "x", item) == 0.0
