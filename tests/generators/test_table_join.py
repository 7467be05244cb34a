"""table_join: lookups, counts and sums recomputed by joining the rendered tables."""

from __future__ import annotations

import re

from generators.dataset import create_dataset


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
                r"(?:the (\w+) department|a department located in (\w+)|a department on floor (\d+))\?",
                text,
            ):
                name, city, floor = m.groups()
                col, val = ("department", name) if name else ("city", city) if city else ("floor", floor)
                expected = str(sum(dept[e["dept_id"]][col] == val for e in t["employees"]))
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
