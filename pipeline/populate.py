"""Step 2: schema + seed -> a populated SQLite state, deterministic and constraint-clean.

Values come from Faker seeded per column (so adding a column never shifts another
column's values) drawn through pools, with skewed distributions where real data is
skewed: a few parents get most children, money is log-normal, statuses follow weights
and timestamps respect both ``after`` ordering and the status they imply. Nothing reads
the wall clock: "now" is the frozen clock passed in and recorded in the manifest.
"""

from __future__ import annotations

import hashlib
import math
import random
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pipeline.ddl import ddl_statements
from pipeline.schema import Column, Schema, Table, insertion_order

DEFAULT_CLOCK = "2026-01-15T12:00:00"
HISTORY_DAYS = 730
ISO = "%Y-%m-%dT%H:%M:%S"


@dataclass(frozen=True)
class PopulateResult:
    path: Path
    rows: dict[str, int]
    clock: str


def column_seed(seed: int, table: str, column: str) -> int:
    digest = hashlib.sha256(f"{seed}/{table}/{column}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


_faker_instance = None


def _faker(seed: int):
    """One Faker per process (construction is slow), re-seeded for every column."""
    global _faker_instance
    if _faker_instance is None:
        from faker import Faker

        _faker_instance = Faker("en_US")
    _faker_instance.seed_instance(seed)
    return _faker_instance


_ADJECTIVES = ("Classic", "Compact", "Deluxe", "Eco", "Ergonomic", "Everyday", "Heavy-Duty", "Lightweight",
               "Modern", "Organic", "Portable", "Premium", "Rustic", "Smart", "Sturdy", "Vintage", "Wireless")
_MATERIALS = ("Bamboo", "Canvas", "Ceramic", "Copper", "Cotton", "Glass", "Leather", "Linen", "Marble",
              "Oak", "Rubber", "Silk", "Steel", "Walnut", "Wool")
_NOUNS = ("Backpack", "Bottle", "Chair", "Desk Lamp", "Headphones", "Jacket", "Kettle", "Keyboard", "Mug",
          "Notebook", "Pillow", "Planter", "Scarf", "Speaker", "Table", "Towel", "Umbrella", "Wallet", "Watch")


def _pool(make: Callable[[], str], size: int) -> list[str]:
    return [make() for _ in range(size)]


def _text_maker(semantic: str, fake: Any, rng: random.Random) -> Callable[[], str]:
    makers: dict[str, Callable[[], str]] = {
        "person_name": lambda: f"{fake.first_name()} {fake.last_name()}",
        "first_name": fake.first_name,
        "last_name": fake.last_name,
        "username": fake.user_name,
        "company": fake.company,
        "job_title": fake.job,
        "address": lambda: fake.street_address(),
        "city": fake.city,
        "country": fake.country,
        "postcode": fake.postcode,
        "phone": lambda: f"+1-{rng.randint(200, 989)}-{rng.randint(200, 999)}-{rng.randint(0, 9999):04d}",
        "product_name": lambda: f"{rng.choice(_ADJECTIVES)} {rng.choice(_MATERIALS)} {rng.choice(_NOUNS)}",
        "title": lambda: fake.catch_phrase(),
        "word": lambda: fake.word().capitalize(),
        "text": lambda: fake.sentence(nb_words=8),
        "color": fake.color_name,
        "url": lambda: f"https://{fake.domain_name()}/{fake.uri_path(deep=1)}",
        "license_plate": lambda: f"{''.join(rng.choices('ABCDEFGHJKLMNPRSTUVWXYZ', k=3))}-{rng.randint(1000, 9999)}",
        "email": lambda: f"{fake.first_name().lower()}.{fake.last_name().lower()}@{fake.free_email_domain()}",
    }
    return makers[semantic]


def _code_prefix(table: Table) -> str:
    """ORD-104233 for orders, OI-... for order items: readable, stable, per table."""
    words = [w for w in table.entity.split("_") if w]
    if len(words) == 1:
        return words[0][:3].upper()
    return "".join(w[0] for w in words).upper()


def _unique_codes(prefix: str, n: int, rng: random.Random, width: int = 6) -> list[str]:
    space = range(10 ** (width - 1), 10**width)
    return [f"{prefix}-{v}" for v in rng.sample(space, n)]


def _make_unique(values: list[str]) -> list[str]:
    """Keep first occurrences; later duplicates get a numeric suffix (before '@' for emails)."""
    seen: set[str] = set()
    out = []
    for v in values:
        candidate, k = v, 1
        while candidate in seen:
            k += 1
            if "@" in v:
                local, domain = v.split("@", 1)
                candidate = f"{local}{k}@{domain}"
            else:
                candidate = f"{v} {k}"
        seen.add(candidate)
        out.append(candidate)
    return out


def _lognormal_money(rng: random.Random, low: float, high: float) -> float:
    low = max(low, 0.01)
    mu = (math.log(low) + math.log(high)) / 2
    sigma = (math.log(high) - math.log(low)) / 6
    return round(min(high, max(low, rng.lognormvariate(mu, sigma))), 2)


def _numbers(column: Column, n: int, rng: random.Random) -> list[Any]:
    sem = column.semantic
    if sem == "money":
        low, high = column.min if column.min is not None else 1.0, column.max if column.max is not None else 1000.0
        return [_lognormal_money(rng, low, high) for _ in range(n)]
    if sem == "rating":
        low, high = int(column.min or 1), int(column.max or 5)
        values = list(range(low, high + 1))
        weights = [1 + i * i for i in range(len(values))]  # most ratings are good ones
        return rng.choices(values, weights, k=n)
    if sem in ("quantity", "integer"):
        low, high = int(column.min if column.min is not None else 0), int(column.max if column.max is not None else 100)
        # Geometric-looking skew toward small values, clamped to the range.
        span = high - low
        return [low + min(span, int(rng.expovariate(3.0 / max(span, 1)))) for _ in range(n)]
    low, high = column.min if column.min is not None else 0.0, column.max if column.max is not None else 100.0
    return [round(rng.uniform(low, high), 2) for _ in range(n)]


def _weighted(column: Column, n: int, rng: random.Random) -> list[str]:
    values = list(column.values or ())
    weights = list(column.weights) if column.weights else [1.0] * len(values)
    return rng.choices(values, weights, k=n)


def _skewed_refs(parent_ids: Sequence[int], n: int, rng: random.Random) -> list[int]:
    """Zipf-like popularity: a few parents own most children, every parent can be chosen."""
    order = list(parent_ids)
    rng.shuffle(order)
    weights = [1.0 / (rank + 1) ** 0.8 for rank in range(len(order))]
    return rng.choices(order, weights, k=n)


def _reachable(transitions: dict[str, tuple[str, ...]], start: str) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in transitions.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _timestamps(column: Column, n: int, rng: random.Random, now: datetime, base: list[str | None] | None) -> list[str]:
    out = []
    for i in range(n):
        if base is not None and base[i] is not None:
            start = datetime.strptime(str(base[i]), ISO)
            room = max(0, int((now - start).total_seconds()))
            offset = min(room, int(rng.expovariate(1 / (3 * 86400))))
            t = start + timedelta(seconds=offset)
        else:
            t = now - timedelta(seconds=rng.randint(3600, HISTORY_DAYS * 86400))
        out.append(t.strftime(ISO if column.semantic == "timestamp" else "%Y-%m-%d"))
    return out


def generate_column(
    table: Table, column: Column, n: int, seed: int, now: datetime,
    rows: dict[str, list[Any]], parent_ids: dict[str, list[int]],
) -> list[Any]:
    """Values of one column; ``rows`` holds the table's already generated columns."""
    rng = random.Random(column_seed(seed, table.name, column.name))
    sem = column.semantic
    if column.references:
        return _skewed_refs(parent_ids[column.references], n, rng)
    if sem in ("status", "enum"):
        return _weighted(column, n, rng)
    if sem in ("money", "quantity", "integer", "rating", "percent", "decimal"):
        return _numbers(column, n, rng)
    if sem == "boolean":
        return [1 if rng.random() < 0.8 else 0 for _ in range(n)]
    if sem in ("timestamp", "date"):
        base = rows.get(column.after) if column.after else None
        return _timestamps(column, n, rng, now, base)
    if sem in ("code", "sku"):
        prefix = "SKU" if sem == "sku" else _code_prefix(table)
        width = max(6, len(str(n * 10)))
        return _unique_codes(prefix, n, rng, width)
    if sem == "isbn":
        return [f"978-{v:010d}" for v in rng.sample(range(10**9, 10**10), n)]
    fake = _faker(column_seed(seed, table.name, column.name))
    make = _text_maker(sem, fake, rng)
    if column.unique:
        return _make_unique([make() for _ in range(n)])
    pool = _pool(make, min(n, max(50, n // 4)))
    return [rng.choice(pool) for _ in range(n)]


def _apply_status_time(table: Table, schema: Schema, rows: dict[str, list[Any]], n: int) -> None:
    """A time set by an operation exists exactly when the status is at or past its target."""
    for op in schema.operations:
        if op.table != table.name or op.sets_time is None:
            continue
        status_col = table.column(op.column)
        past = _reachable(status_col.transitions or {}, op.to)
        statuses, times = rows[op.column], rows[op.sets_time]
        for i in range(n):
            if statuses[i] not in past:
                times[i] = None


def _apply_nulls(table: Table, schema: Schema, rows: dict[str, list[Any]], n: int, seed: int) -> None:
    """Random gaps in nullable columns, except times whose presence the status decides."""
    status_driven = {op.sets_time for op in schema.operations if op.table == table.name}
    for col in table.columns:
        if not col.nullable or col.name in status_driven or col.semantic in ("status", "enum"):
            continue
        rng = random.Random(column_seed(seed, table.name, col.name + "/null"))
        values = rows[col.name]
        for i in range(n):
            if values[i] is not None and rng.random() < 0.12:
                values[i] = None


def row_count(table: Table, scale: float) -> int:
    return max(1, int(round(table.rows * scale)))


def populate(schema: Schema, seed: int, path: Path, scale: float = 1.0, clock: str = DEFAULT_CLOCK) -> PopulateResult:
    """Create ``path`` (replacing it) with the schema's DDL and deterministic rows."""
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    now = datetime.strptime(clock, ISO)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = OFF")
        for stmt in ddl_statements(schema, "sqlite"):
            conn.execute(stmt)
        counts: dict[str, int] = {}
        parent_ids: dict[str, list[int]] = {}
        with conn:
            for table in insertion_order(schema):
                n = row_count(table, scale)
                rows: dict[str, list[Any]] = {"id": list(range(1, n + 1))}
                for col in table.columns:
                    if not col.primary_key:
                        rows[col.name] = generate_column(table, col, n, seed, now, rows, parent_ids)
                _apply_nulls(table, schema, rows, n, seed)
                _apply_status_time(table, schema, rows, n)
                names = [c.name for c in table.columns]
                placeholders = ", ".join("?" for _ in names)
                quoted = ", ".join(f'"{c}"' for c in names)
                conn.executemany(
                    f'INSERT INTO "{table.name}" ({quoted}) VALUES ({placeholders})',
                    zip(*(rows[c] for c in names)),
                )
                counts[table.name] = n
                parent_ids[table.name] = rows["id"]
        problems = conn.execute("PRAGMA foreign_key_check").fetchall()
        if problems:
            raise RuntimeError(f"population broke referential integrity: {problems[:5]}")
        conn.execute("VACUUM")
    finally:
        conn.close()
    return PopulateResult(path=path, rows=counts, clock=clock)
