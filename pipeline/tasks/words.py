"""How columns, tables, relations and dates read in an instruction, and which kinds of value
a user names, compares or describes someone by. Kept apart from ``context`` so families,
locate and the exploit library can phrase things without the state reader."""

from __future__ import annotations

from datetime import datetime

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


_SOUNDS_CONSONANT = ("uni", "use", "usa", "usu", "uti", "eu", "one", "once")
"""Vowel letters read as a consonant sound: "a unit price", "a usage fee", "a one-way fare"."""
_SOUNDS_VOWEL = ("hour", "honest", "honor", "honour", "heir")


_PARTICIPLES = ("sold", "paid", "made", "held", "spent", "taken", "given", "seen", "built", "won", "lost", "kept")
"""Past participles without "-ed" that end a column's words after its noun ("units sold")."""


def plural_head(phrase: str) -> bool:
    """Whether the phrase's noun is plural ("key cards issued", "units sold", "nights"): the last word,
    or the one before a closing participle, ending in a plural "s" (not "status", "address", "basis")."""
    parts = phrase.lower().split()
    if len(parts) > 1 and (parts[-1].endswith("ed") or parts[-1] in _PARTICIPLES):
        parts = parts[:-1]
    head = parts[-1] if parts else ""
    return len(head) > 3 and head.endswith("s") and not head.endswith(("ss", "us", "is"))


def with_article(phrase: str) -> str:
    """The phrase with "a" or "an" as it is spoken ("an amount", "a unit price", "an hourly rate"); a
    plural takes none ("key cards issued": "with key cards issued of at least 4", never "a key cards")."""
    if plural_head(phrase):
        return phrase
    low = phrase.lower()
    vowel = low[:1] in ("a", "e", "i", "o", "u") and not low.startswith(_SOUNDS_CONSONANT)
    return ("an " if vowel or low.startswith(_SOUNDS_VOWEL) else "a ") + phrase


def nice_date(value: str) -> str:
    d = datetime.strptime(value[:10], "%Y-%m-%d")
    return f"{d.strftime('%B')} {d.day}, {d.year}"
