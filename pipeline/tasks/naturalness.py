"""Does an instruction read as a person would write it? Rules a build and ``synthenv check`` enforce.

An instruction is checked without the refusal form every one ends with. The rules, each named
in a violation (and in the build's drop reason ``unnatural:<rule>``):

* ``relative_clauses``: a noun phrase stacks relative clauses ("the claim whose status is
  closed whose policy is the policy whose ..."). One clause per noun phrase reads naturally,
  and so do two joined by "and" ("whose status is closed and whose amount is 12"); a chain
  of them makes the reader parse the sentence like a query.
* ``identifier``: a token only the database knows: a snake_case or camelCase name of the
  schema (``cancel_order``, ``unit_price``, ``tbl_Orders``), any other snake_case word, or
  SQL ("WHERE", ">=", "IS NULL"). Codes a user is given (``ORD-104233``) are values, not
  identifiers, and pass.
* ``raw_id``: a row's internal key spoken as a database column ("the pet with id 194",
  "whose id is 39"). A record number as a user is given it ("order #12") passes: tasks that
  hand the user an id name the record that way.
* ``always_true`` / ``always_false``: a condition the state cannot make matter. For the
  ``conditional`` family, the condition it tests holds for every row (or for none) of the
  table it reads; for a filter of a listing in the reference, the filter keeps every row of
  the table, or none (an infeasible request may name what does not exist, so it is exempt
  from ``always_false``). Checking such a condition decides nothing.
* ``article``: "a" before a word spoken with a vowel sound ("a account name"), outside quoted
  values; words that start with a capital (names, codes, acronyms) are left alone.

The rules are conservative: each flags a pattern that is wrong wherever it appears, so a
clean instruction is never dropped for wording a person would use.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from typing import Any

from pipeline.runtime.task import Task, ToolCall, call_key
from pipeline.tasks.phrasing import Phrasebook, split_refusal_form
from pipeline.tasks.words import NUMERIC, column_words, plural_words, relation_words, with_article, words
from pipeline.tools.executor import Executor, ToolError
from pipeline.world.schema import Column, Schema, Table
from pipeline.world.sqlnames import quote_ident

RULES = ("relative_clauses", "identifier", "raw_id", "always_true", "always_false", "article")


@dataclass(frozen=True)
class Violation:
    """One rule an instruction breaks, with the words that break it."""

    rule: str
    detail: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.detail}"


@dataclass(frozen=True)
class World:
    """What the state rules read: the schema, the tools and the initial state (read only)."""

    schema: Schema
    executor: Executor
    conn: sqlite3.Connection
    totals: dict[str, int | None] = field(default_factory=dict, compare=False)
    """Row counts already asked for (a build checks many candidates against one state)."""


# -- wording rules -------------------------------------------------------------------------------

_QUOTED = re.compile(r'"[^"]*"')
_SEGMENT = re.compile(r"[.;:?!,]\s|[.;:?!]$")
_MARKER = re.compile(r"\bwhose\b|\b(?:that|which)\s+(?:belongs?|is|are|has|have|was|were)\b")
_JOINED = re.compile(r"\b(?:and|or|than)\b|\bof\s+(?:the|an?)\b")
_SNAKE = re.compile(r"(?<![\w@.-])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w@-]|\.\w)")
_SQL = re.compile(r"\b(?:SELECT|WHERE|JOIN|GROUP BY|ORDER BY|IS NULL|NOT NULL|NULL|null)\b|(?<![<>=!])(?:>=|<=|!=|==)")
_RAW_ID = re.compile(r"\b(?:ids?|IDs?)\b(?:\s+(?:is|of|=))?\s+#?\d+\b")
_A_WORD = re.compile(r"(?<![\w'-])a ([a-z][\w-]*)")
"""A lowercase article "a" and the word after it (capitalised words are names, codes or acronyms)."""
_CAMEL = re.compile(r"[a-z][A-Z]")


def relative_clause_chains(text: str) -> list[str]:
    """Stretches of ``text`` where one relative clause follows another with no "and" between
    (nor "of the", which starts the noun phrase the next clause belongs to: "the fines of the
    members of the branch whose name ...").

    Quoted names are blanked first (a title may hold any word) and the text is cut at
    punctuation, so two noun phrases of one sentence ("Of A, or B") are never joined."""
    plain = _QUOTED.sub('""', text).replace("(", " ").replace(")", " ")
    found = []
    for segment in _SEGMENT.split(plain):
        marks = list(_MARKER.finditer(segment))
        for before, after in pairwise(marks):
            between = segment[before.end() : after.start()]
            if not _JOINED.search(between):
                found.append(" ".join(segment[before.start() : after.end()].split()))
    return found


def _schema_identifiers(schema: Schema) -> frozenset[str]:
    """Names of the schema a user would not say: those that are not plain lower-case words."""
    names: set[str] = set()
    for table in schema.tables:
        names.add(table.name)
        for column in table.columns:
            names.update({column.name, column.field or column.name})
            names.update(column.values or ())
    names.update(op.name for op in schema.operations)
    return frozenset(n for n in names if "_" in n or _CAMEL.search(n))


def wording_violations(request: str, schema: Schema | None = None) -> list[Violation]:
    """The wording rules (``relative_clauses``, ``identifier``, ``raw_id``, ``article``) over one request."""
    out = [Violation("relative_clauses", chain) for chain in relative_clause_chains(request)]
    plain = _QUOTED.sub('""', request)
    tokens = {m.group(0) for m in _SNAKE.finditer(plain)}
    if schema is not None:
        for name in _schema_identifiers(schema):
            if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", plain):
                tokens.add(name)
    out += [Violation("identifier", t) for t in sorted(tokens)]
    out += [Violation("identifier", m.group(0)) for m in _SQL.finditer(plain)]
    out += [Violation("raw_id", m.group(0)) for m in _RAW_ID.finditer(plain)]
    out += [Violation("article", m.group(0)) for m in _A_WORD.finditer(plain) if with_article(m.group(1))[:3] == "an "]
    return out


# -- state rules: filters --------------------------------------------------------------------------

_BOUNDS = ("_min", "_max", "_from", "_to")
_NOT_FILTERS = frozenset({"limit", "offset", "order_by", "descending", "id"})


def _filter_groups(table: Table, columns: Iterable[str], arguments: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A list call's arguments grouped by the attribute they filter on: only attributes a user
    describes rows by (not keys, references, names or unique codes, nor text searches)."""
    filterable = set(columns)
    groups: dict[str, dict[str, Any]] = {}
    for key, value in arguments.items():
        if key in _NOT_FILTERS:
            continue
        base = next(
            (key.removesuffix(s) for s in _BOUNDS if key.endswith(s) and key.removesuffix(s) in filterable), key
        )
        if base not in filterable:
            continue
        column = table.column(base)
        if column.primary_key or column.references or column.unique or base == table.label:
            continue
        groups.setdefault(base, {})[key] = value
    return groups


def filter_violations(world: World, solution: Sequence[ToolCall], family: str) -> list[Violation]:
    """Filters of the reference's listings that keep every row of their table, or none."""
    out = []
    for call in solution:
        try:
            spec = world.executor.spec(call.tool)
        except (KeyError, ValueError, ToolError):
            continue
        if spec.kind != "list":
            continue
        table = world.schema.table(spec.table)
        groups = _filter_groups(table, spec.columns, call.arguments)
        if not groups:
            continue
        everything = _total(world, call.tool, {})
        for args in groups.values():
            hits = _total(world, call.tool, args)
            if hits is None or everything is None:
                continue
            shown = ", ".join(f"{k}={v}" for k, v in args.items())
            if everything > 1 and hits == everything:
                out.append(Violation("always_true", f"{table.plural} with {shown} (all {everything})"))
            elif hits == 0 and family != "infeasible":
                out.append(Violation("always_false", f"{table.plural} with {shown} (none)"))
    return out


def _total(world: World, tool: str, arguments: dict[str, Any]) -> int | None:
    key = call_key(tool, arguments)
    if key not in world.totals:
        try:
            world.totals[key] = int(world.executor.call(world.conn, tool, {**arguments, "limit": 1})["total"])
        except ToolError:
            world.totals[key] = None
    return world.totals[key]


# -- state rules: the conditional family's condition ----------------------------------------------


_Form = tuple[str, re.Pattern[str]]


@cache
def _condition_patterns(phrases: Phrasebook) -> tuple[tuple[re.Pattern[str], ...], tuple[_Form, ...]]:
    """Regular expressions for the conditional family's sentence and for each condition form."""

    def pattern(template: str) -> re.Pattern[str]:
        text = re.escape(" ".join(template.split()))
        text = re.sub(r"\\\{([a-z_]+)\\\}", lambda m: f"(?P<{m.group(1)}>.+?)", text)
        return re.compile(text + r"\.?", re.DOTALL)

    sentences = tuple(pattern(t) for t in phrases.variants("conditional", "conditional"))
    forms = tuple(
        (form, pattern(t))
        for form in ("self_number", "self_equals", "parent_number", "parent_equals", "children")
        for t in phrases.variants("conditional", form)
    )
    return sentences, forms


def _rows(world: World, table: Table, column: str) -> list[Any]:
    sql = f"SELECT {quote_ident(column)} FROM {quote_ident(table.name)}"
    return [r[0] for r in world.conn.execute(sql)]


def _column(table: Table, said: str) -> Column | None:
    return next((c for c in table.columns if column_words(c) == said and not c.references), None)


def _holds(column: Column, kind: str, said: str, value: Any) -> bool:
    if value is None:
        return False
    if kind == "number":
        return float(value) >= float(said)
    shown = words(str(value)) if column.values else str(value)
    return said.strip('"') == shown


def _judge(held: list[bool], what: str) -> list[Violation]:
    if len(held) > 1 and all(held):
        return [Violation("always_true", what)]
    if held and not any(held):
        return [Violation("always_false", what)]
    return []


def condition_violations(
    world: World, instruction: str, solution: Sequence[ToolCall], knobs: Mapping[str, Any], phrases: Phrasebook
) -> list[Violation]:
    """A conditional task's condition that every row of the table it reads meets, or none does."""
    sentences, forms = _condition_patterns(phrases)
    whole = next((m for p in sentences if (m := p.fullmatch(instruction))), None)
    written = [ToolCall.model_validate(c) for c in knobs.get("other_branch", ())]
    writes = [c for c in [*solution, *written] if world.executor.spec(c.tool).mode == "write"]
    if whole is None or not writes:
        return []
    table = world.schema.table(world.executor.spec(writes[0].tool).table)
    condition = whole.group("condition")
    for form, p in forms:
        m = p.fullmatch(condition)
        if m is None:
            continue
        slots = m.groupdict()
        kind = form.split("_")[-1]
        if form == "children":
            return _children(world, table, slots["plural"], slots["value"], condition)
        target = table
        if form.startswith("parent_"):
            fk = next((f for f in table.foreign_keys if relation_words(f) == slots["relation"]), None)
            if fk is None:
                continue
            target = world.schema.table(str(fk.references))
        column = _column(target, slots["column"])
        if column is None or (kind == "number" and column.semantic not in NUMERIC):
            continue
        try:
            held = [_holds(column, kind, slots["value"], v) for v in _rows(world, target, column.name)]
        except ValueError:
            continue
        return _judge(held, f"{condition} ({target.plural})")
    return []


def _children(world: World, table: Table, plural: str, value: str, condition: str) -> list[Violation]:
    for child in world.schema.tables:
        if plural_words(child) != plural or not value.isdigit():
            continue
        for fk in child.foreign_keys:
            if fk.references != table.name:
                continue
            sql = (
                f"SELECT count(c.id) FROM {quote_ident(table.name)} t LEFT JOIN {quote_ident(child.name)} c "
                f"ON c.{quote_ident(fk.name)} = t.id GROUP BY t.id"
            )
            held = [n >= int(value) for (n,) in world.conn.execute(sql)]
            return _judge(held, f"{condition} ({table.plural})")
    return []


# -- everything --------------------------------------------------------------------------------


def violations(
    instruction: str,
    solution: Sequence[ToolCall],
    family: str,
    knobs: Mapping[str, Any],
    world: World | None = None,
    phrases: Phrasebook | None = None,
) -> list[Violation]:
    """Every rule ``instruction`` breaks (its refusal form, if it ends with one, left out); the
    state rules run only when ``world`` is given."""
    book = phrases or Phrasebook.load()
    request, _ = split_refusal_form(instruction, book)
    out = wording_violations(request, world.schema if world is not None else None)
    if world is not None:
        out += filter_violations(world, solution, family)
        if family == "conditional":
            out += condition_violations(world, request, solution, knobs, book)
    return out


def task_violations(task: Task, world: World, phrases: Phrasebook | None = None) -> list[Violation]:
    """:func:`violations` of a shipped task."""
    return violations(task.instruction, task.solution, task.family, task.knobs, world, phrases)
