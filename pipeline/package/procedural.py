"""Procedural reasoning datasets packaged in the same bundle format as tool-use worlds.

The bundle holds ``tasks.jsonl`` (one item per line: id, question, answer, metadata),
a report and the manifest; its digest follows the same rule as every bundle, so a
trainer pins a procedural dataset exactly like an environment.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from generators.base import canonical_json
from pipeline import __version__
from pipeline.bundle.format import Bundle
from pipeline.bundle.manifest import ProceduralCounts, ProceduralKnobs, ProceduralLineage, ProceduralManifest
from pipeline.bundle.names import check_parent
from pipeline.package.build import write_atomically
from pipeline.package.report.procedural import procedural_report

SAFE_NAME_FAMILIES = 3

Level = int | Mapping[str, int] | None
"""One level for every family, a per-family mapping (families left out get level 0), or None (level 0)."""


def _short_hash(value: Any) -> str:
    import hashlib

    return hashlib.sha256(canonical_json(value).encode()).hexdigest()[:8]


def _number(value: float) -> str:
    """``2`` for 2.0, ``2.5`` for 2.5: a name's spelling of a knob."""
    return f"{float(value):g}"


def _level_label(families: Sequence[str], level: Level, difficulty: Difficulty) -> str:
    """``lv0``, ``lv0_2`` (per family, in order), ``d2.5``; a hash where a long mix would not fit."""
    if difficulty is not None:
        if not isinstance(difficulty, Mapping):
            return "d" + _number(difficulty)
        values = {_number(difficulty.get(f, 0.0)) for f in families}
        return "d" + values.pop() if len(values) == 1 else "d" + _short_hash(dict(sorted(difficulty.items())))
    if not isinstance(level, Mapping):
        return f"lv{level or 0}"
    levels = [int(level.get(f, 0)) for f in families]
    if len(set(levels)) == 1:
        return f"lv{levels[0]}"
    if len(families) <= SAFE_NAME_FAMILIES:
        return "lv" + "_".join(map(str, levels))
    return "lv" + _short_hash(dict(sorted(level.items())))


def bundle_name(
    families: Sequence[str],
    seed: int,
    n: int,
    level: Level = None,
    weights: Mapping[str, float] | None = None,
    difficulty: Difficulty = None,
) -> str:
    """``proc-<families>-<lvL|dD>-n<size>[-w<hash>]-s<seed>``: every knob that changes the items is in
    the name, so two builds of different content never share ``name@1.0.0``.

    Families are readable for a few, a short stable hash for a larger mix, joined with ``.`` so
    the name is one a registry accepts (``[a-z0-9._-]``); weights other than all 1 add a hash.
    """
    if len(families) <= SAFE_NAME_FAMILIES:
        label = ".".join(f.replace("_", "-") for f in families)
    else:
        label = f"mix{len(families)}-" + _short_hash(sorted(families))
    weighted = ""
    if weights is not None and any(float(weights.get(f, 1.0)) != 1.0 for f in families):
        weighted = "-w" + _short_hash({f: float(weights.get(f, 1.0)) for f in families})
    return f"proc-{label}-{_level_label(families, level, difficulty)}-n{n}{weighted}-s{seed}"


def parse_weights(families: Sequence[str], weights: str | None) -> dict[str, float]:
    if not weights:
        return dict.fromkeys(families, 1.0)
    parts = [w.strip() for w in weights.split(",")]
    if len(parts) != len(families):
        raise ValueError(f"--weights needs one weight per family ({len(families)}), got {len(parts)}")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"--weights must be comma-separated numbers, got {weights!r}") from None
    return dict(zip(families, values))


def _level_knob(level: Level) -> int | dict[str, int] | None:
    """The level as it goes into the manifest: a mapping becomes a sorted plain dict."""
    return dict(sorted(level.items())) if isinstance(level, Mapping) else level


Difficulty = float | Mapping[str, float] | None
"""A continuous difficulty in [0, 5] for every family or per family (``generators.difficulty``)."""


