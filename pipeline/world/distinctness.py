"""How different two schemas are, and how different a thousand random ones are.

The measure is the Jaccard similarity of the schemas' *normalised* tokens: one token per
table and one per (table, column) pair. Normalising undoes what is only spelling, so a
restyled copy is not counted as new: identifiers are split into words (snake_case and
camelCase alike), lower-cased and singularised, and a prefix shared by every table
(``tbl_``, ``app_``) is removed. Two schemas are near-duplicates when their similarity is
at least 0.7; the catalog plus the variant sampler must keep at least 95 % of the pairs
among seeds 0..999 below that.

Run ``python -m pipeline.world.distinctness --seeds 1000`` for the figure (about 30 s).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from pipeline.world.naming import words
from pipeline.world.schema import Schema

THRESHOLD = 0.7
TARGET = 0.95


def singular(word: str) -> str:
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def normalise(identifier: str) -> str:
    return "_".join(singular(w) for w in words(identifier))


def _shared_prefix(names: Sequence[str]) -> str:
    firsts = {normalise(n).split("_")[0] for n in names}
    if len(names) > 2 and len(firsts) == 1 and all("_" in normalise(n) for n in names):
        return firsts.pop() + "_"
    return ""


def schema_tokens(schema: Schema) -> frozenset[str]:
    """``t:order`` for a table, ``c:order.placed_at`` for a column (the key ``id`` is left out)."""
    prefix = _shared_prefix([t.name for t in schema.tables])
    out: set[str] = set()
    for t in schema.tables:
        name = normalise(t.name).removeprefix(prefix)
        out.add(f"t:{name}")
        out.update(f"c:{name}.{normalise(c.name)}" for c in t.columns if not c.primary_key)
    return frozenset(out)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 1.0


@dataclass(frozen=True)
class Report:
    schemas: int
    pairs: int
    threshold: float
    below: float
    """Share of pairs whose similarity is below the threshold."""
    mean: float
    max: float
    same_domain_pairs: int
    same_domain_below: float
    same_domain_mean: float
    histogram: dict[str, int]
    """Pairs per similarity decile, ``0.0-0.1`` .. ``0.9-1.0``."""
    tables_min: int
    tables_max: int
    tables_mean: float

    @property
    def ok(self) -> bool:
        return self.below >= TARGET


def measure(schemas: Sequence[Schema], threshold: float = THRESHOLD) -> Report:
    """Similarity over every pair, with token sets as bitsets (half a million pairs in seconds)."""
    token_sets = [schema_tokens(s) for s in schemas]
    index: dict[str, int] = {}
    bits = []
    for tokens in token_sets:
        value = 0
        for tok in sorted(tokens):
            value |= 1 << index.setdefault(tok, len(index))
        bits.append(value)
    sizes = [b.bit_count() for b in bits]
    domains = [s.domain for s in schemas]
    n = len(schemas)
    below = same = same_below = 0
    total = same_total = 0.0
    worst = 0.0
    deciles = [0] * 10
    for i in range(n):
        bi, si, di = bits[i], sizes[i], domains[i]
        for j in range(i + 1, n):
            inter = (bi & bits[j]).bit_count()
            sim = inter / (si + sizes[j] - inter)
            total += sim
            worst = max(worst, sim)
            deciles[min(9, int(sim * 10))] += 1
            if sim < threshold:
                below += 1
            if di == domains[j]:
                same += 1
                same_total += sim
                if sim < threshold:
                    same_below += 1
    pairs = n * (n - 1) // 2
    counts = [len(s.tables) for s in schemas]
    return Report(
        schemas=n,
        pairs=pairs,
        threshold=threshold,
        below=round(below / pairs, 4) if pairs else 1.0,
        mean=round(total / pairs, 4) if pairs else 0.0,
        max=round(worst, 4),
        same_domain_pairs=same,
        same_domain_below=round(same_below / same, 4) if same else 1.0,
        same_domain_mean=round(same_total / same, 4) if same else 0.0,
        histogram={f"{k / 10:.1f}-{(k + 1) / 10:.1f}": deciles[k] for k in range(10)},
        tables_min=min(counts, default=0),
        tables_max=max(counts, default=0),
        tables_mean=round(sum(counts) / len(counts), 2) if counts else 0.0,
    )


def random_schemas(seeds: Iterable[int]) -> list[Schema]:
    from pipeline.world.variants import random_schema

    return [random_schema(s) for s in seeds]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m pipeline.world.distinctness``: the report as JSON; exit 1 below the target."""
    import typer

    app = typer.Typer(add_completion=False)

    @app.command(help="Distinctness of random schemas over a range of seeds.")
    def run(
        seeds: int = typer.Option(1000, min=0, help="seeds 0..N-1 (default 1000)"),
        threshold: float = typer.Option(THRESHOLD),
    ) -> None:
        report = measure(random_schemas(range(seeds)), threshold)
        sys.stdout.write(json.dumps({**asdict(report), "ok": report.ok}, indent=2, sort_keys=True) + "\n")
        raise typer.Exit(0 if report.ok else 1)

    try:
        app(args=list(argv) if argv is not None else None, prog_name="python -m pipeline.world.distinctness")
    except SystemExit as done:
        return int(done.code or 0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
