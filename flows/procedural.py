"""``build_procedural``: a procedural bundle from families, levels and weights, optionally published."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from flows.batch import transient
from pipeline.jobs.batch import publish_bundle
from pipeline.package import procedural

build_task = task(name="build", cache_policy=NO_CACHE)(procedural.build_procedural_bundle)
publish_task = task(
    name="publish", cache_policy=NO_CACHE, retries=2, retry_delay_seconds=1, retry_condition_fn=transient
)(publish_bundle)


@flow(name="build_procedural", log_prints=True)
def build_procedural(
    families: list[str],
    n: int,
    seed: int = 0,
    level: int | dict[str, int] | None = None,
    weights: dict[str, float] | None = None,
    version: str = "1.0.0",
    out: str = "artifacts",
    registry: str | None = None,
    publish: bool = False,
) -> dict[str, Any]:
    """Build ``out/<name>/<version>/``; with ``publish``, also publish it to ``registry``."""
    bundle = build_task(families, Path(out), n=n, seed=seed, level=level, weights=weights, version=version)
    published = publish_task(bundle.path, registry, {"flow": "build_procedural"}) if publish else None
    return {
        "path": str(bundle.path),
        "name": bundle.name,
        "version": bundle.version,
        "digest": bundle.digest,
        "tasks": bundle.manifest.as_procedural().counts.tasks,
        "per_family": bundle.manifest.as_procedural().counts.per_family,
        "published": published,
    }
