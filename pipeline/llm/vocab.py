"""Vocabularies for a scenario's free-text fields: product names a florist sells, course titles…

Population's built-in pools are generic (Faker's words, catch phrases); a scenario knows
better. One request lists the blueprint's free-text fields (those of
:data:`~pipeline.world.fields.VOCABULARY_TYPES` without a vocabulary or fixed list of
their own) and asks for values for each. Each list is checked on its own (strings,
distinct, trimmed, no control characters, sizes within bounds); a list that fails is
left out with its reason and the field keeps the built-in pool. Kept lists become the
fields' ``vocabulary``: data that population draws from, nothing else.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from pipeline.llm.client import Client, Messages
from pipeline.llm.parse import ReplyError, canonical, load_object
from pipeline.llm.sanitize import Change, clean_values
from pipeline.llm.usage import Ledger
from pipeline.world.blueprint import Blueprint
from pipeline.world.fields import MAX_VOCABULARY, VOCABULARY_TYPES, FieldSpec

STEP = "vocab"
MIN_VALUES = 8
ASK_VALUES = 40
MAX_FIELDS = 40


@dataclass
class VocabResult:
    blueprint: Blueprint
    kept: list[str] = field(default_factory=list)
    """``entity.field`` names given a vocabulary."""
    rejected: Counter[str] = field(default_factory=Counter)
    cleaned: list[str] = field(default_factory=list)
    """What cleaning changed in the kept values (``vocab entity.field/i: what``)."""


def targets(bp: Blueprint) -> list[tuple[str, FieldSpec]]:
    """``(entity, field)`` of every free-text field that could take a vocabulary."""
    out = [
        (e.name, f)
        for e in bp.entities
        for f in e.fields
        if f.type in VOCABULARY_TYPES and f.vocabulary is None and f.initial is None
    ]
    return out[:MAX_FIELDS]


def messages(bp: Blueprint, fields: list[tuple[str, FieldSpec]]) -> Messages:
    wanted = {
        f"{entity}.{f.name}": {
            "entity": bp.entity(entity).description or entity,
            "field": f.description or f.name.replace("_", " "),
            "kind": f.type,
        }
        for entity, f in fields
    }
    system = (
        "You write realistic sample values for the text fields of an application's database. "
        'Answer with one JSON object {"vocabularies": {"<entity>.<field>": ["value", ...], ...}} and nothing else. '
        f"Give {ASK_VALUES} distinct, plausible values per field, in the language and style of the domain: "
        "no numbering, no placeholders, each at most 120 characters (a 'text' value is one or two sentences). "
        "Values are data shown to users, never code or instructions."
    )
    user = f"Application: {bp.title}: {bp.description}\nFields:\n{canonical(wanted)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _checked(f: FieldSpec, values: Any, where: str, cleaned: list[Change]) -> tuple[str, ...] | str:
    """The values as a vocabulary for ``f`` (cleaned: :mod:`pipeline.llm.sanitize`, changes added to
    ``cleaned``), or why they cannot be one."""
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        return "not_a_list_of_strings"
    words = tuple(dict.fromkeys(v.strip() for v in clean_values(values, where, cleaned) if v.strip()))
    if len(words) < MIN_VALUES:
        return "too_few_values"
    try:
        FieldSpec.model_validate({**f.model_dump(exclude_defaults=True), "vocabulary": words[:MAX_VOCABULARY]})
    except ValidationError:
        return "invalid_values"
    return words[:MAX_VOCABULARY]


def add_vocabularies(bp: Blueprint, client: Client, ledger: Ledger) -> VocabResult:
    """The blueprint with every vocabulary that passed its checks (unchanged when none did)."""
    fields = targets(bp)
    result = VocabResult(bp)
    if not fields:
        return result
    reply = client.complete(STEP, messages(bp, fields), ledger)
    try:
        vocabularies = load_object(reply.text).get("vocabularies")
    except ReplyError:
        result.rejected["unreadable_reply"] += len(fields)
        return result
    if not isinstance(vocabularies, dict):
        result.rejected["no_vocabularies_object"] += len(fields)
        return result
    chosen: dict[tuple[str, str], tuple[str, ...]] = {}
    for entity, f in fields:
        name = f"{entity}.{f.name}"
        if name not in vocabularies:
            result.rejected["missing"] += 1
            continue
        changes: list[Change] = []
        checked = _checked(f, vocabularies[name], f"vocab {name}", changes)
        if isinstance(checked, str):
            result.rejected[checked] += 1
        else:
            chosen[(entity, f.name)] = checked
            result.kept.append(name)
            result.cleaned += [str(c) for c in changes]
    if chosen:
        data = bp.model_dump(mode="json", exclude_defaults=True)
        for e in data["entities"]:
            for f in e["fields"]:
                if (e["name"], f["name"]) in chosen:
                    f["vocabulary"] = list(chosen[(e["name"], f["name"])])
        result.blueprint = Blueprint.model_validate(data)
    return result
