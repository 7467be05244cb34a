"""``Context.rows`` takes structured conditions: names are quoted, values bound, never SQL text."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from pipeline.tasks.context import Context, Where
from pipeline.world.schema import Table


@pytest.fixture
def ctx() -> Iterator[Context]:
    # Names a hostile schema.json could carry: a bare "..." around them would end the identifier.
    conn = sqlite3.connect(":memory:")
    conn.execute('CREATE TABLE "we""ird" (id INTEGER PRIMARY KEY, "pa""rent" INTEGER)')
    conn.executemany('INSERT INTO "we""ird" VALUES (?, ?)', [(4, None), (1, 7), (3, 8), (2, 7)])
    # Only the connection is read by rows(); the rest of the context plays no part here.
    yield Context(None, None, None, conn, "", 0, None)  # type: ignore[arg-type]
    conn.close()


TABLE = Table.model_construct(name='we"ird')


def ids(rows: object) -> list[int]:
    return [r["id"] for r in rows]  # type: ignore[attr-defined]


def test_rows_filter_by_quoted_columns_in_id_order(ctx: Context) -> None:
    assert ids(ctx.rows(TABLE)) == [1, 2, 3, 4]
    assert ids(ctx.rows(TABLE, Where('pa"rent', "=", 7))) == [1, 2]
    assert ids(ctx.rows(TABLE, Where("id", "in", (4, 1, 9)))) == [1, 4]
    assert ids(ctx.rows(TABLE, Where('pa"rent', "=", 7), Where("id", "in", (2, 3)))) == [2]
    assert ctx.row(TABLE, 3) == {"id": 3, 'pa"rent': 8}


def test_a_value_that_reads_like_sql_is_only_a_value(ctx: Context) -> None:
    assert ids(ctx.rows(TABLE, Where('pa"rent', "=", "7 OR 1=1"))) == []


def test_rows_are_memoised_per_condition(ctx: Context) -> None:
    first = ctx.rows(TABLE, Where('pa"rent', "=", 7))
    assert ctx.rows(TABLE, Where('pa"rent', "=", 7)) is first
    assert ctx.rows(TABLE, Where('pa"rent', "=", 8)) is not first


def test_an_unknown_operator_is_refused(ctx: Context) -> None:
    with pytest.raises(ValueError, match=r"Where\.op"):
        ctx.rows(TABLE, Where("id", "like", "%"))  # type: ignore[arg-type]
