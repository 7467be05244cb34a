"""The held-column readings give what reading row by row gives: the same rows in the same order,
the same counts, the same thresholds drawn. They replace per-row passes that made a large world's
task step quadratic, so any difference would change which tasks a seed builds."""

from __future__ import annotations

import math
import random
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pipeline.policy.derive import _hit, _hits
from pipeline.tasks.context import Context, Where, _passing, _tuned
from pipeline.tasks.filters import ColumnValues, Filter, Rows, keep
from pipeline.world.schema import Column, Table

STATUS = Column(name="status", sql_type="TEXT", semantic="status", values=("open", "closed", "held"))
AMOUNT = Column(name="amount", sql_type="REAL", semantic="money", nullable=True)
COUNT = Column(name="count", sql_type="INTEGER", semantic="quantity", nullable=True)
FLAG = Column(name="flag", sql_type="BOOLEAN", semantic="flag")
PLACED = Column(name="placed", sql_type="TEXT", semantic="timestamp", nullable=True)


def _rows(n: int, seed: int) -> Rows:
    rng = random.Random(seed)
    data = []
    for i in range(1, n + 1):
        data.append(
            (
                i,
                rng.choice(["open", "closed", "held", None]),
                rng.choice([None, round(rng.uniform(0, 100), 2), float(rng.randint(0, 9)), rng.randint(0, 9)]),
                rng.choice([None, rng.randint(0, 20)]),
                rng.choice([0, 1, True, False]),
                rng.choice([None, f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T0{rng.randint(0, 9)}:00:00"]),
            )
        )
    return Rows(["id", "status", "amount", "count", "flag", "placed"], data)


def _filters(rng: random.Random) -> list[Filter]:
    day = f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
    return [
        Filter(STATUS, "eq", rng.choice(["open", "closed", "held", "gone"])),
        Filter(FLAG, "eq", rng.choice([True, False, 1, 0])),
        Filter(AMOUNT, rng.choice(["min", "max"]), rng.choice([rng.uniform(0, 100), rng.randint(0, 9)])),
        Filter(COUNT, rng.choice(["min", "max"]), rng.randint(0, 20)),
        Filter(PLACED, rng.choice(["on", "from", "to"]), day),
    ]


@pytest.mark.parametrize("seed", range(6))
def test_where_selects_what_holds_selects_in_the_same_order(seed: int) -> None:
    rows, rng = _rows(300, seed), random.Random(seed)
    for _ in range(40):
        chosen = rng.sample(_filters(rng), rng.randint(1, 3))
        want = [r for r in rows if all(f.holds(r) for f in chosen)]
        assert list(rows.where(*chosen)) == want
        assert list(keep(rows, chosen)) == want
        assert keep(list(rows), chosen) == want
        for f in chosen:
            assert rows.column(f.column.name).mask(f).tolist() == [f.holds(r) for r in rows]


def test_an_equality_is_held_and_a_threshold_is_not() -> None:
    rows = _rows(50, 0)
    same = Filter(STATUS, "eq", "open")
    assert rows.where(same) is rows.where(Filter(STATUS, "eq", "open"))
    bound = Filter(COUNT, "min", 3)
    assert rows.where(bound) is not rows.where(bound)
    assert [r["id"] for r in rows.having("amount")] == [r["id"] for r in rows if r["amount"] is not None]
    assert rows.having("amount") is rows.having("amount")


def test_held_rows_hand_out_fresh_dicts() -> None:
    rows = _rows(10, 1)
    picked = rows.where(Filter(FLAG, "eq", True))
    first = picked[0]
    first["status"] = "changed"
    assert picked[0]["status"] != "changed"


def test_held_sorted_values_are_sorted_once_as_sorted_sorts_them() -> None:
    values = ColumnValues([3, None, 1.0, 2, 1, None, 2.5, True])
    assert values.given == [3, 1.0, 2, 1, 2.5, True]
    assert values.ordered() == sorted(values.given)
    assert values.ordered(descending=True) == sorted(values.given, reverse=True)
    assert values.ordered() is values.ordered()
    days = ColumnValues(["2025-01-02T10:00:00", None, "2024-12-31T23:59:59"])
    assert days.ordered(days=True, descending=True) == ["2025-01-02", "2024-12-31"]


@pytest.mark.parametrize("upward", [True, False])
def test_halving_counts_the_values_past_a_bound(upward: bool) -> None:
    rng = random.Random(7)
    values = sorted((rng.randint(0, 30) for _ in range(200)), reverse=upward)
    for t in [-1, 0, 5, 5.5, 15, 30, 31]:
        assert _passing(values, t, upward) == sum(1 for v in values if (v >= t if upward else v <= t))


def _tuned_row_by_row(rng: random.Random, f: Filter, column_values: list[Any], low: int, high: int) -> Filter | None:
    """The tuning as it read before the values were held: sorted and counted per call."""
    c = f.column
    upward = f.op in ("min", "from")
    values: list[Any] = sorted(
        (str(v)[:10] if c.semantic == "timestamp" else v for v in column_values if v is not None), reverse=upward
    )
    targets = list(range(max(low, 1), min(high, len(values) - 1) + 1))
    rng.shuffle(targets)
    for n in targets[:12]:
        t = values[n - 1]
        if sum(1 for v in values if (v >= t if upward else v <= t)) != n:
            continue
        if c.sql_type == "REAL":
            rounder = float(math.floor(t) if upward else math.ceil(t))
            if sum(1 for v in values if (v >= rounder if upward else v <= rounder)) == n:
                t = rounder
        return Filter(c, f.op, t)
    return None


@pytest.mark.parametrize("seed", range(8))
def test_a_tuned_threshold_is_the_one_counting_row_by_row_gives(seed: int) -> None:
    rows, rng = _rows(400, seed), random.Random(seed)
    for column, op in [
        (AMOUNT, "min"),
        (AMOUNT, "max"),
        (COUNT, "min"),
        (COUNT, "max"),
        (PLACED, "from"),
        (PLACED, "to"),
    ]:
        f = Filter(column, op, 0)  # type: ignore[arg-type]
        low, high = rng.randint(1, 20), rng.randint(20, 120)
        want = _tuned_row_by_row(random.Random(seed), f, rows.column(column.name).values, low, high)
        days, upward = column.semantic == "timestamp", op in ("min", "from")
        got = _tuned(random.Random(seed), f, rows.column(column.name).ordered(days, upward), low, high)
        assert got == want
        if got is not None:
            assert type(got.value) is type(want.value)  # type: ignore[union-attr]


@pytest.fixture
def ctx() -> Iterator[Context]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, parent INTEGER, kind TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?, ?)", [(1, 7, "a"), (2, 7, "b"), (3, 8, "a"), (4, None, "c")])
    yield Context(None, None, None, conn, "", 0, None)  # type: ignore[arg-type]
    conn.close()


def test_a_column_is_read_from_the_held_rows_as_the_caller_s_own_list(ctx: Context) -> None:
    table = Table.model_construct(name="t")
    assert ctx.values(table, "parent") == [7, 7, 8, None]
    ctx.values(table, "parent").append(0)
    assert ctx.values(table, "parent") == [7, 7, 8, None]


def test_a_result_asked_for_again_is_each_caller_s_own_copy(ctx: Context) -> None:
    made: list[int] = []

    def compute() -> dict[str, list[int]]:
        made.append(1)
        return {"items": [1, 2]}

    first = ctx._held("k", compute)
    first["items"].append(3)
    second = ctx._held("k", compute)
    assert second == {"items": [1, 2]}
    second["items"].append(4)
    assert ctx._held("k", compute) == {"items": [1, 2]}
    assert len(made) == 2  # computed the first two times, then unpickled


def test_a_related_rule_s_hits_in_one_scan_are_the_hits_per_value() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE c (id INTEGER PRIMARY KEY, owner INTEGER, tier TEXT, rank INTEGER)")
    rng = random.Random(3)
    rows = [(i, rng.randint(1, 9), rng.choice(["gold", "silver", "Gold", None]), rng.randint(1, 3)) for i in range(200)]
    conn.executemany("INSERT INTO c VALUES (?, ?, ?, ?)", rows)
    child = Table.model_construct(name="c")
    fk = Column(name="owner", sql_type="INTEGER", semantic="id", references="o")
    tier = Column(name="tier", sql_type="TEXT", semantic="category", values=("gold", "silver", "bronze"))
    hits = _hits(conn, child, fk, tier)
    assert hits is not None
    assert hits == {v: _hit(conn, child, fk, tier, v) for v in ("gold", "silver", "bronze")}
    rank = Column(name="rank", sql_type="INTEGER", semantic="category", values=("1", "2"))
    assert _hits(conn, child, fk, rank) is None  # not text: "=" converts, so each value is asked in SQL
    conn.close()


@contextmanager
def _bundle_contexts(bundles: dict[str, Any]) -> Iterator[list[tuple[Context, sqlite3.Connection]]]:
    """A task-generation context over each starter bundle's state, as the tasks step builds it."""
    from pipeline.policy.model import Policy
    from pipeline.runtime.environment import Environment
    from pipeline.tasks.phrasing import Phrasebook
    from pipeline.tools.executor import open_copy

    opened: list[tuple[Any, sqlite3.Connection, Context]] = []
    try:
        for path in bundles.values():
            env = Environment.from_bundle(Path(path))
            conn = open_copy(env.bundle.state_bytes)
            policy = Policy.model_validate(env.bundle.manifest.policy_rules)
            ctx = Context(env.schema, env.toolset, env.executor, conn, policy.clock, 0, Phrasebook.load(), policy)
            opened.append((env, conn, ctx))
        yield [(ctx, conn) for _env, conn, ctx in opened]
    finally:
        for env, conn, _ctx in opened:
            conn.close()
            env.close()


def test_a_parents_latest_and_earliest_rows_match_the_grouped_query(bundles: dict[str, Any]) -> None:
    """``locate._ends`` reads a parent's latest and earliest child from the held columns; the grouped
    SQL query it replaced is the reading it must equal, on every table, reference and time column of
    every starter bundle (ties, missing times and missing parents included)."""
    from pipeline.tasks import locate
    from pipeline.world.sqlnames import quote_ident

    checked = 0
    with _bundle_contexts(bundles) as contexts:
        for ctx, conn in contexts:
            for table in ctx.schema.tables:
                rows = ctx.rows(table)
                for fk in table.foreign_keys:
                    for col in ctx.times(table):
                        t, f, c = quote_ident(table.name), quote_ident(fk.name), quote_ident(col.name)
                        query = (
                            f"SELECT a.id FROM {t} a JOIN (SELECT {f} AS p, max({c}) AS hi, min({c}) AS lo FROM {t} "
                            f"WHERE {f} IS NOT NULL GROUP BY {f}) g ON a.{f} = g.p AND (a.{c} = g.hi OR a.{c} = g.lo)"
                        )
                        expected = {r[0] for r in conn.execute(query)}
                        assert locate._ends(ctx, table, rows, fk.name, col.name) == expected, (table.name, fk.name)
                        checked += 1
    assert checked >= 10


def test_a_name_word_s_matches_and_their_second_attributes_count_as_the_list_tool_counts(
    bundles: dict[str, Any],
) -> None:
    """``locate._by_partial`` reads the rows a word of a name matches once and counts each second
    attribute over them by mask; the list tool's own total for the same arguments is what each count
    must equal, for words of many rows' names and every describing column of every starter bundle."""
    from pipeline.tasks.locate import WORD

    checked = 0
    with _bundle_contexts(bundles) as contexts:
        for ctx, _conn in contexts:
            for table in ctx.schema.tables:
                contains = f"{table.label}_contains"
                tool = ctx.tool("list", table)
                if tool is None or contains not in ctx.toolset.get(tool).parameters["properties"]:
                    continue
                every = ctx.rows(table)
                for row in every[:: max(1, len(every) // 12)]:
                    for word in WORD.findall(str(row[table.label] or ""))[:2]:
                        sharing = ctx.rows(table, Where(table.label, "contains", word))
                        assert len(sharing) == ctx.total(table, {contains: word}), (table.name, word)
                        for c in ctx.describers(table):
                            f = Filter.matching(c, row[c.name])
                            if f is None:
                                continue
                            counted = int(sharing.column(c.name).mask(f).sum())
                            assert counted == ctx.total(table, {contains: word, **f.arguments()}), (table.name, c.name)
                            checked += 1
    assert checked >= 100


def test_rows_with_ids_keep_the_query_order() -> None:
    rows = Rows(["id", "v"], [(1, "a"), (3, "b"), (4, None), (9, "c")])
    assert [r["id"] for r in rows.with_ids({9, 1, 4})] == [1, 4, 9]
    assert list(rows.with_ids(set())) == []


@pytest.mark.parametrize("seed", range(3))
def test_rows_grouped_are_the_rows_of_each_key_in_the_query_order(seed: int) -> None:
    rows, rng = _rows(200, seed), random.Random(seed)
    keys = [rng.choice([None, "a", "b", 7]) for _ in range(len(rows))]
    want: dict[Any, list[dict[str, Any]]] = {}
    for key, row in zip(keys, rows, strict=True):
        if key is not None:
            want.setdefault(key, []).append(row)
    got = rows.grouped(keys)
    assert {k: list(v) for k, v in got.items()} == want
    assert list(got) == list(want)  # the keys in first-seen order, as a dict built row by row has them
    with pytest.raises(ValueError):
        rows.grouped(keys[:-1])
