"""The ``synthenv`` command line.

Heavy imports (Prefect, the web stack) happen inside the commands that need them, so
``synthenv --help`` and the read-only commands start fast. ``--json`` output goes to
stdout alone; progress and logs go to stderr.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Generate, check and serve RL environments.")
err = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)


def _emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, sort_keys=True, default=str) + "\n")


def _fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


def _quiet_prefect() -> None:
    """Offline defaults: no telemetry, and Prefect's chatter below warnings unless asked."""
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")
    # The temporary local server needs 7-20 s on a busy 2-core machine; Prefect waits only 20.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")


@app.command()
def domains(as_json: bool = typer.Option(False, "--json", help="machine-readable output")) -> None:
    """List the domain templates a tool-use environment can be generated from."""
    from pipeline.blueprint import list_domains, load_blueprint

    rows = []
    for name in list_domains():
        bp = load_blueprint(name)
        rows.append({"name": name, "title": bp.title, "entities": len(bp.entities),
                     "operations": len(bp.operations), "description": bp.description})
    if as_json:
        _emit_json(rows)
        return
    from rich.table import Table

    table = Table("domain", "title", "entities", "operations")
    for r in rows:
        table.add_row(r["name"], r["title"], str(r["entities"]), str(r["operations"]))
    out.print(table)


@app.command()
def generate(
    domain: Optional[str] = typer.Option(None, help="domain template (see `synthenv domains`); default online_store, "
                                         "or with --random one picked by the seed"),
    seed: int = typer.Option(0, min=0, help="seed; same inputs give the same bundle digest"),
    out_dir: Path = typer.Option(Path("artifacts"), "--out", help="directory bundles are written under"),
    scale: float = typer.Option(1.0, help="row-count multiplier for every table"),
    rows: Optional[int] = typer.Option(None, min=1, help="rows of the largest table, the others in proportion "
                                       "(overrides --scale)"),
    random_variant: bool = typer.Option(False, "--random", help="vary the blueprint by the seed (tables, fields, "
                                        "enums, naming); without --domain the seed also picks the domain"),
    tasks_per_family: int = typer.Option(6, help="task candidates proposed per family"),
    version: str = typer.Option("1.0.0", help="semver of the bundle"),
    no_prefect: bool = typer.Option(False, "--no-prefect", help="run the steps without the Prefect flow"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as one JSON object"),
) -> None:
    """Run the generate_environment flow: schema, populate, tools, tasks, package."""
    from pipeline.blueprint import load_blueprint
    from pipeline.steps import Inputs, reporter

    try:
        if domain is None:
            if random_variant:
                from pipeline.variants import pick_domain

                domain = pick_domain(seed)
            else:
                domain = "online_store"
        inputs = Inputs(domain=domain, seed=seed, scale=scale, tasks_per_family=tasks_per_family, version=version,
                        rows=rows, variant=random_variant)
        load_blueprint(domain)
    except ValueError as exc:
        _fail(str(exc))

    def report(step: str, seconds: float | None) -> None:
        if seconds is None:
            err.print(f"[cyan]>[/] {step} ...")
        else:
            err.print(f"[green]✓[/] {step} [dim]{seconds:.2f}s[/]")

    token = reporter.set(report)
    try:
        if no_prefect:
            from pipeline.steps import generate as run_steps

            with tempfile.TemporaryDirectory(prefix="synthenv-") as work:
                result = run_steps(inputs, out_dir, Path(work))
        else:
            _quiet_prefect()
            err.print("[dim]starting Prefect flow generate_environment (first run starts a local server)…[/]")
            from flows.generate import generate_environment

            result = generate_environment(inputs, str(out_dir))
    finally:
        reporter.reset(token)
    if as_json:
        _emit_json(result)
        return
    _print_summary(result)


def _print_summary(s: dict[str, Any]) -> None:
    dropped = ", ".join(f"{k}: {v}" for k, v in s["dropped"].items()) or "none"
    out.print(f"[bold]{s['name']}@{s['version']}[/] ({s['domain']}, seed {s['seed']})")
    out.print(f"  tables {s['tables']}, rows {s['rows']}, tools {s['tools']}, tasks proven {s['tasks']}, dropped {dropped}")
    out.print(f"  path   {s['path']}")
    out.print(f"  digest {s['digest']}")
    out.print("  seconds " + ", ".join(f"{k} {v:.2f}" for k, v in s["seconds"].items()))


@app.command()
def check(
    bundle: Path = typer.Argument(..., help="bundle directory"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Re-prove every task: gold replay scores 1.0, doing nothing 0.0. Exit 1 on any failure."""
    from pipeline.bundle import BundleError
    from pipeline.check import check_bundle

    try:
        report = check_bundle(bundle)
    except BundleError as exc:
        _fail(str(exc))
    if as_json:
        _emit_json(report.as_dict())
    else:
        out.print(f"{report.bundle} {report.digest}: {report.passed}/{report.tasks} tasks proven")
        for task_id, reason in report.failures.items():
            out.print(f"  [red]FAIL[/] {task_id}: {reason}")
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def info(
    bundle: Path = typer.Argument(..., help="bundle directory"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Print the manifest summary of a bundle (after checking its digests)."""
    from pipeline.bundle import BundleError, load_bundle

    try:
        b = load_bundle(bundle)
    except BundleError as exc:
        _fail(str(exc))
    m = b.manifest
    summary = {k: m.get(k) for k in ("name", "version", "digest", "kind", "domain", "seed", "frozen_clock",
                                     "generator_version", "knobs", "counts", "lineage")}
    summary["path"] = str(b.path)
    if as_json:
        _emit_json(summary)
        return
    for key, value in summary.items():
        out.print(f"[bold]{key:>17}[/] {json.dumps(value, sort_keys=True) if isinstance(value, dict) else value}")


def main() -> None:
    app()


def _register_command_modules() -> None:
    from pipeline.commands import register_all

    register_all(app)


_register_command_modules()


if __name__ == "__main__":
    main()
