"""``synthenv export``: a bundle's state as Parquet, DuckDB or CSV (through DuckDB), or its tasks as Harbor tasks."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from pipeline.cli.common import emit_json, fail, open_bundle


def register(app: typer.Typer) -> None:
    @app.command()
    def export(
        bundle: Path = typer.Argument(..., help="bundle directory"),
        fmt: str = typer.Option("parquet", "--format", help="parquet, duckdb, csv or harbor"),
        out: Path = typer.Option(..., "--out", help="directory the files are written to"),
        as_json: bool = typer.Option(False, "--json", help="print what was written as one JSON object"),
    ) -> None:
        """Export the bundle's initial state (one file per table, or one .duckdb database), or with
        ``--format harbor`` every task as a Harbor task directory (either bundle kind)."""
        from pipeline.bundle.export import export_bundle
        from pipeline.bundle.format import BundleError

        if fmt not in ("parquet", "duckdb", "csv", "harbor"):
            fail(f"unknown format {fmt!r}: --format is parquet, duckdb, csv or harbor", "usage")
        if fmt == "harbor":
            _export_harbor(bundle, out, as_json)
            return
        open_bundle(bundle, kinds=("tool_use",), command="export")
        try:
            result = export_bundle(bundle, fmt, out)
        except ImportError:
            fail("export needs duckdb: pip install 'synthenv[analytics]'", "unavailable")
        except BundleError as exc:
            fail(str(exc), "refused")
        except ValueError as exc:
            fail(str(exc), "usage")
        if as_json:
            emit_json(result.as_dict())
            return
        total = sum(result.rows.values())
        sys.stdout.write(
            f"{len(result.rows)} tables, {total} rows -> {result.out} ({result.format}: {', '.join(result.files)})\n"
        )


def _export_harbor(bundle: Path, out: Path, as_json: bool) -> None:
    """One Harbor task per task of a tool-use or procedural bundle (``pipeline/harbor/export.py``)."""
    from pipeline.bundle.format import BundleError
    from pipeline.harbor.export import export_harbor

    open_bundle(bundle, kinds=("tool_use", "procedural"), command="export")
    try:
        result = export_harbor(bundle, out)
    except BundleError as exc:
        fail(str(exc), "refused")
    except ValueError as exc:
        fail(str(exc), "usage")
    if as_json:
        emit_json(result.as_dict())
        return
    sys.stdout.write(f"{len(result.tasks)} Harbor tasks ({result.kind}, {result.bundle}) -> {result.out}\n")
