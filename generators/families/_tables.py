"""Shared small-table data and rendering for the table families.

Tables are the bridge to the SQL environments, so they look like database rows: a unique
key column (a name), categorical columns (what ``WHERE``/``GROUP BY`` filter on) and integer
columns (what aggregates sum). Values are integers only, so every gold answer is exact.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from generators.answers import ANSWER_ERRORS, compare, extract_answer, normalize_text
from generators.base import AnswerKind

FIRST_NAMES: tuple[str, ...] = (
    "Aaron",
    "Abigail",
    "Adam",
    "Aisha",
    "Alan",
    "Alice",
    "Amir",
    "Anna",
    "Arjun",
    "Ava",
    "Beatrice",
    "Ben",
    "Bianca",
    "Boris",
    "Caleb",
    "Carla",
    "Carmen",
    "Chloe",
    "Clara",
    "Daniel",
    "Dara",
    "Diego",
    "Dmitri",
    "Elena",
    "Eli",
    "Emma",
    "Erik",
    "Esther",
    "Ethan",
    "Fatima",
    "Felix",
    "Fiona",
    "Gabriel",
    "Grace",
    "Hana",
    "Hassan",
    "Hugo",
    "Ines",
    "Ingrid",
    "Isaac",
    "Ivan",
    "Jade",
    "Jamal",
    "Jasmine",
    "Javier",
    "Jonas",
    "Julia",
    "Kai",
    "Kamal",
    "Karen",
    "Kenji",
    "Lara",
    "Leo",
    "Lena",
    "Liam",
    "Lina",
    "Lucas",
    "Luca",
    "Maya",
    "Mateo",
    "Mei",
    "Mila",
    "Nadia",
    "Nina",
    "Noah",
    "Nora",
    "Omar",
    "Oscar",
    "Paula",
    "Pedro",
    "Priya",
    "Quinn",
    "Rafael",
    "Rosa",
    "Ruth",
    "Sam",
    "Sara",
    "Sofia",
    "Tariq",
    "Theo",
    "Uma",
    "Victor",
    "Wanda",
    "Yara",
    "Yusuf",
    "Zara",
    "Zoe",
)

PRODUCTS: tuple[str, ...] = (
    "Anvil",
    "Backpack",
    "Blender",
    "Bookcase",
    "Broom",
    "Bucket",
    "Candle",
    "Carpet",
    "Chair",
    "Clock",
    "Compass",
    "Cushion",
    "Desk",
    "Drill",
    "Easel",
    "Fan",
    "Flashlight",
    "Funnel",
    "Globe",
    "Grill",
    "Hammer",
    "Hammock",
    "Heater",
    "Helmet",
    "Juicer",
    "Kettle",
    "Ladder",
    "Lamp",
    "Lantern",
    "Mirror",
    "Mixer",
    "Mop",
    "Mug",
    "Notebook",
    "Oven",
    "Padlock",
    "Pillow",
    "Planter",
    "Printer",
    "Projector",
    "Radio",
    "Rake",
    "Router",
    "Saw",
    "Scale",
    "Scanner",
    "Scissors",
    "Shovel",
    "Speaker",
    "Stapler",
    "Stool",
    "Stove",
    "Table",
    "Teapot",
    "Tent",
    "Thermos",
    "Toaster",
    "Tripod",
    "Umbrella",
    "Vase",
    "Wallet",
    "Whisk",
    "Wrench",
)

CITIES: tuple[str, ...] = (
    "Aarhus",
    "Accra",
    "Ankara",
    "Athens",
    "Austin",
    "Baku",
    "Bergen",
    "Bilbao",
    "Bogota",
    "Bristol",
    "Brno",
    "Cairo",
    "Calgary",
    "Cork",
    "Dakar",
    "Denver",
    "Dublin",
    "Durban",
    "Essen",
    "Fez",
    "Geneva",
    "Genoa",
    "Graz",
    "Hanoi",
    "Havana",
    "Helsinki",
    "Izmir",
    "Kyoto",
    "Lagos",
    "Leeds",
    "Lima",
    "Lisbon",
    "Lyon",
    "Malmo",
    "Manila",
    "Miami",
    "Milan",
    "Mumbai",
    "Munich",
    "Nairobi",
    "Nantes",
    "Naples",
    "Oslo",
    "Osaka",
    "Ottawa",
    "Perth",
    "Porto",
    "Prague",
    "Quito",
    "Riga",
    "Rome",
    "Seville",
    "Sofia",
    "Tampa",
    "Tunis",
    "Turin",
    "Utrecht",
    "Valencia",
    "Vienna",
    "Vilnius",
    "Warsaw",
    "Zagreb",
    "Zurich",
)

DEPARTMENTS: tuple[str, ...] = (
    "Sales",
    "Engineering",
    "Marketing",
    "Finance",
    "Support",
    "Legal",
    "Research",
    "Operations",
)
CATEGORIES: tuple[str, ...] = ("Garden", "Kitchen", "Office", "Tools", "Outdoor", "Home", "Audio")
SUPPLIERS: tuple[str, ...] = ("Acme", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Hooli")
COUNTRIES: tuple[str, ...] = ("Norway", "Spain", "Japan", "Brazil", "Kenya", "Canada", "Italy", "Peru")
MAJORS: tuple[str, ...] = ("Physics", "History", "Biology", "Economics", "Art", "Chemistry", "Law")


@dataclass(frozen=True)
class Column:
    """One column: ``kind`` is ``key`` (unique names), ``cat`` (small pool) or ``int``."""

    name: str
    kind: str
    pool: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    step: int = 1


@dataclass(frozen=True)
class Schema:
    """A table type; ``entity`` is how one row is called in questions."""

    table: str
    entity: str
    columns: tuple[Column, ...]

    @property
    def key(self) -> Column:
        return self.columns[0]


SCHEMAS: tuple[Schema, ...] = (
    Schema(
        "employees",
        "employee",
        (
            Column("name", "key", FIRST_NAMES),
            Column("department", "cat", DEPARTMENTS),
            Column("city", "cat", CITIES[:12]),
            Column("age", "int", low=22, high=64),
            Column("salary", "int", low=3000, high=9000, step=50),
            Column("years", "int", low=0, high=30),
        ),
    ),
    Schema(
        "products",
        "product",
        (
            Column("product", "key", PRODUCTS),
            Column("category", "cat", CATEGORIES),
            Column("supplier", "cat", SUPPLIERS),
            Column("price", "int", low=5, high=500),
            Column("stock", "int", low=0, high=200),
            Column("rating", "int", low=1, high=5),
        ),
    ),
    Schema(
        "students",
        "student",
        (
            Column("student", "key", FIRST_NAMES),
            Column("major", "cat", MAJORS),
            Column("year", "int", low=1, high=4),
            Column("score", "int", low=40, high=100),
            Column("age", "int", low=18, high=30),
            Column("credits", "int", low=10, high=120),
        ),
    ),
    Schema(
        "cities",
        "city",
        (
            Column("city", "key", CITIES),
            Column("country", "cat", COUNTRIES),
            Column("population", "int", low=50, high=5000, step=10),
            Column("area", "int", low=20, high=900),
            Column("parks", "int", low=0, high=60),
            Column("museums", "int", low=0, high=40),
        ),
    ),
)


def cell_value(column: Column, rng: random.Random, n_categories: int) -> str | int:
    if column.kind == "cat":
        return column.pool[rng.randrange(min(n_categories, len(column.pool)))]
    return (
        rng.randrange(column.low, column.high + 1, column.step)
        if column.step > 1
        else rng.randint(column.low, column.high)
    )


def make_rows(schema: Schema, n_rows: int, rng: random.Random, n_categories: int = 4) -> list[dict[str, str | int]]:
    """``n_rows`` rows with distinct keys; categorical values drawn from the first
    ``n_categories`` pool entries so filters and groups actually collide."""
    if n_rows > len(schema.key.pool):
        raise ValueError(f"{schema.table}: at most {len(schema.key.pool)} rows, got {n_rows}")
    keys = rng.sample(schema.key.pool, n_rows)
    # Shuffle which categories are in use so different items use different pools.
    cat_pools = {
        c.name: tuple(rng.sample(c.pool, min(n_categories, len(c.pool)))) for c in schema.columns if c.kind == "cat"
    }
    rows: list[dict[str, str | int]] = []
    for key in keys:
        row: dict[str, str | int] = {schema.key.name: key}
        for column in schema.columns[1:]:
            if column.kind == "cat":
                row[column.name] = rng.choice(cat_pools[column.name])
            else:
                row[column.name] = cell_value(column, rng, n_categories)
        rows.append(row)
    return rows


def render_markdown(headers: list[str], rows: list[dict[str, str | int]]) -> str:
    """A GitHub-style markdown table (the format most SQL-adjacent prompts use)."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(row[h]) for h in headers) + " |")
    return "\n".join(lines)