def build_items(
    families: Sequence[str],
    weights: dict[str, float],
    level: Level,
    n: int,
    seed: int,
    difficulty: Difficulty = None,
) -> list[dict[str, Any]]:
    import generators

    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if len(set(families)) != len(families):
        raise ValueError("a family is named twice")
    composite = generators.create_composite(weights, level=level, seed=seed, size=n, difficulty=difficulty)
    items = []
    for (family, k), item in zip(composite.order, composite):
        items.append(
            {
                "id": f"{family}-{k:05d}",
                "question": item["question"],
                "answer": item["answer"],
                "metadata": item["metadata"],
            }
        )
    return items


def _report(manifest: ProceduralManifest, items: list[dict[str, Any]]) -> str:
    return procedural_report(manifest, items)


def build_procedural_bundle(
    families: Sequence[str],
    out: Path,
    n: int,
    seed: int = 0,
    level: Level = None,
    weights: dict[str, float] | None = None,
    version: str = "1.0.0",
    parent: str | None = None,
    difficulty: Difficulty = None,
    name: str | None = None,
) -> Bundle:
    """Build ``out/<name>/<version>/``; ``parent`` (``name@X.Y.Z``) records which bundle this one follows.

    ``name`` defaults to :func:`bundle_name` of the knobs; a curriculum's next version keeps its
    parent's name (a lineage is one name, its versions told apart by number).

    ``difficulty`` (instead of ``level``) is recorded in the manifest's knobs and lineage
    only when given, so bundles built by level keep their digests.
    """
    import generators

    if parent is not None:
        check_parent(parent)
    weights = weights or dict.fromkeys(families, 1.0)
    level = _level_knob(level)
    items = build_items(families, weights, level, n, seed, difficulty)
    per_family = Counter(i["metadata"]["family"] for i in items)
    recorded = dict(sorted(difficulty.items())) if isinstance(difficulty, Mapping) else difficulty
    with_difficulty = {"difficulty": recorded} if recorded is not None else {}
    manifest = ProceduralManifest(
        name=name if name is not None else bundle_name(families, seed, n, level, weights, difficulty),
        version=version,
        kind="procedural",
        title="Procedural reasoning tasks: " + ", ".join(families),
        description="Single-turn questions with exact answers, generated deterministically.",
        seed=seed,
        frozen_clock=None,
        generator_version=f"{__version__}/{generators.GENERATOR_VERSION}",
        knobs=ProceduralKnobs(families=list(families), weights=weights, level=level, n=n, **with_difficulty),
        counts=ProceduralCounts(tasks=len(items), per_family=dict(sorted(per_family.items())), dropped={}),
        lineage=ProceduralLineage(families=list(families), seed=seed, level=level, parent=parent, **with_difficulty),
    )

    def write(directory: Path) -> None:
        with (directory / "tasks.jsonl").open("w", encoding="utf-8") as fh:
            for item in items:
                fh.write(json.dumps(item, sort_keys=True, ensure_ascii=False) + "\n")
        (directory / "report.html").write_text(_report(manifest, items), encoding="utf-8")

    return write_atomically(Path(out), manifest, write)


def export_rows(bundle: Bundle, fmt: str, target: Path) -> Path:
    """HF-datasets-style rows (question, answer, metadata) as JSONL or, through DuckDB, Parquet."""
    if fmt not in ("jsonl", "parquet"):
        raise ValueError(f"format must be jsonl or parquet, got {fmt!r}")
    target.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        {"question": i["question"], "answer": i["answer"], "metadata": i["metadata"]}
        for i in bundle.read_jsonl("tasks.jsonl")
    ]
    jsonl = target if fmt == "jsonl" else target.with_suffix(".rows.jsonl")
    with jsonl.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n")
    if fmt == "jsonl":
        return target
    import duckdb

    con = duckdb.connect(config={"autoinstall_known_extensions": "false"})
    try:
        con.execute(
            "COPY (SELECT * FROM read_json(?, format='newline_delimited', "
            "columns={'question': 'VARCHAR', 'answer': 'VARCHAR', 'metadata': 'JSON'})) TO ? (FORMAT parquet)",
            [str(jsonl), str(target)],
        )
    finally:
        con.close()
        jsonl.unlink()
    return target
