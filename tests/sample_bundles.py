"""The bundles issue-level figures are measured on: five domains and three random worlds.

Built once per test run (whichever test asks first) into a temporary directory removed at exit;
tests that use them are marked slow.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
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
    """Bundle name -> path, for every sample world (``synthenv generate`` with default options)."""
    root = Path(tempfile.mkdtemp(prefix="synthenv-samples-"))
    atexit.register(shutil.rmtree, root, True)
    inputs = [Inputs(domain=d, seed=s) for d, s in DOMAINS]
    inputs += [Inputs(domain=pick_domain(s), seed=s, variant=True) for s in RANDOM_SEEDS]
    out = {}
    for i, one in enumerate(inputs):
        summary = generate(one, root / "out", root / f"work-{i}")
        out[str(summary["name"])] = Path(summary["path"])
    return out
