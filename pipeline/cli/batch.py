"""``synthenv batch``: build and publish many environments through the ``generate_batch`` flow."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from pipeline.cli import llm as llm_options
from pipeline.cli.common import MAX_ROWS, MIN_ROWS, fail, progress_display, quiet_prefect

REGISTRY_HELP = "registry directory or fsspec URL (default: $SYNTHENV_REGISTRY or artifacts/)"


def _api_url() -> str | None:
    from prefect.settings import PREFECT_API_URL

    return PREFECT_API_URL.value() or None


def batch(
    n: int | None = typer.Option(None, "--n", min=1, help="number of environments (unless --scenarios)"),
    domains: str | None = typer.Option(
        None,
        "--domains",
        help="comma-separated domain templates, used in turn "
        "(default: each seed picks its domain, as generate --random does)",
    ),
    seed: int = typer.Option(0, min=0, help="first seed; environment i gets seed + i"),
    workers: int = typer.Option(
        1,
        min=1,
        help="environments built at once: threads (they overlap I/O only; the steps "
        "are CPU-bound Python), or Dask worker processes with --dask-address local",
    ),
    registry: str | None = typer.Option(None, "--registry", help=REGISTRY_HELP),
    dask_address: str | None = typer.Option(
        None,
        "--dask-address",
        help="run on a Dask cluster: a scheduler "
        "address (tcp://host:8786) or 'local' for a LocalCluster of --workers "
        "processes; needs a Prefect server (PREFECT_API_URL)",
    ),
    work: Path | None = typer.Option(
        None,
        "--work",
        help="work directories and summary (default: <registry>/.work); on a cluster, a path every worker sees",
    ),
    random_variant: bool = typer.Option(False, "--random", help="vary each blueprint by its seed"),
    tasks_per_family: int = typer.Option(6, min=1, help="task candidates proposed per family"),
    scale: float = typer.Option(
        1.0, min=0.001, max=25_000, help="row-count multiplier for every table (0.001 to 25,000)"
    ),
    rows: int | None = typer.Option(
        None,
        min=MIN_ROWS,
        max=MAX_ROWS,
        help="rows of the largest table (10 to 1,000,000), the others in proportion (overrides --scale)",
    ),
    summary_path: Path | None = typer.Option(
        None, "--summary", help="where the summary JSON goes (default: <work>/batch-summary.json)"
    ),
    no_prefect: bool = typer.Option(False, "--no-prefect", help="build one after another without the orchestrator"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as one JSON object"),
    scenarios: Path | None = typer.Option(
        None,
        "--scenarios",
        help='JSONL file, one {"name", "description"} per line: an LLM designs each world (needs --llm)',
    ),
    llm: str | None = llm_options.MODEL,
    llm_base_url: str | None = llm_options.BASE_URL,
    llm_cache: Path | None = llm_options.CACHE,
    llm_offline: bool = llm_options.OFFLINE,
    llm_passes: str = llm_options.PASSES,
    llm_proposals: int = llm_options.PROPOSALS,
    llm_attempts: int = llm_options.ATTEMPTS,
    llm_timeout: float = llm_options.TIMEOUT,
    llm_concurrency: int = llm_options.CONCURRENCY,
) -> None:
    """Build, prove and publish N environments; a re-run redoes only what is missing. Exit 1 if any failed.

    With --scenarios, the generate_scenario_batch flow: one LLM-designed environment per scenario line."""
    from pipeline.jobs import batch as plain

    if scenarios is not None or llm is not None:
        if scenarios is None or n is not None or domains is not None or random_variant:
            fail("--scenarios and --llm go together, without --n, --domains or --random")
        if no_prefect and dask_address is not None:
            fail("--dask-address runs the Prefect flow; drop --no-prefect")
        settings = llm_options.settings(
            llm, llm_base_url, llm_cache, llm_offline, llm_timeout, llm_concurrency, registry
        )
        build = {"seed": seed, "scale": scale, "rows": rows, "tasks_per_family": tasks_per_family}
        chosen = llm_options.options(llm_passes, llm_proposals, llm_attempts, **build)
        llm_options.batch_scenarios(
            scenarios, settings, chosen, registry, work, summary_path, workers, dask_address, no_prefect, as_json
        )
        return
    if n is None:
        fail("--n N is required (or --scenarios FILE with --llm MODEL)")

    names = [d.strip() for d in domains.split(",")] if domains is not None else None
    try:
        plan = plain.plan_batch(
            n, names, seed, variant=random_variant, tasks_per_family=tasks_per_family, scale=scale, rows=rows
        )
    except ValueError as exc:
        fail(str(exc))
    if no_prefect and dask_address is not None:
        fail("--dask-address runs the Prefect flow; drop --no-prefect")
    root = work or plain.default_work_root(registry)
    parameters: dict[str, Any] = {
        "n": n,
        "domains": names,
        "seed": seed,
        "registry": registry,
        "work": str(root),
        "variant": random_variant,
        "tasks_per_family": tasks_per_family,
        "scale": scale,
        "rows": rows,
        "summary_path": str(summary_path) if summary_path else None,
    }
    if no_prefect or (dask_address is None and plain.all_published(plan, registry)):
        if not no_prefect:
            typer.echo(f"all {n} environments are already published: nothing to run", err=True)
        with progress_display(not as_json or sys.stderr.isatty()):
            summary = _without_prefect(plain, parameters)
    else:
        quiet_prefect()
        if dask_address is not None and _api_url() is None:
            fail(
                "Dask workers report to a Prefect server: run `prefect server start` and "
                "export PREFECT_API_URL=http://127.0.0.1:4200/api first"
            )
        typer.echo(f"starting Prefect flow generate_batch for {n} environments…", err=True)
        from flows.batch import run_batch

        with progress_display(not as_json or sys.stderr.isatty()):
            summary = run_batch(workers=workers, dask_address=dask_address, **parameters)
    if as_json:
        sys.stdout.write(json.dumps(summary, sort_keys=True) + "\n")
    else:
        _print(summary)
    if not summary["ok"]:
        raise typer.Exit(1)


def _without_prefect(plain: Any, p: dict[str, Any]) -> dict[str, Any]:
    import time

    plan = plain.plan_batch(
        p["n"],
        p["domains"],
        p["seed"],
        variant=p["variant"],
        tasks_per_family=p["tasks_per_family"],
        scale=p["scale"],
        rows=p["rows"],
    )
    start = time.perf_counter()
    results = plain.run_batch(plan, Path(p["work"]), p["registry"], run={"flow": "none"})
    summary: dict[str, Any] = plain.summarise(results, time.perf_counter() - start, p["registry"])
    target = Path(p["summary_path"] or Path(p["work"]) / plain.SUMMARY_FILE)
    summary["summary_path"] = str(plain.write_summary(summary, target))
    return summary


def _print(s: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    out = Console(soft_wrap=True)
    table = Table("environment", "status", "tasks", "dropped", "seconds", "digest or error")
    for r in s["results"]:
        error = r["error"] or ""
        detail = r["digest"] or (error if len(error) <= 60 else error[:59] + "…")
        style = "red" if r["status"] == "failed" else None
        table.add_row(
            r["ref"] or r["name"],
            r["status"],
            str(r["tasks"]),
            str(sum(r["dropped"].values())),
            f"{sum(r['seconds'].values()):.2f}",
            escape(detail),
            style=style,
        )
    out.print(table)
    for r in s["results"]:
        if r["status"] == "failed":
            out.print(f"[red]failed[/] {escape(r['name'])}: {escape(r['error'])}", highlight=False)
    c = s["counts"]
    out.print(
        f"{s['environments']} environments: {c['published']} published, {c['unchanged']} unchanged, "
        f"{c['skipped']} skipped, {c['failed']} failed; {s['tasks']} tasks in {s['seconds']:.1f} s"
    )
    out.print(f"summary {s['summary_path']}")


def register(app: typer.Typer) -> None:
    app.command("batch")(batch)
