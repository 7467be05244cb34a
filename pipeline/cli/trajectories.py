"""``synthenv trajectories export``: trajectory logs (JSONL) to one Parquet file through DuckDB."""

from __future__ import annotations

from pathlib import Path

import typer

from pipeline.cli.common import emit_json, fail, out

trajectories_app = typer.Typer(no_args_is_help=True, help="Work with recorded episode trajectories.")


@trajectories_app.command("export")
def export(
    files: list[Path] = typer.Argument(..., help="trajectory JSONL files (RecordTrajectory or serve --trajectories)"),
    fmt: str = typer.Option("parquet", "--format", help="parquet or jsonl"),
    dest: Path = typer.Option(Path("trajectories.parquet"), "--out", help="file to write"),
    as_json: bool = typer.Option(False, "--json", help="print the counts as one JSON object"),
) -> None:
    """Concatenate trajectory logs into one file; rows keep their order, JSON columns stay JSON text."""
    try:
        from pipeline.integrations.trajectory import export_trajectories
    except ImportError as exc:  # pragma: no cover - duckdb is in the analytics extra
        fail(f"exporting needs DuckDB ({exc.name} is missing): pip install 'synthenv[analytics]'")
    try:
        result = export_trajectories(list(files), dest, fmt)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    if as_json:
        emit_json(result)
        return
    out.print(
        f"{result['rows']} rows, {result['episodes']} episodes ({result['finished']} finished, "
        f"{result['errors']} infrastructure errors) -> {result['out']}"
    )


def register(app: typer.Typer) -> None:
    app.add_typer(trajectories_app, name="trajectories")
