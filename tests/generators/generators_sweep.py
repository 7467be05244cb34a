"""The (family, level) grid and cached sweep datasets shared by the generator tests.

Datasets are cached per (family, level) so every check over the grid reuses one small
generation run, which keeps the whole sweep fast on two cores.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from generators import registry  # noqa: E402 - after the path fix above
from generators.dataset import Dataset, create_dataset  # noqa: E402

SIZE = 24
"""Items per (family, level) in the sweep: enough to see duplicates, small enough to be quick."""
SEED = 20261122


def family_level_grid() -> list[tuple[str, int]]:
    """Every registered family × each of its levels; an unimportable family gets level -1."""
    grid: list[tuple[str, int]] = []
    for name in registry.list_families():
        try:
            levels = len(registry.get_family(name).levels)
        except Exception:
            grid.append((name, -1))
            continue
        grid.extend((name, level) for level in range(levels))
    return grid


GRID = family_level_grid()


@functools.cache
def sweep_dataset(name: str, level: int) -> Dataset:
    return create_dataset(name, level=level, seed=SEED, size=SIZE, on_shortfall="truncate")
