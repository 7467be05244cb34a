"""The variant sampler: valid, deterministic, 8-30 tables, and far apart from each other."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.data.populate import populate
from pipeline.data.state_check import check_state
from pipeline.tools.specs import build_toolset
from pipeline.world.blueprint import list_domains, load_blueprint
from pipeline.world.ddl import ddl_script, ddl_statements
from pipeline.world.distinctness import (
    THRESHOLD,
    jaccard,
    measure,
    random_schemas,
    schema_tokens,
)
from pipeline.world.naming import Naming
from pipeline.world.schema import build_schema
from pipeline.world.variants import (
    MAX_TABLES,
    MIN_TABLES,
    pick_domain,
    random_schema,
    sample_variant,
)

SEEDS = range(0, 1000, 9)


@pytest.fixture(scope="module")
def schemas():
    return {seed: random_schema(seed) for seed in SEEDS}


def test_same_seed_same_schema_other_seed_other_schema() -> None:
    bp = load_blueprint("library_loans")
    a, b, c = sample_variant(bp, 3), sample_variant(bp, 3), sample_variant(bp, 4)
    assert a.schema().model_dump_json() == b.schema().model_dump_json()
    assert a.schema().model_dump_json() != c.schema().model_dump_json()
    assert a.changes == b.changes and a.changes


def test_domain_choice_is_stable_and_covers_the_catalog() -> None:
    domains = list_domains()
    picks = Counter(pick_domain(s) for s in range(1000))
    assert set(picks) == set(domains)
    assert max(picks.values()) < 3 * 1000 / len(domains)
    # Rendezvous hashing: a new domain only takes seeds, it never reshuffles the others.
    grown = [*domains, "zz_new_domain"]
    moved = [s for s in range(300) if pick_domain(s, grown) not in (pick_domain(s, domains), "zz_new_domain")]
    assert moved == []


def test_table_counts_span_eight_to_thirty(schemas) -> None:
    counts = [len(s.tables) for s in schemas.values()]
    assert min(counts) >= MIN_TABLES and max(counts) <= MAX_TABLES
    assert min(counts) <= 10 and max(counts) >= 27


def test_variants_keep_meaning_while_names_change() -> None:
    styles = Counter()
    for seed in list(SEEDS)[::3]:
        variant = sample_variant(load_blueprint(pick_domain(seed)), seed)
        schema = variant.schema()
        toolset = build_toolset(schema)
        assert all(len(t.name) <= 64 for t in toolset.tools)
        for table in schema.tables:
            styles["camel" if any(c.isupper() for c in table.name) else "snake"] += 1
            entity = variant.blueprint.entity(table.entity)
            assert table.name == variant.naming.table(entity)
            assert table.label == variant.naming.column(entity.label)
            for c in table.columns[1:]:
                assert c.name == variant.naming.column(str(c.field))
    assert styles["camel"] and styles["snake"]


@pytest.mark.parametrize("seed", list(SEEDS)[::4])
def test_every_variant_compiles_and_runs_its_ddl(schemas, seed: int) -> None:
    schema = schemas[seed]
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.executescript(ddl_script(schema, "sqlite"))
    assert ddl_statements(schema, "postgresql")
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for stmt in ddl_statements(schema, "duckdb"):
        con.execute(stmt)


@pytest.mark.parametrize("seed", [1, 10, 100, 250, 500, 999])
def test_every_variant_populates_clean(schemas, seed: int, tmp_path: Path) -> None:
    schema = schemas.get(seed) or random_schema(seed)
    result = populate(schema, seed, tmp_path / "s.sqlite")
    assert check_state(schema, result.path, result.clock) == []


def test_variants_cover_every_kind_of_change(schemas) -> None:
    seen = Counter()
    for seed in SEEDS:
        v = sample_variant(load_blueprint(pick_domain(seed)), seed)
        for change in v.changes:
            seen[
                change.split(" ")[0] + (" lookup" if "lookup" in change else "") + (" tags" if "tags" in change else "")
            ] += 1
    for kind in ("dropped", "narrowed", "added", "promoted lookup", "split", "naming"):
        assert seen[kind] or seen[kind.split(" ")[0]], (kind, seen)
    link = next(t for s in schemas.values() for t in s.tables if t.unique_together)
    assert len(link.unique_together[0]) == 2
    lookup = next(t for s in schemas.values() for t in s.tables if t.column(t.label).initial)
    assert not lookup.scales and lookup.rows == len(lookup.column(lookup.label).initial or ())


def test_normalised_tokens_ignore_spelling() -> None:
    bp = load_blueprint("online_store")
    snake = schema_tokens(build_schema(bp))
    styled = schema_tokens(
        build_schema(bp, naming=Naming(tables="pascal", plural=False, prefix="app_", columns="camel"))
    )
    assert snake == styled
    assert jaccard(snake, styled) == 1.0
    assert "c:order_item.unit_price" in snake and "t:category" in snake


def test_random_schemas_are_mostly_far_apart() -> None:
    report = measure(random_schemas(range(120)))
    assert report.below >= 0.95, report
    assert report.same_domain_mean < THRESHOLD


@pytest.mark.slow
def test_a_thousand_random_schemas_are_distinct() -> None:
    report = measure(random_schemas(range(1000)))
    assert report.ok and report.below >= 0.95, report
    assert report.tables_min >= MIN_TABLES and report.tables_max <= MAX_TABLES


def test_generate_random_from_the_command_line(tmp_path: Path) -> None:
    from pipeline.cli.main import app

    result = CliRunner().invoke(
        app, ["generate", "--random", "--seed", "11", "--rows", "60", "--out", str(tmp_path), "--no-prefect", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["domain"] == pick_domain(11)
    assert summary["name"] == f"{pick_domain(11).replace('_', '-')}-v11-r60"  # the size names the bundle
    assert MIN_TABLES <= summary["tables"] <= MAX_TABLES and summary["tasks"] > 0
    manifest = json.loads((Path(summary["path"]) / "manifest.json").read_text())
    assert max(manifest["counts"]["rows_per_table"].values()) == 60
