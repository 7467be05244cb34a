"""Export a bundle's state to Parquet, a DuckDB database or CSV, through DuckDB.

DuckDB's SQLite extension is not bundled and cannot be downloaded offline, so the state
is read with the standard ``sqlite3`` module, in chunks, and handed to DuckDB as numpy
columns. Tables are created from the schema's own DuckDB DDL (native BOOLEAN, TIMESTAMP,
DATE, DOUBLE; keys, UNIQUE, CHECK and foreign keys), so loading re-checks every
constraint on the way and the exported types are the real ones, not text.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from pipeline.bundle.names import check_bundle_name
from pipeline.world.ddl import ddl_parts
from pipeline.world.schema import Schema, Table, insertion_order
from pipeline.world.sqlnames import quote_ident as _q
from pipeline.world.sqlnames import quote_literal

Format = Literal["parquet", "duckdb", "csv"]
FORMATS: tuple[str, ...] = ("parquet", "duckdb", "csv")
CHUNK = 100_000


@dataclass(frozen=True)
class ExportResult:
    format: str
    out: Path
    files: tuple[str, ...]
    """Written files, relative to ``out``."""
    rows: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {"format": self.format, "out": str(self.out), "files": list(self.files), "rows": self.rows}


def _connect(target: str) -> Any:
    import duckdb

    # A missing extension must fail at once instead of trying the network.
    config: dict[str, str | bool | int | float | list[str]] = {
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
        "threads": "1",
    }
    return duckdb.connect(target, config=config)


def _objects(values: list[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _copy_table(src: sqlite3.Connection, con: Any, table: Table) -> int:
    """Stream one table from SQLite into DuckDB; the DuckDB DDL casts text times and 0/1 booleans."""
    names = [c.name for c in table.columns]
    cols = ", ".join(_q(n) for n in names)
    cur = src.execute(f"SELECT {cols} FROM {_q(table.name)} ORDER BY id")
    total = 0
    while True:
        rows = cur.fetchmany(CHUNK)
        if not rows:
            return total
        chunk = {f"c{i}": _objects(list(values)) for i, values in enumerate(zip(*rows))}
        con.register("synthenv_chunk", chunk)
        try:
            select = ", ".join(f"c{i}" for i in range(len(names)))
            con.execute(f"INSERT INTO {_q(table.name)} ({cols}) SELECT {select} FROM synthenv_chunk")
        finally:
            con.unregister("synthenv_chunk")
        total += len(rows)


def export_state(schema: Schema, state: Path, fmt: str, out: Path, name: str) -> ExportResult:
    """Write ``state`` (a SQLite file of ``schema``) to ``out`` in ``fmt``."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    state = Path(state)
    if not state.is_file():
        raise ValueError(f"{state}: no such state file")
    check_bundle_name(name)  # it names the output file: a plain name, never a path
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}.duckdb"
    if fmt == "duckdb":
        for stale in (target, target.with_name(target.name + ".wal")):
            stale.unlink(missing_ok=True)
    files: list[str] = []
    rows: dict[str, int] = {}
    with (
        closing(_connect(str(target) if fmt == "duckdb" else ":memory:")) as con,
        closing(sqlite3.connect(f"file:{state}?mode=ro", uri=True)) as src,
    ):
        creates, indexes = ddl_parts(schema, "duckdb")
        for stmt in creates:
            con.execute(stmt)
        for table in insertion_order(schema):
            rows[table.name] = _copy_table(src, con, table)
        if fmt == "duckdb":
            for stmt in indexes:
                con.execute(stmt)
            con.execute("CHECKPOINT")
            files.append(target.name)
        else:
            for table in schema.tables:
                path = out / f"{table.name}.{fmt}"
                options = "FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else "FORMAT csv, HEADER true"
                literal = quote_literal(str(path))
                con.execute(f"COPY (SELECT * FROM {_q(table.name)} ORDER BY id) TO {literal} ({options})")
                files.append(path.name)
        manifest = {
            "format": fmt,
            "schema": schema.name,
            "tables": {t.name: rows[t.name] for t in schema.tables},
            "files": files,
        }
        (out / "export.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return ExportResult(format=fmt, out=out, files=tuple(files), rows={t.name: rows[t.name] for t in schema.tables})


def export_bundle(bundle: Path, fmt: str, out: Path) -> ExportResult:
    """Export a bundle's initial state, after verifying every file of the bundle."""
    from pipeline.bundle.format import load_bundle

    b = load_bundle(bundle)
    schema = Schema.model_validate(b.read_json("schema.json"))
    return export_state(schema, b.file("state.sqlite"), fmt, out, b.name)
