"""Shared fixtures: Prefect isolated and silent, bundles built once per session."""

from __future__ import annotations

import asyncio
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


@pytest.fixture(scope="session", autouse=True)
def no_implicit_event_loop() -> None:
    """The main thread starts with no current event loop, as ``asyncio.run`` leaves it.

    ``litellm.completion`` (pipeline/llm/client.py) times each call through litellm's
    ``ServiceLogging._sync_dispatch_loop``, which calls ``asyncio.get_event_loop()``: in a main thread
    where nothing has set a loop yet, that creates one, makes it current and never closes it. The
    next ``asyncio.run`` replaced it and the loop, with its AF_UNIX self-pipe, was collected unclosed
    during whatever test ran then. With the loop unset, ``get_event_loop()`` raises and litellm
    runs its hook in ``asyncio.run``, which closes its loop.
    """
    asyncio.set_event_loop(None)


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
