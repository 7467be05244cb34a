"""The ``synthenv`` command line.

Heavy imports (Prefect, the web stack) happen inside the commands that need them, so
``synthenv --help`` and the read-only commands start fast. ``--json`` output goes to
stdout alone; progress and logs go to stderr.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from pipeline.cli import llm as llm_options
from pipeline.cli.common import MAX_ROWS, MIN_ROWS, emit_json, err, fail, out, plain, progress_display, quiet_prefect
from pipeline.cli.startup import Group, use_startup_classes

if TYPE_CHECKING:  # for annotations only: the command line imports its steps when a command runs
    from pipeline.jobs.recipe import Reporter
    from pipeline.jobs.steps import Inputs

app = typer.Typer(
    cls=Group, add_completion=False, no_args_is_help=True, help="Generate, check and serve RL environments."
)


@app.command()
def domains(as_json: bool = typer.Option(False, "--json", help="machine-readable output")) -> None:
    """List the domain templates a tool-use environment can be generated from."""
    from pipeline.world.catalog import catalog_index

    rows = catalog_index()
    if as_json:
        emit_json(rows)
        return
    from rich.table import Table

    table = Table("domain", "title", "entities", "operations")
    for r in rows:
        table.add_row(r["name"], r["title"], str(r["entities"]), str(r["operations"]))
    out.print(table)


@app.command()
def generate(
    domain: str | None = typer.Option(
        None,
        help="domain template (see `synthenv domains`); default online_store, or with --random one picked by the seed",
    ),
    seed: int = typer.Option(0, min=0, help="seed; same inputs give the same bundle digest"),
    out_dir: Path = typer.Option(Path("artifacts"), "--out", help="directory bundles are written under"),
    scale: float = typer.Option(
        1.0, min=0.001, max=25_000, help="row-count multiplier for every table (0.001 to 25,000)"
    ),
    rows: int | None = typer.Option(
        None,
        min=MIN_ROWS,
        max=MAX_ROWS,
        help=(
            "rows of the largest table that grows with the world (10 to 1,000,000), the others in proportion;"
            " fixed lists keep their size (overrides --scale)"
        ),
    ),
    random_variant: bool = typer.Option(
        False,
        "--random",
        help="vary the blueprint by the seed (tables, fields, "
        "enums, naming); without --domain the seed also picks the domain",
    ),
    tasks_per_family: int = typer.Option(6, help="task candidates proposed per family"),
    version: str = typer.Option("1.0.0", help="semver of the bundle"),
    no_prefect: bool = typer.Option(False, "--no-prefect", help="run the steps without the Prefect flow"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as one JSON object"),
    scenario: str | None = typer.Option(
        None, "--scenario", help='"NAME: description": an LLM designs the world (needs --llm and the llm extra)'
    ),
    llm: str | None = llm_options.MODEL,
    llm_base_url: str | None = llm_options.BASE_URL,
    llm_cache: Path | None = llm_options.CACHE,
    llm_offline: bool = llm_options.OFFLINE,
    llm_passes: str = llm_options.PASSES,
    llm_proposals: int = llm_options.PROPOSALS,
    llm_attempts: int = llm_options.ATTEMPTS,
    llm_timeout: float = llm_options.TIMEOUT,
) -> None:
    """Run the generate_environment flow: schema, populate, tools, tasks, package.

    With --scenario, the generate_from_scenario flow: an LLM designs the blueprint (validated, corrected,
    cached), then the same steps build and prove it."""
    from pipeline.jobs.steps import Inputs, reporter
    from pipeline.world.blueprint import load_blueprint

    if scenario is not None or llm is not None:
        if scenario is None or domain is not None or random_variant:
            fail("--scenario and --llm go together, without --domain or --random")
        settings = llm_options.settings(llm, llm_base_url, llm_cache, llm_offline, llm_timeout)
        build = {"seed": seed, "scale": scale, "rows": rows, "tasks_per_family": tasks_per_family, "version": version}
        chosen = llm_options.options(llm_passes, llm_proposals, llm_attempts, **build)
        llm_options.generate_scenario(scenario, settings, chosen, out_dir, no_prefect, as_json)
        return
    try:
        if domain is None:
            if random_variant:
                from pipeline.world.variants import pick_domain

                domain = pick_domain(seed)
            else:
                domain = "online_store"
        inputs = Inputs(
            domain=domain,
            seed=seed,
            scale=scale,
            tasks_per_family=tasks_per_family,
            version=version,
            rows=rows,
            variant=random_variant,
        )
        load_blueprint(domain)
    except ValueError as exc:
        fail(str(exc))

    def report(step: str, seconds: float | None) -> None:
        if seconds is None:
            err.print(f"[cyan]>[/] {step} ...")
        else:
            err.print(f"[green]✓[/] {step} [dim]{seconds:.2f}s[/]")

    token = reporter.set(report)
    try:
        with progress_display():
            if no_prefect:
                from pipeline.jobs.steps import generate as run_steps

                with tempfile.TemporaryDirectory(prefix="synthenv-") as work:
                    result = run_steps(inputs, out_dir, Path(work))
            else:
                quiet_prefect()
                result = _through_prefect(inputs, out_dir, report)
    finally:
        reporter.reset(token)
    if as_json:
        emit_json(result)
        return
    _print_summary(result)


def _through_prefect(inputs: Inputs, out_dir: Path, report: Reporter) -> dict[str, Any]:
    """The generate_environment flow: in the warm runner of ``synthenv prefect start`` when it runs
    this code (no Prefect import here), else in this process."""
    from pipeline.jobs import prefect_runner

    runner = prefect_runner.usable()
    if runner is not None:
        err.print(f"[dim]running the Prefect flow generate_environment in the warm runner (pid {runner.pid})[/]")
        try:
            return prefect_runner.generate(runner, inputs, out_dir, report)
        except prefect_runner.RunnerError as exc:  # the codes an in-process run's exception gets
            if exc.kind == "VersionExists":
                fail(str(exc), "refused")
            fail(f"{exc.kind}: {exc} (the warm runner's log shows where)", "internal")
        except ConnectionError as exc:
            fail(str(exc), "unavailable")
    err.print("[dim]running the Prefect flow generate_environment[/]")
    from flows.generate import generate_environment

    return generate_environment(inputs, str(out_dir))


def _print_summary(s: dict[str, Any]) -> None:
    dropped = ", ".join(f"{k}: {v}" for k, v in s["dropped"].items()) or "none"
    out.print(f"[bold]{plain(s['name'])}@{plain(s['version'])}[/] ({plain(s['domain'])}, seed {s['seed']})")
    out.print(
        f"  tables {s['tables']}, rows {s['rows']}, tools {s['tools']}, tasks proven {s['tasks']}, dropped {dropped}"
    )
    exploits = s.get("exploits") or {}
    if exploits:
        tried = sum(v["attempts"] for v in exploits.values())
        beaten = ", ".join(f"{k}: {v['dropped']}" for k, v in exploits.items() if v["dropped"]) or "none"
        out.print(
            f"  exploits {len(exploits)} run, {tried} attempts on shipped tasks, "
            f"{sum(v['passed'] for v in exploits.values())} passed; candidates dropped by exploit: {beaten}"
        )
    out.print(f"  path   {plain(s['path'])}")
    out.print(f"  digest {s['digest']}")
    out.print("  seconds " + ", ".join(f"{k} {v:.2f}" for k, v in s["seconds"].items()))


@app.command()
def check(
    bundle: Path = typer.Argument(..., help="bundle directory"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Re-prove every task: gold replay scores 1.0, every exploit of the library 0.0. Exit 1 on any failure.

    A procedural bundle: every item's gold answer must score 1.0 and junk 0.0, and a 1 MiB
    answer must score within 50 ms (``generators.soundness.check_bundle``)."""
    from pipeline.cli.common import bundle_kind, open_bundle

    opened = open_bundle(bundle, command="check")
    if bundle_kind(opened.manifest) == "procedural":
        _check_procedural(opened, as_json)
        return
    from pipeline.bundle.format import BundleError
    from pipeline.tasks.check import check_bundle

    try:
        report = check_bundle(bundle)
    except BundleError as exc:
        fail(str(exc), "refused")
    if as_json:
        emit_json(report.as_dict())
    else:
        out.print(f"{plain(report.bundle)} {report.digest}: {report.passed}/{report.tasks} tasks proven")
        counts = report.exploits.as_dict()
        passing = ", ".join(f"{k}: {v['passed']}" for k, v in counts.items() if v["passed"]) or "none"
        attempts = sum(v["attempts"] for v in counts.values())
        out.print(f"  exploit library: {len(counts)} exploits, {attempts} attempts; passing: {passing}")
        for task_id, reason in report.failures.items():
            out.print(f"  [red]FAIL[/] {plain(task_id)}: {plain(reason)}")
    if not report.ok:
        raise typer.Exit(1)


