"""Deployments with cron schedules, served by this process: ``python -m flows.deploy``.

``serve`` registers the deployments with the Prefect server ``PREFECT_API_URL`` names
and runs their scheduled (and manually triggered) runs here until stopped with SIGTERM
or Ctrl-C. The same deployments for a work pool and workers are declared in
``prefect.yaml`` at the repository root (``prefect deploy --all``).

Schedules need a real server (``prefect server start``): Prefect's temporary
in-process server cannot schedule, so this refuses to start without ``PREFECT_API_URL``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import typer

BATCH_CRON = "0 2 * * *"
CURRICULUM_CRON = "30 * * * *"
PROCEDURAL_CRON = "0 3 * * 0"


@dataclass(frozen=True)
class Options:
    """What ``python -m flows.deploy`` was asked for (the command line's options, parsed)."""

    batch_cron: str = BATCH_CRON
    n: int = 20
    domains: list[str] | None = None
    seed: int = 0
    tasks_per_family: int = 6
    registry: str | None = None
    work: str | None = None
    workers: int = 1
    dask_address: str | None = None
    procedural_cron: str = PROCEDURAL_CRON
    families: list[str] = field(default_factory=lambda: ["gcd_lcm", "maze", "sudoku"])
    procedural_n: int = 1000
    out: str = "artifacts"
    results: str | None = None
    state: str | None = None
    curriculum_cron: str = CURRICULUM_CRON
    limit: int = 1


def deployments(args: Options) -> list[Any]:
    """The deployments to serve: nightly batch, weekly procedural bundle, hourly curriculum (given --results)."""
    from prefect.types.entrypoint import EntrypointType

    from flows.batch import generate_batch
    from flows.curriculum import update_curriculum
    from flows.procedural import build_procedural

    # By module path, so the runner finds the flows from any working directory.
    module: dict[str, Any] = {"tags": ["synthenv"], "entrypoint_type": EntrypointType.MODULE_PATH}
    common = {"registry": args.registry, "work": args.work}
    out = [
        generate_batch.to_deployment(
            name="nightly",
            cron=args.batch_cron,
            **module,
            description="Build, prove and publish a batch of tool-use environments.",
            parameters={
                "n": args.n,
                "domains": args.domains,
                "seed": args.seed,
                "tasks_per_family": args.tasks_per_family,
                **common,
            },
        ),
        build_procedural.to_deployment(
            name="weekly",
            cron=args.procedural_cron,
            **module,
            description="Build and publish a procedural reasoning bundle.",
            parameters={
                "families": args.families,
                "n": args.procedural_n,
                "seed": args.seed,
                "publish": True,
                "registry": args.registry,
                "out": args.out,
            },
        ),
    ]
    if args.results:
        out.append(
            update_curriculum.to_deployment(
                name="hourly",
                cron=args.curriculum_cron,
                **module,
                description="Apply new rollout results and publish the next procedural version.",
                parameters={"results": args.results, "state": args.state, **common},
            )
        )
    return out


def _csv(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


app = typer.Typer(add_completion=False)


@app.command(help=(__doc__ or "").split("\n")[0])
def serve_deployments(
    batch_cron: str = typer.Option(BATCH_CRON, help=f"schedule of generate_batch/nightly ({BATCH_CRON})"),
    n: int = typer.Option(20, help="environments per batch"),
    domains: str | None = typer.Option(None, help="comma-separated domains (default: sampled)"),
    seed: int = typer.Option(0),
    tasks_per_family: int = typer.Option(6),
    registry: str | None = typer.Option(None, help="registry directory or fsspec URL"),
    work: str | None = typer.Option(None, help="work root (default: <registry>/.work)"),
    workers: int = typer.Option(1, help="environments built at once (sets SYNTHENV_WORKERS)"),
    dask_address: str | None = typer.Option(
        None, help="run batches on this Dask scheduler (sets SYNTHENV_DASK_ADDRESS)"
    ),
    procedural_cron: str = typer.Option(
        PROCEDURAL_CRON, help=f"schedule of build_procedural/weekly ({PROCEDURAL_CRON})"
    ),
    families: str = typer.Option("gcd_lcm,maze,sudoku", help="comma-separated families of the procedural bundle"),
    procedural_n: int = typer.Option(1000),
    out: str = typer.Option("artifacts", help="where build_procedural writes bundles"),
    results: str | None = typer.Option(None, help="results file update_curriculum reads (adds that deployment)"),
    state: str | None = typer.Option(None, help="curriculum state file"),
    curriculum_cron: str = typer.Option(
        CURRICULUM_CRON, help=f"schedule of update_curriculum/hourly ({CURRICULUM_CRON})"
    ),
    limit: int = typer.Option(1, help="flow runs executed at once by this process"),
) -> None:
    options = Options(
        batch_cron=batch_cron,
        n=n,
        domains=_csv(domains),
        seed=seed,
        tasks_per_family=tasks_per_family,
        registry=registry,
        work=work,
        workers=workers,
        dask_address=dask_address,
        procedural_cron=procedural_cron,
        families=_csv(families) or [],
        procedural_n=procedural_n,
        out=out,
        results=results,
        state=state,
        curriculum_cron=curriculum_cron,
        limit=limit,
    )
    run(options)


def run(args: Options) -> None:
    """Check the options and the server, then serve the deployments until stopped."""
    if args.workers < 1 or args.n < 1:
        raise SystemExit("error: --workers and --n must be at least 1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    from prefect.settings import PREFECT_API_URL

    if not PREFECT_API_URL.value():
        raise SystemExit(
            "error: schedules need a Prefect server: run `prefect server start` and "
            "export PREFECT_API_URL=http://127.0.0.1:4200/api"
        )
    # Flow runs start in fresh processes that import flows.batch again: the environment carries the runner choice.
    os.environ["SYNTHENV_WORKERS"] = str(args.workers)
    if args.dask_address:
        os.environ["SYNTHENV_DASK_ADDRESS"] = args.dask_address
    from prefect import serve

    serve(*deployments(args), limit=args.limit)


def main(argv: Sequence[str] | None = None) -> None:
    app(args=list(argv) if argv is not None else None, prog_name="python -m flows.deploy")


if __name__ == "__main__":
    main()
