"""Step 2: deterministic, constraint-clean data that never reads the wall clock."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from pipeline.blueprint import list_domains, load_blueprint
from pipeline.populate import populate
from pipeline.schema import build_schema


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("domain", list_domains())
def test_population_satisfies_every_constraint(domain: str, tmp_path: Path) -> None:
    schema = build_schema(load_blueprint(domain))
    result = populate(schema, 3, tmp_path / "s.sqlite")
    conn = sqlite3.connect(result.path)
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for table in schema.tables:
        assert conn.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0] == result.rows[table.name] > 0
        for col in table.columns:
            if col.semantic in ("timestamp", "date"):
                latest = conn.execute(f'SELECT max("{col.name}") FROM "{table.name}"').fetchone()[0]
                assert latest is None or latest <= result.clock, (table.name, col.name, latest)
            if col.after:
                # A date follows a timestamp when it is not an earlier day.
                width = 10 if "date" in (col.semantic, table.column(col.after).semantic) else 19
                bad = conn.execute(
                    f'SELECT count(*) FROM "{table.name}" '
                    f'WHERE substr("{col.name}", 1, {width}) < substr("{col.after}", 1, {width})'
                ).fetchone()[0]
                assert bad == 0, f"{table.name}.{col.name} precedes {col.after}"


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("library_loans"))
    a = populate(schema, 11, tmp_path / "a.sqlite").path
    b = populate(schema, 11, tmp_path / "b.sqlite").path
    c = populate(schema, 12, tmp_path / "c.sqlite").path
    assert _sha(a) == _sha(b) != _sha(c)


def test_status_decides_whether_operation_time_is_set(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("online_store"))
    conn = sqlite3.connect(populate(schema, 5, tmp_path / "s.sqlite").path)
    rows = conn.execute("SELECT status, shipped_at FROM orders").fetchall()
    assert rows
    for status, shipped_at in rows:
        assert (shipped_at is not None) == (status in ("shipped", "delivered")), (status, shipped_at)


def test_scale_changes_row_counts(tmp_path: Path) -> None:
    schema = build_schema(load_blueprint("online_store"))
    small = populate(schema, 1, tmp_path / "s.sqlite", scale=0.5).rows
    large = populate(schema, 1, tmp_path / "l.sqlite", scale=3).rows
    assert all(large[t] > small[t] for t in small)
    with pytest.raises(ValueError, match="scale"):
        populate(schema, 1, tmp_path / "x.sqlite", scale=0)
