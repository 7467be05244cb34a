"""The bundles issue-level figures are measured on: five domains and three random worlds.

Built once per test run (whichever test asks first, shared by the workers of a pytest-xdist run)
into a temporary directory removed at exit; tests that use them are marked slow.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from pipeline.jobs.steps import Inputs, generate
from pipeline.world.variants import pick_domain

DOMAINS = (
    ("online_store", 0),
    ("insurance_claims", 23),
    ("airline", 31),
    ("veterinary_clinic", 47),
    ("library_loans", 11),
)
RANDOM_SEEDS = (2, 5, 9137)


@functools.cache
def sample_bundles() -> dict[str, Path]:
    """Bundle name -> path, for every sample world (``synthenv generate`` with default options).

    Under pytest-xdist the workers of one run share one build: the first to ask builds them under a
    file lock in a directory named by the run's id, the others wait and read its index, and the last
    worker to exit removes it (each registers itself there while it may still read the bundles)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:
        root = Path(tempfile.mkdtemp(prefix="synthenv-samples-"))
        atexit.register(shutil.rmtree, root, True)
        return _build(root)
    root = Path(tempfile.gettempdir()) / f"synthenv-samples-{run}"
    root.mkdir(exist_ok=True)
    me = root / f"user-{os.getpid()}"
    with _locked(root):
        me.touch()
        index = root / "index.json"
        if not index.exists():
            index.write_text(json.dumps({k: str(v) for k, v in _build(root).items()}))
        found = {k: Path(v) for k, v in json.loads(index.read_text()).items()}
    atexit.register(_leave, root, me)
    return found


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[None]:
    """An exclusive lock on ``root`` shared by the processes of one run (POSIX ``flock``)."""
    with open(root / "lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(root: Path) -> dict[str, Path]:
    inputs = [Inputs(domain=d, seed=s) for d, s in DOMAINS]
    inputs += [Inputs(domain=pick_domain(s), seed=s, variant=True) for s in RANDOM_SEEDS]
    out = {}
    for i, one in enumerate(inputs):
        summary = generate(one, root / "out", root / f"work-{i}")
        out[str(summary["name"])] = Path(summary["path"])
    return out


def _leave(root: Path, me: Path) -> None:
    """This worker is done with the shared build; the last one out removes it."""
    with _locked(root):
        me.unlink(missing_ok=True)
        last = not any(root.glob("user-*"))
        if last:
            for child in root.iterdir():
                if child.is_dir():
                    shutil.rmtree(child, True)
                elif child.name != "lock":
                    child.unlink(missing_ok=True)
    if last:
        shutil.rmtree(root, True)  # the lock file too, once released
