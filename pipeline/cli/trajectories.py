"""``synthenv trajectories export``: trajectory logs (JSONL) to one Parquet or JSONL file through DuckDB,
or to ATIF documents (one per episode, :mod:`pipeline.harbor.atif`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from pipeline.cli.common import emit_json, fail, out

trajectories_app = typer.Typer(no_args_is_help=True, help="Work with recorded episode trajectories.")


@trajectories_app.command("export")
def export(
    files: list[Path] = typer.Argument(..., help="trajectory JSONL files (RecordTrajectory or serve --trajectories)"),
    fmt: str = typer.Option("parquet", "--format", help="parquet, jsonl or atif"),
    dest: Path | None = typer.Option(
        None,
        "--out",
        help="file to write (default: beside the first input, FILE.parquet, FILE.export.jsonl or FILE.atif.jsonl)",
    ),
    as_json: bool = typer.Option(False, "--json", help="print the counts as one JSON object"),
) -> None:
    """Concatenate trajectory logs into one file; rows keep their order, JSON columns stay JSON text.
    ``--format atif`` writes one ATIF v1.4 document per episode, one per line."""
    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r}: --format is parquet, jsonl or atif", "usage")
    target = dest if dest is not None else default_out(files[0], fmt)
    if any(target.resolve() == p.resolve() for p in files):
        fail(f"--out {target} is one of the inputs; name another file", "usage")
    try:
        for path in files:
            _check_log(path)
        if fmt == "atif":
            from pipeline.harbor.atif import export_atif

            result = export_atif(list(files), target)
        else:
            try:
                from pipeline.integrations.trajectory import export_trajectories
            except ImportError as exc:  # pragma: no cover - duckdb is in the analytics extra
                fail(
                    f"exporting needs DuckDB ({exc.name} is missing): pip install 'synthenv[analytics]'", "unavailable"
                )
            result = export_trajectories(list(files), target, fmt)
    except (ValueError, ImportError) as exc:
        fail(str(exc))
    if as_json:
        emit_json(result)
        return
    out.print(
        f"{result['rows']} rows, {result['episodes']} episodes ({result['finished']} finished, "
        f"{result['errors']} infrastructure errors) -> {result['out']}"
    )


FORMATS = {"parquet": ".parquet", "jsonl": ".export.jsonl", "atif": ".atif.jsonl"}
"""Each format and the suffix of its default file, beside the first input (never the input itself)."""


def default_out(first: Path, fmt: str) -> Path:
    """Where an export goes without ``--out``: beside the first input, its name plus the format's suffix."""
    stem = first.name.removesuffix(".jsonl").removesuffix(".json")
    return first.with_name(stem + FORMATS[fmt])


def _check_log(path: Path) -> None:
    """A trajectory log as written by ``RecordTrajectory``, or ValueError naming the file and line.

    DuckDB reads any JSON it is given (a missing key becomes a null column, an empty file no
    rows) and counts lines its own way, so each line is checked here first: a JSON object with
    an ``episode`` and an integer ``step``, and at least one row in the file.
    """
    if not path.is_file():
        raise ValueError(
            f"{path} is a directory, not a trajectory file" if path.is_dir() else f"no such trajectory file: {path}"
        )
    rows = 0
    try:
        with path.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw)
                except ValueError as exc:
                    raise ValueError(f"{path}: line {number} is not JSON ({exc})") from None
                if not isinstance(row, dict):
                    raise ValueError(f"{path}: line {number} is a JSON {type(row).__name__}, not a trajectory row")
                missing = [k for k in ("episode", "step") if k not in row]
                if missing:
                    raise ValueError(f"{path}: line {number} lacks {', '.join(missing)}")
                if not isinstance(row["step"], int) or isinstance(row["step"], bool):
                    raise ValueError(f"{path}: line {number}: step must be an integer, got {row['step']!r}")
                rows += 1
    except OSError as exc:
        raise ValueError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if rows == 0:
        raise ValueError(f"{path}: no trajectory rows (an empty file)")


def register(app: typer.Typer) -> None:
    app.add_typer(trajectories_app, name="trajectories")
