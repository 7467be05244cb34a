"""``synthenv evaluate`` (a model or the scripted baselines on a bundle) and ``synthenv calibrate``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from pipeline.cli import llm as llm_options
from pipeline.cli.common import emit_json, err, fail, quiet_prefect, require_extra


def register(app: typer.Typer) -> None:
    app.command(name="evaluate")(evaluate)
    app.command(name="calibrate")(calibrate)


def evaluate(
    bundle: str = typer.Argument(..., help="bundle directory or registry reference (name@1.0.0)"),
    llm: str | None = typer.Option(
        None, "--llm", help="litellm model to evaluate (openai/gpt-4o-mini, openai/NAME with --llm-base-url, …)"
    ),
    policy: str | None = typer.Option(
        None,
        "--policy",
        help="a scripted policy instead of a model: random, refuse, no_tools, reference, literal, first_candidate "
        "or no_computation",
    ),
    run_baselines: bool = typer.Option(
        False, "--baselines", help="run every scripted policy (no model needed) and compare them per level"
    ),
    trials: int = typer.Option(1, "--trials", "-k", min=1, max=1000, help="trials per task (K of pass@K, pass^K)"),
    tasks: str | None = typer.Option(
        None, "--tasks", help="ids, id globs, FAMILY, FAMILY:LEVELS or level:LEVELS, comma-separated (default: all)"
    ),
    max_steps: int | None = typer.Option(None, "--max-steps", min=1, max=1000, help="step budget per episode"),
    temperature: float | None = typer.Option(None, "--temperature", min=0.0, max=2.0, help="sampling temperature"),
    config_file: Path | None = typer.Option(
        None, "--config", help="evaluation config JSON (system prompt, temperature, steps, …); flags override it"
    ),
    concurrency: int = typer.Option(4, "--concurrency", min=1, max=256, help="episodes in flight at most"),
    out: Path | None = typer.Option(
        None, "--out", help="run directory (default artifacts/evaluations/<bundle>/<policy>/<config>-k<K>); resumable"
    ),
    registry: str | None = typer.Option(None, "--registry", help="registry to pull a reference from"),
    llm_base_url: str | None = llm_options.BASE_URL,
    llm_cache: Path | None = llm_options.CACHE,
    llm_offline: bool = llm_options.OFFLINE,
    llm_timeout: float | None = typer.Option(
        None, "--llm-timeout", min=1.0, max=3600.0, help="seconds per request (an unanswered one is an error)"
    ),
    no_prefect: bool = typer.Option(False, "--no-prefect", help="run the same steps without the orchestrator"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as one JSON object"),
) -> None:
    """Run a tool-calling agent (or scripted baselines) on every selected task, K trials each; report pass@1,
    pass@K and pass^K per family × level with Wilson intervals. Re-running with the same --out resumes."""
    from pipeline.bundle.format import BundleError
    from pipeline.evaluate.config import EvalConfig
    from pipeline.llm.client import LLMError
    from pipeline.registry.registry import RegistryError

    chosen = sum([llm is not None, policy is not None, run_baselines])
    if chosen != 1:
        fail("give exactly one of --llm MODEL, --policy NAME or --baselines")
    if llm is not None:
        require_extra("llm", "litellm", "tenacity")
    if policy is not None:
        _check_policy(policy)
    _check_target(bundle, registry)
    _check_tasks(bundle, tasks)
    if out is not None:
        _check_run_dir(out)
    try:
        config = EvalConfig.load(config_file) if config_file else EvalConfig()
        config = config.with_overrides(max_steps=max_steps, temperature=temperature, request_timeout=llm_timeout)
        settings = _settings(config, llm, llm_base_url, llm_cache, llm_offline, concurrency, registry) if llm else None
        if run_baselines:
            summary = _baselines(bundle, registry, config, trials, tasks, out, no_prefect)
        else:
            summary = _one(bundle, registry, policy, settings, config, trials, tasks, out, concurrency, no_prefect)
    except (ValueError, BundleError, RegistryError, LLMError) as exc:
        fail(str(exc))
    if as_json:
        emit_json({k: v for k, v in summary.items() if k != "text"})
        return
    if run_baselines:
        for text in summary["text"].values():
            sys.stdout.write(text + "\n")
        sys.stdout.write(summary["table"])
        free = summary["trivial_passes"]
        if free:
            sys.stdout.write(f"! {len(free)} family × level cell(s) where a trivial policy passes:\n")
            for f in free:
                sys.stdout.write(f"  {f['policy']}: {f['family']} L{f['level']} pass@1 {f['pass_at_1']:.2f}\n")
        sys.stdout.write(f"report {summary['out']}/report.html\n")
        return
    sys.stdout.write(summary["text"])
    for message in summary["error_examples"]:
        sys.stdout.write(f"  error: {message}\n")
    t = summary["timing"]
    per = "" if t["seconds_per_episode"] is None else f", {t['seconds_per_episode']:.3f} s per episode"
    sys.stdout.write(
        f"played {t['episodes_played']} episode(s), resumed {t['episodes_resumed']}, {t['seconds']:.1f} s{per} "
        f"(concurrency {t['concurrency']}, load {t['load_average']})\n"
    )
    u = summary["usage"]
    if u["calls"]:
        sys.stdout.write(
            f"model calls {u['calls']} (cached {u['cached']}), tokens {u['prompt_tokens']} in / "
            f"{u['completion_tokens']} out, cost ${u['cost_usd']:.6f}\n"
        )
    sys.stdout.write(f"report {summary['out']}/report.html\n")


def _check_policy(name: str) -> None:
    """An unknown ``--policy`` is a usage error before Prefect starts (it took 12 s and a traceback)."""
    from pipeline.evaluate.baselines import known_baselines

    if name not in known_baselines():
        fail(f"unknown --policy {name!r}; known: {', '.join(known_baselines())}")


def _check_target(bundle: str, registry: str | None) -> None:
    """The bundle argument names a directory or a registry reference, checked before Prefect starts: a path
    that is not there, or a reference the registry does not hold, is ``not_found``; a malformed reference
    ``usage`` (only the index is read here; the run pulls the bundle)."""
    from pipeline.cli.registry import registry_code
    from pipeline.registry.entries import Ref, RegistryError
    from pipeline.registry.registry import Registry

    path = Path(bundle)
    if path.is_dir():
        return
    if path.exists():
        fail(f"{bundle}: not a bundle directory")
    if "/" in bundle or "\\" in bundle or bundle.startswith("."):
        fail(f"{bundle}: no such bundle directory", "not_found")
    try:
        Registry(registry).resolve(Ref.parse(bundle))
    except RegistryError as exc:
        fail(str(exc), registry_code(exc))


def _check_tasks(bundle: str, selection: str | None) -> None:
    """A ``--tasks`` item that matches nothing is a usage error before Prefect starts (it took 13 s and a
    traceback). Only a local directory's tasks.jsonl is read here; a registry reference is checked once
    pulled, and a tasks.jsonl this cannot read is left to the run's own bundle check."""
    import json

    from pipeline.evaluate.runner import select

    if not selection or not Path(bundle).is_dir():
        return
    rows = []
    try:
        for line in (Path(bundle) / "tasks.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                task = json.loads(line)
                meta = task.get("metadata", task)  # procedural items keep family and level there
                rows.append((str(task["id"]), str(meta["family"]), int(meta["level"])))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return
    try:
        select(rows, selection)
    except ValueError as exc:
        fail(str(exc))


def _check_run_dir(out: Path) -> None:
    """An existing ``--out`` is resumed, so what it holds is input: ``run.json`` a JSON object and
    each ``episodes.jsonl`` row an object, else a usage error naming the file and line (a line cut
    short by an interrupted write is left to the resume, which replays that episode)."""
    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file; a run directory is expected")
    run = out / "run.json"
    if run.exists():
        try:
            data = json.loads(run.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            fail(f"{run}: not a readable run record ({exc})")
        if not isinstance(data, dict):
            fail(f"{run}: a run record is a JSON object, got a {type(data).__name__}")
    rows = out / "episodes.jsonl"
    if rows.exists():
        try:
            with rows.open("rb") as fh:
                for number, raw in enumerate(fh, start=1):
                    try:
                        row = json.loads(raw) if raw.strip() else {}
                    except ValueError:
                        continue
                    if not isinstance(row, dict):
                        fail(f"{rows}: line {number} is a JSON {type(row).__name__}, not an episode row")
        except OSError as exc:
            fail(f"{rows}: cannot read ({exc.strerror or exc})")


def _settings(
    config: Any, model: str, base_url: str | None, cache: Path | None, offline: bool, concurrency: int, registry: Any
) -> Any:
    from pipeline.llm.client import LLMSettings

    return LLMSettings(
        model=model,
        base_url=base_url,
        cache_dir=str(cache or llm_options.default_cache_dir(registry)),
        offline=offline,
        timeout=config.request_timeout,
        retries=config.retries,
        concurrency=min(concurrency, 64),
        temperature=config.temperature,
        max_tokens=config.max_tokens,
    )


def _one(
    bundle: str,
    registry: str | None,
    policy: str | None,
    settings: Any,
    config: Any,
    trials: int,
    tasks: str | None,
    out: Path | None,
    concurrency: int,
    no_prefect: bool,
) -> dict[str, Any]:
    if no_prefect:
        from pipeline.jobs.evaluate import Target, evaluate

        return evaluate(
            Target(bundle, registry),
            policy=policy,
            settings=settings,
            config=config,
            trials=trials,
            tasks=tasks,
            out=out,
            concurrency=concurrency,
        )
    quiet_prefect()
    err.print("[dim]starting Prefect flow evaluate_bundle (first run starts a local server)…[/]")
    from flows.evaluate import run_evaluation

    return run_evaluation(
        concurrency=concurrency,
        bundle=bundle,
        registry=registry,
        policy=policy,
        settings=settings,
        config=config.as_dict(),
        trials=trials,
        tasks=tasks,
        out=str(out) if out else None,
    )


def _baselines(
    bundle: str, registry: str | None, config: Any, trials: int, tasks: str | None, out: Path | None, no_prefect: bool
) -> dict[str, Any]:
    if no_prefect:
        from pipeline.jobs.evaluate import Target, baselines

        return baselines(Target(bundle, registry), trials=trials, tasks=tasks, out=out, config=config)
    quiet_prefect()
    err.print("[dim]starting Prefect flow evaluate_baselines (first run starts a local server)…[/]")
    from flows.evaluate import evaluate_baselines

    return evaluate_baselines(
        bundle, registry, config=config.as_dict(), trials=trials, tasks=tasks, out=str(out) if out else None
    )


def calibrate(
    bundle: str = typer.Argument(..., help="the evaluated bundle: directory or registry reference"),
    runs: list[Path] = typer.Argument(..., help="evaluation run directories (or their report.json), same bundle"),
    version: str | None = typer.Option(None, "--version", help="calibrated version (default: the minor bump)"),
    out_dir: Path = typer.Option(Path("artifacts"), "--out", help="directory bundles are written under"),
    publish: bool = typer.Option(False, "--publish", help="publish the calibrated version to --registry"),
    registry: str | None = typer.Option(None, "--registry", help="registry directory or fsspec URL"),
    as_json: bool = typer.Option(False, "--json", help="print the result as one JSON object"),
) -> None:
    """Write the evaluations back as calibration (observed difficulty per task) into a new bundle version:
    its manifest and report carry the figures; lineage parent = the evaluated version."""
    from pipeline.bundle.format import BundleError
    from pipeline.evaluate.calibrate import calibrate as write_calibrated
    from pipeline.evaluate.calibrate import read_report
    from pipeline.jobs.evaluate import Target, open_target
    from pipeline.package.build import VersionExists
    from pipeline.registry.registry import Registry, RegistryError

    try:
        parent, _ = open_target(Target(bundle, registry))
        result = write_calibrated(parent, [read_report(r) for r in runs], out_dir, version)
        published = None
        if publish:
            p = Registry(registry).publish(result.path, run={"command": "calibrate", "parent": parent.ref})
            published = {"ref": p.entry.ref, "digest": p.entry.digest, "created": p.created}
    except VersionExists as exc:  # a version is never rewritten: refused, as generate says it
        fail(str(exc), "refused")
    except (ValueError, BundleError, RegistryError) as exc:
        fail(str(exc))
    summary = {
        "path": str(result.path),
        "ref": result.ref,
        "digest": result.digest,
        "parent": parent.ref,
        "runs": [r["policy"] for r in calibration.runs] if (calibration := result.manifest.calibration) else [],
        "published": published,
    }
    if as_json:
        emit_json(summary)
        return
    sys.stdout.write(
        f"{summary['ref']} (parent {summary['parent']}), calibrated from {', '.join(summary['runs'])}\n"
        f"  path   {summary['path']}\n  digest {summary['digest']}\n"
        + (f"  published {published['ref']}\n" if published else "")
    )
