"""Answer a question that needs a join across two (or three) small markdown tables.

Tests following foreign keys the way a SQL ``JOIN`` does: ``employees.dept_id`` points at
``departments.dept_id`` (and at the top levels ``projects.lead_id`` points at
``employees.emp_id``). Ids are random numbers, not row positions, so the link must really be
looked up. Levels grow the tables and move from a single hop lookup to filters on the joined
table, aggregates over the join, a superlative over the join, and two-hop questions across
three tables. Questions are rejected unless their answer is unique.

Head counts of a few employees cluster on 2 or 3, so a constant answer would earn reward on
them: a counting question asks for a witness, the count, a colon and the employees' names
(``2: Ann, Bo``), and the scorer checks every name. Counts are only asked of non-empty groups.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem
from generators.families._tables import (
    CITIES,
    DEPARTMENTS,
    FIRST_NAMES,
    render_markdown,
    witness_form,
    witness_or,
    witness_text,
)

NAME = "table_join"

Row = dict[str, str | int]
KINDS = ("lookup", "count", "sum", "superlative", "two_hop", "two_hop_sum")
PROJECTS = (
    "Apollo",
    "Beacon",
    "Cobalt",
    "Delta",
    "Ember",
    "Falcon",
    "Granite",
    "Harbor",
    "Iris",
    "Juniper",
    "Kestrel",
    "Lumen",
    "Meridian",
    "Nimbus",
    "Orion",
    "Pioneer",
    "Quartz",
    "Raven",
    "Summit",
    "Tundra",
)


@dataclass(frozen=True)
class Config(Knobs):
    min_employees: int = 4
    max_employees: int = 5
    n_departments: int = 3
    n_projects: int = 0
    """Rows of the third table (projects); 0 means two tables only."""
    question_tier: int = 1
    """1 lookup; 2 adds count; 3 adds sum and superlative; 4 adds two-hop questions."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {
        "min_employees": (2, 40),
        "max_employees": (2, 40),
        "n_departments": (2, len(DEPARTMENTS)),
        "n_projects": (0, len(PROJECTS)),
        "question_tier": (1, 4),
    }

    def check(self) -> None:
        if self.min_employees > self.max_employees:
            raise ValueError("table_join: min_employees must be <= max_employees")
        if self.question_tier == 4 and self.n_projects < 2:
            raise ValueError("table_join: two-hop questions (tier 4) need n_projects >= 2")


LEVELS: tuple[dict[str, object], ...] = (
    {"min_employees": 4, "max_employees": 5, "n_departments": 3, "question_tier": 1},
    {"min_employees": 6, "max_employees": 8, "n_departments": 3, "question_tier": 2},
    {"min_employees": 8, "max_employees": 10, "n_departments": 4, "question_tier": 3},
    {"min_employees": 10, "max_employees": 14, "n_departments": 5, "question_tier": 3},
    {"min_employees": 12, "max_employees": 16, "n_departments": 5, "n_projects": 5, "question_tier": 4},
    {"min_employees": 16, "max_employees": 22, "n_departments": 6, "n_projects": 8, "question_tier": 4},
)

TIER_KINDS = {
    1: ("lookup",),
    2: ("lookup", "count"),
    3: ("count", "sum", "superlative"),
    4: ("sum", "superlative", "two_hop", "two_hop_sum"),
}
MAX_TRIES = 100


def _tables(config: Config, rng: random.Random) -> tuple[list[Row], list[Row], list[Row]]:
    n_emp = rng.randint(config.min_employees, config.max_employees)
    dept_ids = rng.sample(range(10, 100), config.n_departments)
    names = rng.sample(DEPARTMENTS, config.n_departments)
    # Fewer cities than departments so a city can host several departments.
    cities = rng.sample(CITIES, max(2, config.n_departments - 1))
    departments: list[Row] = [
        {"dept_id": d, "department": n, "city": rng.choice(cities), "floor": rng.randint(1, 9)}
        for d, n in zip(dept_ids, names)
    ]
    emp_ids = rng.sample(range(100, 1000), n_emp)
    employees: list[Row] = [
        {"emp_id": e, "name": n, "dept_id": rng.choice(dept_ids), "salary": rng.randrange(3000, 9001, 50)}
        for e, n in zip(emp_ids, rng.sample(FIRST_NAMES, n_emp))
    ]
    projects: list[Row] = [
        {"project": p, "lead_id": rng.choice(emp_ids), "budget": rng.randrange(10, 501, 5)}
        for p in rng.sample(PROJECTS, config.n_projects)
    ]
    return employees, departments, projects


