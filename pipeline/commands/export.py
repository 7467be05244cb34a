"""``synthenv export``: a bundle's state as Parquet, DuckDB or CSV (written through DuckDB)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console

err = Console(stderr=True, soft_wrap=True)


def register(app: typer.Typer) -> None:
    @app.command()
    def export(
        bundle: Path = typer.Argument(..., help="bundle directory"),
        fmt: str = typer.Option("parquet", "--format", help="parquet, duckdb or csv"),
        out: Path = typer.Option(..., "--out", help="directory the files are written to"),
        as_json: bool = typer.Option(False, "--json", help="print what was written as one JSON object"),
    ) -> None:
        """Export the bundle's initial state (one file per table, or one .duckdb database)."""
        from pipeline.bundle import BundleError
        from pipeline.export import export_bundle

        try:
            result = export_bundle(bundle, fmt, out)
        except ImportError:
            err.print("[bold red]error:[/] export needs duckdb: pip install 'synthenv[analytics]'")
            raise typer.Exit(2) from None
        except (BundleError, ValueError) as exc:
            err.print(f"[bold red]error:[/] {exc}")
            raise typer.Exit(2) from None
        if as_json:
            sys.stdout.write(json.dumps(result.as_dict(), sort_keys=True) + "\n")
            return
        total = sum(result.rows.values())
        sys.stdout.write(f"{len(result.rows)} tables, {total} rows -> {result.out} ({result.format}: "
                         f"{', '.join(result.files)})\n")