def _check_procedural(bundle: Any, as_json: bool) -> None:
    from generators.soundness import check_bundle

    report = check_bundle(bundle)
    if as_json:
        emit_json(report)
    else:
        worst = report["huge_answer_worst"]
        out.print(
            f"{plain(report['bundle'])} {report['digest']}: {report['passed']}/{report['tasks']} items "
            f"(gold 1.0, junk 0.0; slowest 1 MiB answer {worst['ms']} ms: {worst['family']} {worst['shape']})"
        )
        for task_id, reason in report["failures"].items():
            out.print(f"  [red]FAIL[/] {plain(task_id)}: {plain(reason)}")
    if report["failures"]:
        raise typer.Exit(1)


@app.command()
def info(
    bundle: Path = typer.Argument(..., help="bundle directory"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Print the manifest summary of a bundle (after checking its digests)."""
    from pipeline.cli.common import open_bundle

    b = open_bundle(bundle, command="info")
    m = b.manifest
    summary = {
        k: m.get(k)
        for k in (
            "name",
            "version",
            "digest",
            "kind",
            "domain",
            "seed",
            "frozen_clock",
            "generator_version",
            "knobs",
            "counts",
            "lineage",
        )
    }
    summary["path"] = str(b.path)
    if as_json:
        emit_json(summary)
        return
    for key, text in _readable_info(summary).items():
        out.print(f"[bold]{key:>17}[/] {plain(text)}")


def _readable_info(summary: dict[str, Any]) -> dict[str, str]:
    """The summary as short lines a person reads: fields a bundle kind does not have are left out,
    knobs as ``key=value``, counts as totals (``--json`` keeps every figure)."""
    rows: dict[str, str] = {}
    for key, value in summary.items():
        if value is None or key in ("counts", "lineage"):
            continue
        if isinstance(value, dict):
            value = ", ".join(f"{k}={_short(v)}" for k, v in sorted(value.items()) if v is not None)
        rows[key] = str(value)
    counts = summary.get("counts") or {}
    if isinstance(counts, dict):
        tasks = counts.get("tasks")
        parts = [f"{tasks} tasks" if tasks is not None else ""]
        if counts.get("candidates") is not None:
            parts.append(f"{counts['candidates']} candidates")
        dropped = counts.get("dropped") or {}
        if isinstance(dropped, dict) and dropped:
            parts.append(f"{sum(v for v in dropped.values() if isinstance(v, int))} dropped ({len(dropped)} reasons)")
        exploits = counts.get("exploits") or {}
        if isinstance(exploits, dict) and exploits:
            passed = sum(int(v.get("passed", 0)) for v in exploits.values() if isinstance(v, dict))
            parts.append(f"{len(exploits)} exploits tried, {passed} passed")
        per_family = counts.get("per_family") or {}
        if isinstance(per_family, dict) and per_family:
            parts.append(", ".join(f"{k} {v}" for k, v in sorted(per_family.items())))
        rows["counts"] = "; ".join(p for p in parts if p)
    lineage = summary.get("lineage") or {}
    if isinstance(lineage, dict) and lineage.get("parent"):
        rows["parent"] = str(lineage["parent"])
    rows["path"] = rows.pop("path")
    return rows


def _short(value: Any) -> str:
    text = (
        ",".join(map(str, value))
        if isinstance(value, list)
        else json.dumps(value)
        if isinstance(value, dict)
        else str(value)
    )
    return text if len(text) <= 80 else text[:77] + "..."


def main() -> None:
    """Run the command line: every outcome is an exit code of ``EXIT_CODES``, and an unexpected
    exception one error line (or, under ``--json``, one error object) instead of a traceback."""
    import os
    import sys

    from pipeline.cli.common import EXIT_CODES, json_requested, report_error

    try:
        code = app(standalone_mode=False)
    except typer.Exit as exc:
        code = exc.exit_code
    except typer.Abort:
        code = 130
    except typer.TyperException as exc:  # a usage error: click's own message, or the JSON error object
        if json_requested():
            report_error(exc.format_message(), "usage")  # type: ignore[attr-defined]
        else:
            exc.show()  # type: ignore[attr-defined]
        code = getattr(exc, "exit_code", EXIT_CODES["usage"])
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:
        if _version_exists(exc):  # from any command that writes a bundle version
            report_error(str(exc), "refused")
            code = EXIT_CODES["refused"]
        elif os.environ.get("SYNTHENV_TRACEBACK"):
            raise
        else:
            report_error(f"{type(exc).__name__}: {exc} (SYNTHENV_TRACEBACK=1 shows where)", "internal")
            code = EXIT_CODES["internal"]
    sys.exit(code if isinstance(code, int) else 0)


def _version_exists(exc: Exception) -> bool:
    """Whether ``exc`` is a :class:`pipeline.package.build.VersionExists`, without importing that
    module (SQLAlchemy and the report pages, most of a second) for commands that never write a
    bundle: such an exception exists only if its module was imported."""
    import sys

    build = sys.modules.get("pipeline.package.build")
    return build is not None and isinstance(exc, build.VersionExists)


def _register_command_modules() -> None:
    """Every module of this package that defines ``register(app)`` adds its commands, so a new
    command never means editing a shared list. Modules import heavy dependencies inside commands."""
    import pipeline.cli

    for info in sorted(pkgutil.iter_modules(pipeline.cli.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"pipeline.cli.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(app)
    use_startup_classes(app)


_register_command_modules()


if __name__ == "__main__":
    main()
