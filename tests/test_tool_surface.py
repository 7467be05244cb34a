"""The tool surface a real API would expose: 30 to 60 tools per environment at every size."""

from __future__ import annotations

import statistics

import pytest

from pipeline.tools.specs import MAX_TOOLS, MIN_TOOLS, build_toolset, table_role
from pipeline.world.blueprint import list_domains, load_blueprint
from pipeline.world.schema import build_schema
from pipeline.world.variants import random_schema

SEEDS = range(20)


def test_random_variants_carry_thirty_to_sixty_tools() -> None:
    sizes = {}
    for seed in SEEDS:
        schema = random_schema(seed)
        sizes[seed] = (len(build_toolset(schema).tools), len(schema.tables))
    counts = [n for n, _ in sizes.values()]
    assert all(MIN_TOOLS <= n <= MAX_TOOLS for n in counts), sizes
    # The variants span small and large schemas; the surface stays in range across them.
    assert max(t for _, t in sizes.values()) >= 20 and min(t for _, t in sizes.values()) <= 10
    assert statistics.median(counts) <= MAX_TOOLS


@pytest.mark.parametrize("domain", list_domains())
def test_default_domains_carry_thirty_to_sixty_tools(domain: str) -> None:
    toolset = build_toolset(build_schema(load_blueprint(domain)))
    assert MIN_TOOLS <= len(toolset.tools) <= MAX_TOOLS


def test_no_generic_aggregate_and_no_write_to_histories_or_lookups() -> None:
    for seed in SEEDS:
        schema = random_schema(seed)
        toolset = build_toolset(schema)
        roles = {t.name: table_role(t) for t in schema.tables}
        for spec in toolset.tools:
            if spec.kind == "aggregate":
                # A report covers one table: the schema pins it.
                assert spec.parameters["properties"]["table"]["const"] == spec.table
            if spec.kind in ("create", "update", "delete"):
                assert roles[spec.table] not in ("history", "lookup"), spec.name
            if spec.kind == "update":
                assert roles[spec.table] != "link", spec.name
        assert sum(1 for s in toolset.tools if s.kind == "aggregate") <= 3
