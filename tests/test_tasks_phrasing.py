"""Wording as data, and task generation on domains beyond the three fixture bundles."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

import pytest

from pipeline.tasks.families import FAMILIES, JUDGMENT_FAMILIES
from pipeline.tasks.phrasing import Phrasebook, phrasings_dir
from pipeline.world.blueprint import domains_dir


def test_every_family_has_a_phrasing_file() -> None:
    book = Phrasebook.load()
    assert {"common", "writes"} <= set(book.books)
    assert set(FAMILIES) <= set(book.books)


def test_rendering_is_deterministic_and_varied() -> None:
    book = Phrasebook.load()
    slots = {"attribute": "price", "subject": 'the product "Oak Mug"'}
    first = [book.render(random.Random(i), "lookup", "question", **slots) for i in range(20)]
    again = [book.render(random.Random(i), "lookup", "question", **slots) for i in range(20)]
    assert first == again and len(set(first)) > 1


def test_a_missing_slot_is_an_error() -> None:
    with pytest.raises(ValueError, match="needs slots"):
        Phrasebook.load().render(random.Random(0), "lookup", "question", attribute="price")


@pytest.mark.parametrize("template", ["{x.__class__}", "{x[0]}", "{x!r}", "{x:>10}", "{Upper}"])
def test_templates_may_only_hold_plain_slots(tmp_path: Path, template: str) -> None:
    (tmp_path / "bad.yaml").write_text(f'form:\n  - "{template}"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="placeholder"):
        Phrasebook.load(tmp_path)


def test_the_shipped_templates_load() -> None:
    assert sorted(p.stem for p in phrasings_dir().glob("*.yaml"))


def _generate(domain: str, seed: int, per_family: int):  # type: ignore[no-untyped-def]
    import tempfile

    from pipeline.bundle.format import serialise
    from pipeline.jobs.steps import Inputs, populate_step, schema_step, tools_step
    from pipeline.tasks.generate import generate_tasks
    from pipeline.tools.executor import Executor

    inputs = Inputs(domain=domain, seed=seed)
    with tempfile.TemporaryDirectory() as work:
        schema = schema_step(inputs)
        populated = populate_step(inputs, schema, Path(work))
        toolset = tools_step(schema)
        initial = serialise(populated.path)
    executor = Executor(schema, toolset, inputs.clock)
    return generate_tasks(schema, toolset, initial, executor, seed, inputs.clock, per_family)


def _check(taskset) -> None:  # type: ignore[no-untyped-def]
    calls: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for t in taskset.tasks:
        calls[t.family][t.level].append(len(t.solution))
    assert len(calls) >= 10, sorted(calls)
    for family, levels in calls.items():
        if family in JUDGMENT_FAMILIES:
            continue  # judgment, not length: their levels grow in records covered (tests/test_tasks.py)
        means = [sum(v) / len(v) for _, v in sorted(levels.items())]
        assert means == sorted(means), (family, dict(levels))
    assert not [r for r in taskset.dropped if r.endswith("_passes") or r in ("gold_below_1", "null_above_0")]


@pytest.mark.parametrize("domain", ["hotel_booking", "pharmacy"])
def test_other_domains_get_every_family(domain: str) -> None:
    _check(_generate(domain, 3, 6))


@pytest.mark.slow
@pytest.mark.parametrize("domain", sorted(p.stem for p in domains_dir().glob("*.yaml")))
def test_every_domain_template(domain: str) -> None:
    _check(_generate(domain, 11, 6))