def _question(
    kind: str, employees: list[Row], departments: list[Row], projects: list[Row], rng: random.Random
) -> tuple[str, str] | None:
    dept = {d["dept_id"]: d for d in departments}
    emp = {e["emp_id"]: e for e in employees}
    if kind == "lookup":
        e = rng.choice(employees)
        column = rng.choice(("department", "city", "floor"))
        return f"What is the {column} of the department that {e['name']} works in?", str(dept[e["dept_id"]][column])
    if kind in ("count", "sum", "superlative"):
        column = rng.choice(("department", "city", "floor"))
        value = rng.choice(departments)[column]
        members = [e for e in employees if dept[e["dept_id"]][column] == value]
        where = {
            "department": f"in the {value} department",
            "city": f"in a department located in {value}",
            "floor": f"in a department on floor {value}",
        }[column]
        if not members:
            return None
        if kind == "count":
            return f"How many employees work {where}, and who are they?", witness_text(
                [str(e["name"]) for e in members]
            )
        if kind == "sum":
            return f"What is the total salary of the employees who work {where}?", str(
                sum(int(e["salary"]) for e in members)
            )
        highest = rng.random() < 0.5
        best = (max if highest else min)(int(e["salary"]) for e in members)
        winners = [e for e in members if e["salary"] == best]
        if len(winners) != 1 or len(members) < 2:
            return None
        word = "highest" if highest else "lowest"
        return f"Among the employees who work {where}, who has the {word} salary? Give the name.", str(
            winners[0]["name"]
        )
    if kind == "two_hop":
        p = rng.choice(projects)
        column = rng.choice(("department", "city", "floor"))
        return (
            f"What is the {column} of the department of the employee who leads project {p['project']}?",
            str(dept[emp[p["lead_id"]]["dept_id"]][column]),
        )
    # two_hop_sum: projects -> employees -> departments, aggregated.
    d = rng.choice(departments)
    led = [p for p in projects if emp[p["lead_id"]]["dept_id"] == d["dept_id"]]
    if not led:
        return None
    return (
        f"What is the total budget of the projects led by employees of the {d['department']} department?",
        str(sum(int(p["budget"]) for p in led)),
    )


def generate(config: Config, rng: random.Random) -> Problem:
    for _ in range(MAX_TRIES):
        employees, departments, projects = _tables(config, rng)
        kind = rng.choice(TIER_KINDS[config.question_tier])
        found = _question(kind, employees, departments, projects, rng)
        if found is not None:
            text, answer = found
            break
    else:
        raise ValueError("table_join: could not build a question")
    parts = [
        "Table: employees\n\n" + render_markdown(["emp_id", "name", "dept_id", "salary"], employees),
        "Table: departments\n\n" + render_markdown(["dept_id", "department", "city", "floor"], departments),
    ]
    links = "employees.dept_id refers to departments.dept_id"
    if projects:
        parts.append("Table: projects\n\n" + render_markdown(["project", "lead_id", "budget"], projects))
        links += "; projects.lead_id refers to employees.emp_id"
    answer_form = (
        witness_form("names")
        if kind == "count"
        else "Answer with the value only: a name exactly as written in the tables, or a number in plain digits."
    )
    question = "\n\n".join(parts) + f"\n\n({links}.)\n\n{text}\n{answer_form}"
    return Problem(question=question, answer=answer, extra={"kind": kind, "tables": 3 if projects else 2})


score = witness_or("text")
"""Counting items check the count and every listed name; the rest compare as text."""


FAMILY = Family(
    name=NAME,
    description="Questions over two or three linked markdown tables that need a join (lookup, count, sum, "
    "max/min, two hops).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    score=score,
    notes="Numeric answers are integers in plain digits and compare as text; counting questions are "
    "answered as `N: name, name, ...` and the names are checked.",
)