def format_number(value: float) -> str:
    """Integers without separators; other values rounded to 2 decimals, trailing zeros cut."""
    if float(value).is_integer():
        return str(int(value))
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text


WITNESS_FORMAT = "`N: first, second, ...`"
"""How a count-with-witness answer is written: the count, a colon, the matching names."""
MAX_WITNESS_CHARS = 4000
"""Longer answers cannot be a list of at most 100 short names; they score 0 unparsed."""


def witness_text(names: list[str]) -> str:
    """The gold form of a counting answer: ``3: Ann, Bo, Cy`` (names in table order).

    Asking for the matching names, not only their number, is what keeps a constant
    count such as "1" or "2" from earning reward: the scorer checks the names exactly.
    """
    if not names or len(set(names)) != len(names) or any("," in n or ":" in n for n in names):
        raise ValueError(f"witness names must be distinct, non-empty and free of ',' and ':', got {names!r}")
    return f"{len(names)}: " + ", ".join(names)


def parse_witness(text: str) -> tuple[int, frozenset[str]] | None:
    """``(count, names)`` of ``N: a, b, ...`` (names case- and space-insensitive), or ``None``.

    Repeated names, an empty name or a count that is not plain digits make it unparsable.
    """
    if len(text) > MAX_WITNESS_CHARS or text.count(":") != 1:
        return None
    head, _, tail = text.partition(":")
    head = head.strip()
    if not head.isdigit() or len(head) > 4:
        return None
    names = [normalize_text(part) for part in tail.split(",")]
    if any(not name for name in names) or len(set(names)) != len(names):
        return None
    return int(head), frozenset(names)


def score_witness(answer_text: str, gold: str) -> float:
    """1.0 when the answer has the gold count and exactly the gold names in any order."""
    try:
        want = parse_witness(gold)
        got = parse_witness(extract_answer(answer_text)[: MAX_WITNESS_CHARS + 1])
        if want is None or got is None:
            return 0.0
        count, names = got
        return 1.0 if count == len(names) and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


def witness_form(what: str) -> str:
    """The answer-format sentence of a counting question whose witnesses are ``what`` (e.g. "names")."""
    return f"Answer with the count, a colon, then their {what} separated by commas, in any order: {WITNESS_FORMAT}."


def witness_or(kind: AnswerKind) -> Callable[[str, Mapping[str, Any]], float]:
    """A family scorer: counting items (gold ``N: ...``) check count and names, the rest compare as ``kind``."""

    def score(answer_text: str, item: Mapping[str, Any]) -> float:
        try:
            gold = str(item["answer"])
            if ":" in gold:
                return score_witness(answer_text, gold)
            return compare(kind, extract_answer(answer_text), gold)
        except ANSWER_ERRORS:
            return 0.0

    return score
