"""Shared fixtures: Prefect isolated and silent, bundles built once per session."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# Before anything can import Prefect: a private home and no telemetry.
os.environ.setdefault("PREFECT_HOME", tempfile.mkdtemp(prefix="synthenv-prefect-"))
os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
os.environ["DO_NOT_TRACK"] = "1"
# Pulled bundles go to a cache of this run, never the user's ~/.cache/synthenv (a bundle left
# there by an earlier run of other code would be refused as a different digest).
os.environ["SYNTHENV_CACHE"] = tempfile.mkdtemp(prefix="synthenv-cache-")


import pytest

from pipeline.jobs.steps import Inputs, generate

TEST_DOMAINS = ("online_store", "clinic_appointments", "library_loans")


@pytest.fixture(scope="session")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One generated bundle per starter domain, through the same steps the flow runs."""
    root = tmp_path_factory.mktemp("bundles")
    out = {}
    for domain in TEST_DOMAINS:
        summary = generate(Inputs(domain=domain, seed=7), root, tmp_path_factory.mktemp(f"work-{domain}"))
        out[domain] = Path(summary["path"])
    return out


@pytest.fixture(scope="session")
def store_bundle(bundles: dict[str, Path]) -> Path:
    return bundles["online_store"]
