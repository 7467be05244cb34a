"""``synthenv families`` (both kinds of task family) and ``synthenv procedural``: the reasoning-task side of the CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from pipeline.cli.common import fail


def register(app: typer.Typer) -> None:
    app.command()(families)
    app.command()(procedural)


def families(
    kind: str = typer.Option("all", "--kind", help="all, procedural (reasoning items) or tool_use (task families)"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """List the task families and their levels: the procedural ones and the tool-use ones."""
    from pipeline.families import Kind
    from pipeline.families import families as registered

    kinds: dict[str, tuple[Kind, ...]] = {
        "all": ("procedural", "tool_use"),
        "procedural": ("procedural",),
        "tool_use": ("tool_use",),
    }
    if kind not in kinds:
        fail(f"--kind must be all, procedural or tool_use, got {kind!r}")
    rows: list[dict[str, Any]] = []
    for k in kinds[kind]:
        for name, fam in registered(k).items():
            rows.append(
                {
                    "kind": k,
                    "name": name,
                    "levels": list(fam.level_numbers()),
                    "answer_kind": getattr(fam, "answer_kind", None),  # procedural items only
                    "description": fam.description,
                }
            )
    if as_json:
        sys.stdout.write(json.dumps(rows, sort_keys=True) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("kind", "family", "levels", "answer", "description")
    for r in rows:
        levels = r["levels"]
        shown = f"{levels[0]}-{levels[-1]}" if len(levels) > 1 else str(levels[0])
        table.add_row(str(r["kind"]), str(r["name"]), shown, str(r["answer_kind"] or ""), str(r["description"]))
    Console(soft_wrap=True).print(table)


def procedural(
    family: list[str] = typer.Option(
        ..., "--family", help="family name, or several separated by commas (or the option repeated)"
    ),
    level: int | None = typer.Option(None, help="difficulty level for every family (default 0)"),
    difficulty: float | None = typer.Option(
        None, help="continuous difficulty in [0, 5] for every family, between levels (instead of --level)"
    ),
    weights: str | None = typer.Option(None, help="comma-separated weights, one per family"),
    n: int = typer.Option(..., "--n", help="number of items"),
    seed: int = typer.Option(0, min=0),
    out: Path = typer.Option(Path("artifacts"), "--out", help="directory bundles are written under"),
    fmt: str | None = typer.Option(None, "--format", help="also export rows as jsonl or parquet"),
    version: str = typer.Option("1.0.0"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as one JSON object"),
) -> None:
    """Build a procedural bundle (manifest, digest, tasks.jsonl) and optionally export its rows."""
    from pipeline.package.procedural import (
        build_procedural_bundle,
        export_rows,
        parse_weights,
    )

    names = [f.strip() for given in family for f in given.split(",") if f.strip()]
    try:
        if level is not None and difficulty is not None:
            raise ValueError("give --level or --difficulty, not both")
        bundle = build_procedural_bundle(
            names,
            out,
            n=n,
            seed=seed,
            level=level,
            weights=parse_weights(names, weights),
            version=version,
            difficulty=difficulty,
        )
        exported = None
        if fmt is not None:
            target = bundle.path.parent / f"{bundle.name}-{bundle.version}.{fmt}"
            exported = str(export_rows(bundle, fmt, target))
    except ValueError as exc:
        fail(str(exc))
    summary = {
        "path": str(bundle.path),
        "digest": bundle.digest,
        "name": bundle.name,
        "version": bundle.version,
        "tasks": bundle.manifest.as_procedural().counts.tasks,
        "per_family": bundle.manifest.as_procedural().counts.per_family,
        "dropped": {},
        "export": exported,
    }
    if as_json:
        sys.stdout.write(json.dumps(summary, sort_keys=True) + "\n")
    else:
        typer.echo(f"{summary['name']}@{summary['version']}: {summary['tasks']} items {summary['per_family']}")
        typer.echo(
            f"  path   {summary['path']}\n  digest {summary['digest']}" + (f"\n  export {exported}" if exported else "")
        )
