"""Deployments with cron schedules, served by this process: ``python -m flows.deploy``.

``serve`` registers the deployments with the Prefect server ``PREFECT_API_URL`` names
and runs their scheduled (and manually triggered) runs here until stopped with SIGTERM
or Ctrl-C. The same deployments for a work pool and workers are declared in
``prefect.yaml`` at the repository root (``prefect deploy --all``).

Schedules need a real server (``prefect server start``): Prefect's temporary
in-process server cannot schedule, so this refuses to start without ``PREFECT_API_URL``.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

BATCH_CRON = "0 2 * * *"
CURRICULUM_CRON = "30 * * * *"
PROCEDURAL_CRON = "0 3 * * 0"


def deployments(args: argparse.Namespace) -> list[Any]:
    """The deployments to serve: nightly batch, weekly procedural bundle, hourly curriculum (given --results)."""
    from flows.batch import generate_batch
    from flows.curriculum import update_curriculum
    from flows.procedural import build_procedural

    from prefect.types.entrypoint import EntrypointType

    # By module path, so the runner finds the flows from any working directory.
    module = {"tags": ["synthenv"], "entrypoint_type": EntrypointType.MODULE_PATH}
    common = {"registry": args.registry, "work": args.work}
    out = [
        generate_batch.to_deployment(
            name="nightly", cron=args.batch_cron, **module,
            description="Build, prove and publish a batch of tool-use environments.",
            parameters={"n": args.n, "domains": args.domains, "seed": args.seed,
                        "tasks_per_family": args.tasks_per_family, **common}),
        build_procedural.to_deployment(
            name="weekly", cron=args.procedural_cron, **module,
            description="Build and publish a procedural reasoning bundle.",
            parameters={"families": args.families, "n": args.procedural_n, "seed": args.seed, "publish": True,
                        "registry": args.registry, "out": args.out}),
    ]
    if args.results:
        out.append(update_curriculum.to_deployment(
            name="hourly", cron=args.curriculum_cron, **module,
            description="Apply new rollout results and publish the next procedural version.",
            parameters={"results": args.results, "state": args.state, **common}))
    return out


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m flows.deploy", description=__doc__.split("\n")[0])
    p.add_argument("--batch-cron", default=BATCH_CRON, help=f"schedule of generate_batch/nightly ({BATCH_CRON})")
    p.add_argument("--n", type=int, default=20, help="environments per batch")
    p.add_argument("--domains", type=_csv, default=None, help="comma-separated domains (default: sampled)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--tasks-per-family", type=int, default=6)
    p.add_argument("--registry", default=None, help="registry directory or fsspec URL")
    p.add_argument("--work", default=None, help="work root (default: <registry>/.work)")
    p.add_argument("--workers", type=int, default=1, help="environments built at once (sets SYNTHENV_WORKERS)")
    p.add_argument("--dask-address", default=None, help="run batches on this Dask scheduler (sets SYNTHENV_DASK_ADDRESS)")
    p.add_argument("--procedural-cron", default=PROCEDURAL_CRON, help=f"schedule of build_procedural/weekly ({PROCEDURAL_CRON})")
    p.add_argument("--families", type=_csv, default=["gcd_lcm", "maze", "sudoku"])
    p.add_argument("--procedural-n", type=int, default=1000)
    p.add_argument("--out", default="artifacts", help="where build_procedural writes bundles")
    p.add_argument("--results", default=None, help="results file update_curriculum reads (adds that deployment)")
    p.add_argument("--state", default=None, help="curriculum state file")
    p.add_argument("--curriculum-cron", default=CURRICULUM_CRON, help=f"schedule of update_curriculum/hourly ({CURRICULUM_CRON})")
    p.add_argument("--limit", type=int, default=1, help="flow runs executed at once by this process")
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.workers < 1 or args.n < 1:
        raise SystemExit("error: --workers and --n must be at least 1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    from prefect.settings import PREFECT_API_URL

    if not PREFECT_API_URL.value():
        raise SystemExit("error: schedules need a Prefect server: run `prefect server start` and "
                         "export PREFECT_API_URL=http://127.0.0.1:4200/api")
    # Flow runs start in fresh processes that import flows.batch again: the environment carries the runner choice.
    os.environ["SYNTHENV_WORKERS"] = str(args.workers)
    if args.dask_address:
        os.environ["SYNTHENV_DASK_ADDRESS"] = args.dask_address
    from prefect import serve

    serve(*deployments(args), limit=args.limit)


if __name__ == "__main__":
    main()
