"""Export through DuckDB (Parquet, DuckDB, CSV) and the data profile in report.html."""

from __future__ import annotations

import csv
import json
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.bundle.export import export_bundle
from pipeline.bundle.format import load_bundle
from pipeline.cli.main import app
from pipeline.package.report.data import data_section, er_mermaid
from pipeline.world.schema import Schema

duckdb = pytest.importorskip("duckdb")
runner = CliRunner()


def _counts(bundle: Path) -> dict[str, int]:
    with closing(sqlite3.connect(bundle / "state.sqlite")) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


def _connect(path: str = ":memory:"):
    return duckdb.connect(path, config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})


def test_parquet_export_keeps_rows_and_types(store_bundle: Path, tmp_path: Path) -> None:
    result = export_bundle(store_bundle, "parquet", tmp_path)
    assert result.rows == _counts(store_bundle)
    con = _connect()
    for table, n in result.rows.items():
        path = str(tmp_path / f"{table}.parquet")
        assert con.execute("SELECT count(*) FROM read_parquet(?)", [path]).fetchone()[0] == n
    types = dict(
        con.execute(
            "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?))",
            [str(tmp_path / "orders.parquet")],
        ).fetchall()
    )
    assert types["placed_at"] == "TIMESTAMP" and types["total"] == "DOUBLE"
    with closing(sqlite3.connect(store_bundle / "state.sqlite")) as source:
        expected = source.execute("SELECT round(sum(total), 2), min(placed_at) FROM orders").fetchone()
    got = con.execute(
        "SELECT round(sum(total), 2), strftime(min(placed_at), '%Y-%m-%dT%H:%M:%S') FROM read_parquet(?)",
        [str(tmp_path / "orders.parquet")],
    ).fetchone()
    assert got == expected
    assert json.loads((tmp_path / "export.json").read_text())["tables"] == result.rows


def test_duckdb_export_is_a_database_with_constraints(store_bundle: Path, tmp_path: Path) -> None:
    result = export_bundle(store_bundle, "duckdb", tmp_path)
    (db,) = result.files
    con = _connect(str(tmp_path / db))
    assert con.execute("SELECT count(*) FROM orders").fetchone()[0] == result.rows["orders"]
    assert (
        con.execute(
            "SELECT data_type FROM information_schema.columns WHERE table_name = 'products' AND column_name = 'active'"
        ).fetchone()[0]
        == "BOOLEAN"
    )
    with pytest.raises(duckdb.ConstraintException):
        con.execute("INSERT INTO categories (id, name) SELECT 999, name FROM categories LIMIT 1")
    con.close()
    again = export_bundle(store_bundle, "duckdb", tmp_path)
    assert again.rows == result.rows


def test_csv_export_through_the_command_line(store_bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "csv"
    result = runner.invoke(app, ["export", str(store_bundle), "--format", "csv", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["format"] == "csv" and "customers.csv" in summary["files"]
    with (out / "customers.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == summary["rows"]["customers"] and "email" in rows[0]


def test_export_refuses_bad_input(store_bundle: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", str(store_bundle), "--format", "xlsx", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown format" in result.output
    copy = tmp_path / "tampered"
    shutil.copytree(store_bundle, copy)
    with closing(sqlite3.connect(copy / "state.sqlite")) as conn, conn:  # the inner `with` commits
        conn.execute("UPDATE customers SET city = 'Nowhere' WHERE id = 1")
    result = runner.invoke(app, ["export", str(copy), "--format", "parquet", "--out", str(tmp_path / "x")])
    assert result.exit_code == 4 and "modified" in result.output  # refused


def test_report_has_a_deterministic_data_profile(store_bundle: Path) -> None:
    bundle = load_bundle(store_bundle)
    schema = Schema.model_validate(bundle.read_json("schema.json"))
    page = (store_bundle / "report.html").read_text(encoding="utf-8")
    for heading in ("Data profile", "Distributions", "Entity-relationship diagram"):
        assert heading in page
    assert page.count("<svg") >= 3 and "erDiagram" in page
    assert "top 10% of" in page and "log-spaced" in page
    section = data_section(bundle.manifest.as_tool_use(), schema, store_bundle / "state.sqlite")
    assert section == data_section(bundle.manifest.as_tool_use(), schema, store_bundle / "state.sqlite")
    assert section in page
    assert not re.search(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d", page), "no wall-clock timestamps"


def test_mermaid_names_every_relation() -> None:
    from pipeline.world.blueprint import load_blueprint
    from pipeline.world.schema import build_schema

    schema = build_schema(load_blueprint("online_store"))
    text = er_mermaid(schema)
    assert text.startswith("erDiagram")
    assert "order_items }o--|| orders : order_id" in text
    assert sum(len(t.foreign_keys) for t in schema.tables) == text.count("--||")
