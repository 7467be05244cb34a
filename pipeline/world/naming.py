"""How a schema spells its identifiers, and how an identifier reads as words.

Kept apart from :mod:`pipeline.world.schema` because everything that names things reads it
(labels, tool names, task wording) while only step 1 builds schemas.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pipeline.world.fields import Entity


class Naming(BaseModel):
    """How identifiers are spelled. Meaning never changes with style: ``Column.field`` and
    ``Table.entity`` keep the blueprint's snake_case names."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tables: Literal["snake", "camel", "pascal"] = "snake"
    plural: bool = True
    prefix: str = ""
    """A snake_case prefix put before every table name (``tbl_``, ``app_``)."""
    columns: Literal["snake", "camel"] = "snake"

    def table(self, entity: Entity) -> str:
        return _style(self.prefix + (entity.plural_name if self.plural else entity.name), self.tables)

    def column(self, field: str) -> str:
        return _style(field, self.columns)


def _style(snake: str, style: str) -> str:
    if style == "snake":
        return snake
    parts = [p for p in snake.split("_") if p]
    head = parts[0] if style == "camel" else parts[0].capitalize()
    return head + "".join(p.capitalize() for p in parts[1:])


_CAMEL_SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def words(identifier: str) -> list[str]:
    """Lower-case words of an identifier in any style (``orderItems`` -> ``order``, ``items``)."""
    return [w.lower() for w in _CAMEL_SPLIT.sub("_", identifier).split("_") if w]


UNITS = ("kg", "g", "lb", "ml", "l", "km", "m", "mi", "hours", "minutes", "m3", "kwh")
"""Last words of a numeric field's name that are its unit (``weight_kg``): people write them apart,
"weight (kg)", and a record's measures add up in them."""


def with_unit(text: str) -> str:
    """``"weight kg"`` -> "weight (kg)"; anything without a trailing unit as it is."""
    stem, _, unit = text.rpartition(" ")
    return f"{stem} ({unit})" if stem and unit in UNITS else text


def readable_field(field: str, reference: bool = False) -> str:
    """``consultation_fee`` -> "consultation fee"; a reference names what it points at (``parcel_id`` ->
    "parcel"); a flag says what it marks (``is_archived`` -> "archived")."""
    parts = words(field)
    if reference and len(parts) > 1 and parts[-1] == "id":
        parts = parts[:-1]
    if len(parts) > 1 and parts[0] == "is":
        parts = parts[1:]
    return " ".join(parts)


def pluralise(noun: str) -> str:
    head, _, last = noun.rpartition(" ")
    if last.endswith(("s", "x", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}".strip()


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
