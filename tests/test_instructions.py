"""Instructions speak natural language: no identifier of any naming style reaches a user's request.

--random variants name tables and columns in camelCase, PascalCase, with prefixes; the words of
an instruction must still be the readable labels. The scan looks for every identifier of the
bundle's schema and for anything shaped like one, outside quoted values (a quoted book title or
an email address is data, not an identifier).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pipeline.jobs.steps import Inputs, generate
from pipeline.tasks.naturalness import wording_violations
from pipeline.world.schema import Schema
from pipeline.world.variants import pick_domain

SNAKE = re.compile(r"(?<![\w@./'-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w@/-]|\.\w)")
CAMEL = re.compile(r"(?<![\w@./'-])[a-z]+[0-9]*[A-Z][A-Za-z0-9]*(?![\w@/-]|\.\w)")
QUOTED = re.compile(r'"[^"]*"')
FIELD_AS_NAME = re.compile(r"\b(?:its|their) is \w+ to (?:yes|no)\b")


def identifiers(schema: Schema) -> set[str]:
    """Every styled name of the schema that is not a plain lower-case word."""
    names = {t.name for t in schema.tables} | {c.name for t in schema.tables for c in t.columns}
    return {n for n in names if "_" in n or n != n.lower()}


def offending(instruction: str, schema: Schema) -> list[str]:
    text = QUOTED.sub('""', instruction)
    found = SNAKE.findall(text) + CAMEL.findall(text)
    found += [n for n in identifiers(schema) if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)]
    found += FIELD_AS_NAME.findall(text)  # "change its is archived to yes": a flag named, not said
    found += [v.detail for v in wording_violations(instruction) if v.rule == "article"]
    return found


def _strings(value: object) -> list[str]:
    """Every string inside a JSON value (descriptions, summaries, labels)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _scan(seeds: range | list[int], root: Path, tasks_per_family: int) -> tuple[int, list[tuple[str, list[str]]]]:
    total, bad = 0, []
    for seed in seeds:
        inputs = Inputs(domain=pick_domain(seed), seed=seed, variant=True, tasks_per_family=tasks_per_family)
        summary = generate(inputs, root / "out", root / f"work-{seed}")
        bundle = Path(summary["path"])
        schema = Schema.model_validate_json((bundle / "schema.json").read_text())
        for name in ("tools.json", "schema.json"):  # what the agent reads of the tools, too
            texts = _strings(json.loads((bundle / name).read_text()))
            slips = [v.detail for t in texts for v in wording_violations(t) if v.rule == "article"]
            if slips:
                bad.append((name, slips))
        for line in (bundle / "tasks.jsonl").read_text().splitlines():
            instruction = json.loads(line)["instruction"]
            total += 1
            hits = offending(instruction, schema)
            if hits:
                bad.append((instruction, hits))
    return total, bad


def test_the_scan_finds_identifiers() -> None:
    from pipeline.world.variants import random_schema

    schema = random_schema(5)
    assert offending("the parcelId of the permitApplicationId of the feeId", schema)
    assert offending("How many loan_installments are due?", schema)
    assert not offending('the book "The Silent_Harbor" of member jane.doe@gmail.com', schema)
    assert offending("Then change its is archived to yes.", schema)
    assert offending("the bill with a amount of 4", schema)
    assert not offending("Then mark it as archived.", schema)


def test_instructions_of_a_random_variant_use_readable_labels(tmp_path: Path) -> None:
    total, bad = _scan([5], tmp_path, tasks_per_family=1)
    assert total > 5 and not bad, bad[:5]


@pytest.mark.slow
def test_no_instruction_of_ten_random_seeds_contains_an_identifier(tmp_path: Path) -> None:
    total, bad = _scan(range(10), tmp_path, tasks_per_family=6)
    assert total > 500 and not bad, bad[:5]
