"""``generate --scenario … --llm MODEL`` and ``batch --scenarios FILE --llm MODEL``: LLM-designed worlds.

The options are declared here once and used by both commands; ``main.generate`` and
``batch.batch`` hand over to the functions below when a scenario is given. litellm and
Prefect are imported only when a command runs.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any, NoReturn

import typer

from pipeline.cli.common import emit_json, err, fail, out, quiet_prefect

CACHE_DIR = ".llm-cache"

MODEL = typer.Option(
    None,
    "--llm",
    help="litellm model that designs the world (openai/gpt-4o-mini, anthropic/claude-…, openai/NAME with "
    "--llm-base-url); keys from the provider's usual environment variables",
)
BASE_URL = typer.Option(None, "--llm-base-url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
CACHE = typer.Option(None, "--llm-cache", help="reply cache directory (default: <registry>/.llm-cache)")
OFFLINE = typer.Option(False, "--llm-offline", help="use cached replies only; refuse any request not in the cache")
PASSES = typer.Option(
    "vocab,paraphrase,proposals",
    "--llm-passes",
    help="optional LLM passes after the blueprint: any of vocab, paraphrase, proposals, or 'none'",
)
PROPOSALS = typer.Option(6, "--llm-proposals", min=1, max=50, help="task proposals asked for")
ATTEMPTS = typer.Option(3, "--llm-attempts", min=1, max=10, help="blueprint replies at most (first + corrections)")
TIMEOUT = typer.Option(120.0, "--llm-timeout", min=1.0, max=3600.0, help="seconds per request")
CONCURRENCY = typer.Option(4, "--llm-concurrency", min=1, max=64, help="requests in flight at most")


def default_cache_dir(registry: str | None) -> Path:
    """``<registry>/.llm-cache`` for a local registry, else ``artifacts/.llm-cache``."""
    from urllib.parse import urlsplit

    from pipeline.registry.registry import DEFAULT_REGISTRY, default_registry

    url = registry if registry is not None else default_registry()
    parts = urlsplit(url)
    if parts.scheme in ("", "file"):
        return Path(parts.path if parts.scheme == "file" else url) / CACHE_DIR
    return Path(DEFAULT_REGISTRY) / CACHE_DIR


def settings(
    model: str | None,
    base_url: str | None,
    cache: Path | None,
    offline: bool,
    timeout: float,
    concurrency: int = 4,
    registry: str | None = None,
) -> Any:
    from pipeline.llm.client import LLMSettings

    if not model:
        fail("--llm MODEL is required with a scenario (e.g. --llm openai/gpt-4o-mini)")
    try:
        return LLMSettings(
            model=model,
            base_url=base_url,
            cache_dir=str(cache or default_cache_dir(registry)),
            offline=offline,
            timeout=timeout,
            concurrency=concurrency,
        )
    except ValueError as exc:
        fail(str(exc))


def options(passes: str, proposals: int, attempts: int, **build: Any) -> Any:
    from pipeline.jobs.scenario import ScenarioOptions

    names = tuple(p.strip() for p in passes.split(",") if p.strip() and p.strip() != "none")
    try:
        return ScenarioOptions(passes=names, proposals=proposals, attempts=attempts, **build)
    except ValueError as exc:
        fail(str(exc))


def _llm_failed(exc: Exception) -> NoReturn:
    fail(str(exc), code=1)


def generate_scenario(text: str, llm_settings: Any, scenario_options: Any, out_dir: Path, no_prefect: bool,
                      as_json: bool) -> None:  # fmt: skip
    """Design, build and prove one environment from ``"NAME: description"``."""
    from pipeline.jobs.steps import reporter
    from pipeline.llm.client import LLMError
    from pipeline.llm.scenario import parse_scenario

    try:
        scenario = parse_scenario(text)
    except ValueError as exc:
        fail(str(exc))

    def report(step: str, seconds: float | None) -> None:
        if seconds is None:
            err.print(f"[cyan]>[/] {step} ...")
        else:
            err.print(f"[green]✓[/] {step} [dim]{seconds:.2f}s[/]")

    token = reporter.set(report)
    try:
        if no_prefect:
            from pipeline.jobs.scenario import generate_scenario as run_steps

            with tempfile.TemporaryDirectory(prefix="synthenv-") as work:
                result = run_steps(scenario, llm_settings, scenario_options, out_dir, Path(work))
        else:
            quiet_prefect()
            err.print("[dim]starting Prefect flow generate_from_scenario (first run starts a local server)…[/]")
            from flows.generate import generate_from_scenario

            result = generate_from_scenario(scenario, llm_settings, scenario_options, str(out_dir))
    except (LLMError, ValueError) as exc:  # a provider that gave up, or a world that could not be built
        _llm_failed(exc)
    finally:
        reporter.reset(token)
    if as_json:
        emit_json(result)
    else:
        print_scenario(result, llm_settings.model)
    if result["status"] != "built":
        raise typer.Exit(1)


def _usage_table(llm: dict[str, Any], title: str) -> Any:
    from rich.table import Table

    table = Table(
        "step", "calls", "cached", "attempts", "prompt tok", "completion tok", "cost $", "cached cost $", title=title
    )
    for name, u in [*llm["steps"].items(), ("total", llm["total"])]:
        table.add_row(
            name,
            str(u["calls"]),
            str(u["cached"]),
            str(u["attempts"]),
            str(u["prompt_tokens"]),
            str(u["completion_tokens"]),
            f"{u['cost_usd']:.6f}",
            f"{u['cost_usd_cached']:.6f}",
            style="bold" if name == "total" else None,
        )
    return table


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "none"


MAX_CLEANED_SHOWN = 10


def print_scenario(s: dict[str, Any], model: str) -> None:
    from rich.markup import escape

    if s["status"] != "built":
        out.print(f"[bold red]dropped[/] scenario {escape(s['scenario'])!s}: nothing was written", highlight=False)
        for reason in s["reasons"]:
            out.print(f"  {escape(reason)}", highlight=False)
    else:
        out.print(f"[bold]{s['name']}@{s['version']}[/] (scenario {escape(s['scenario'])}, model {model})")
        out.print(
            f"  tables {s['tables']}, rows {s['rows']}, tools {s['tools']}, tasks proven {s['tasks']}, "
            f"dropped {_counts(s['dropped'])}"
        )
        out.print(
            f"  blueprint in {s['blueprint_attempts']} attempt(s); vocabularies kept {s['vocabularies']['kept']} "
            f"(rejected {_counts(s['vocabularies']['rejected'])}); paraphrases accepted "
            f"{s['paraphrases']['accepted']} (rejected {_counts(s['paraphrases']['rejected'])}); proposals kept "
            f"{s['proposals']['kept']} (dropped {_counts(s['proposals']['dropped'])})"
        )
        cleaned = s.get("cleaned", [])
        if cleaned:  # model text changed before it was kept: an agent reads these places
            out.print(f"  model text cleaned in {len(cleaned)} place(s):", highlight=False)
            for line in cleaned[:MAX_CLEANED_SHOWN]:
                out.print(f"    {escape(line)}", highlight=False)
            if len(cleaned) > MAX_CLEANED_SHOWN:
                out.print(f"    … {len(cleaned) - MAX_CLEANED_SHOWN} more (--json lists all)", highlight=False)
        out.print(f"  path   {s['path']}")
        out.print(f"  digest {s['digest']}")
    out.print(
        _usage_table(
            s["llm"], f"LLM usage ({model}); cost from litellm's local cost map, cached replies cost nothing now"
        )
    )
    out.print("  seconds " + ", ".join(f"{k} {v:.2f}" for k, v in s["seconds"].items()))


def batch_scenarios(
    path: Path,
    llm_settings: Any,
    scenario_options: Any,
    registry: str | None,
    work: Path | None,
    summary_path: Path | None,
    workers: int,
    dask_address: str | None,
    no_prefect: bool,
    as_json: bool,
) -> None:
    """Design, build and publish one environment per scenario line; exit 1 if any failed."""
    import json

    from pipeline.jobs.batch import default_work_root
    from pipeline.llm.client import LLMError
    from pipeline.llm.scenario import load_scenarios

    try:
        scenarios, invalid = load_scenarios(path)
    except (OSError, ValueError) as exc:
        fail(str(exc))
    if not scenarios and not invalid:
        fail(f"{path}: no scenarios (one JSON object per line with name and description)")
    root = work or default_work_root(registry)
    try:
        if no_prefect:
            from pipeline.jobs.scenario_batch import run_scenario_batch

            summary = run_scenario_batch(
                scenarios, llm_settings, scenario_options, root, registry, invalid, summary_path
            )
        else:
            quiet_prefect()
            typer.echo(f"starting Prefect flow generate_scenario_batch for {len(scenarios)} scenarios…", err=True)
            from flows.batch import run_scenario_batch as run_flow

            summary = run_flow(
                workers=workers,
                dask_address=dask_address,
                scenarios=scenarios,
                settings=llm_settings,
                options=scenario_options,
                registry=registry,
                work=str(root),
                summary_path=str(summary_path) if summary_path else None,
                invalid=invalid,
            )
    except LLMError as exc:
        _llm_failed(exc)
    if as_json:
        sys.stdout.write(json.dumps(summary, sort_keys=True) + "\n")
    else:
        print_batch(summary, llm_settings.model)
    if not summary["ok"]:
        raise typer.Exit(1)


def print_batch(s: dict[str, Any], model: str) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table("scenario", "status", "tasks", "tokens", "cost $", "digest or reasons")
    for r in s["results"]:
        t = r["llm"]["total"]
        detail = r["digest"] or "; ".join(r["reasons"])
        table.add_row(
            escape(r["scenario"]),
            r["status"],
            str(r["tasks"]),
            str(t["prompt_tokens"] + t["completion_tokens"]),
            f"{t['cost_usd']:.6f}",
            escape(detail if len(detail) <= 100 else detail[:99] + "…"),
            style="red" if r["status"] == "failed" else None,
        )
    out.print(table)
    out.print(_usage_table(s["llm"], f"LLM usage per step ({model})"))
    d = s["distinct"]
    out.print(f"near-duplicate threshold {d['threshold']}: {len(d['rejections'])} rejected")
    for r in d["rejections"]:
        out.print(f"  {escape(r['name'])} ~ {escape(r['like'])} ({r['kind']}, {r['similarity']})", highlight=False)
    c = s["counts"]
    out.print(", ".join(f"{v} {k}" for k, v in c.items() if v) + f"; {s['tasks']} tasks in {s['seconds']:.1f} s")
    out.print(f"summary {s['summary_path']}")
