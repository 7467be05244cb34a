"""How columns, tables, relations and dates read in an instruction, and which kinds of value
a user names, compares or describes someone by. Kept apart from ``context`` so families,
locate and the exploit library can phrase things without the state reader."""

from __future__ import annotations

from datetime import datetime

from pipeline.world.naming import with_article as with_article
from pipeline.world.naming import with_unit
from pipeline.world.schema import Column, Table

NUMERIC = frozenset({"money", "quantity", "integer", "rating", "percent", "decimal"})
TIMES = frozenset({"timestamp", "date"})
CODE_LIKE = frozenset({"code", "sku", "isbn", "license_plate", "postcode", "email", "phone", "username"})
PLAIN_NAMES = frozenset({"person_name", "first_name", "last_name", "company"})
DESCRIPTIVE = frozenset({"city", "country", "word", "company", "job_title", "color", "first_name", "last_name"})
"""Text columns a user might describe someone by ("the customer from Springfield")."""


def words(name: str) -> str:
    return name.replace("_", " ")


def field_words(column: Column) -> str:
    """A column as its blueprint field reads, whatever the table's naming style: ``loyaltyTier`` -> "loyalty tier";
    a number's unit set apart, as people write it: ``weight_kg`` -> "weight (kg)"."""
    text = words(column.field or column.name)
    return with_unit(text) if column.semantic in NUMERIC else text  # a text field's last word is no unit


def plural_words(table: Table) -> str:
    """A table's rows in words, whatever the table is called: ``tbl_CityDepartments`` -> "city departments"."""
    return table.plural


def relation_words(fk: Column) -> str:
    """``customer_id`` -> "customer", ``origin_airport_id`` -> "origin airport"."""
    return words((fk.field or fk.name).removesuffix("_id"))


def column_words(column: Column) -> str:
    """``placed_at`` -> "placed date", ``loyalty_tier`` -> "loyalty tier"."""
    if column.semantic in TIMES:
        stem = column.field or column.name
        for suffix in ("_at", "_on", "_date", "_time"):
            stem = stem.removesuffix(suffix)
        return words(stem) + " date"
    return field_words(column)


def nice_date(value: str) -> str:
    d = datetime.strptime(value[:10], "%Y-%m-%d")
    return f"{d.strftime('%B')} {d.day}, {d.year}"
