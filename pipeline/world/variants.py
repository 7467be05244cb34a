"""Procedural variants: one blueprint and a seed -> a different, still valid, schema.

A catalog of thirty-odd blueprints is not a thousand worlds. The sampler varies what a
real team would have done differently when designing the same system: which optional
entities and attributes exist, extra bookkeeping attributes, smaller or extended enum
sets and status lifecycles, how many rows each entity has relative to the others, and
how the design was normalised (enums promoted to lookup tables, one-to-one detail
tables, notes, attachments, status history, tags with a link table, reviews, addresses,
contacts, price history, users with an audit log). It aims the table count at a value
drawn from 8..30, then picks a naming style (snake or camel case, plural or singular
tables, a table prefix).

Everything is a function of (blueprint, seed) and goes through the blueprint's own
validation, so a variant is as trustworthy as a hand-written domain. Meaning never
changes with style: ``Table.entity`` and ``Column.field`` keep the snake_case names that
tool names and instructions are built from.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from generators.base import stable_seed
from pipeline.world.blueprint import Blueprint, list_domains, load_blueprint
from pipeline.world.derive import resolve
from pipeline.world.extensions import (
    MAX_TABLES,
    Data,
    entity_data,
    entity_names,
    extend,
    rule_operands,
    used_fields,
)
from pipeline.world.formula import parse_derive
from pipeline.world.naming import Naming
from pipeline.world.schema import Schema, build_schema

MIN_TABLES = 8


@dataclass(frozen=True)
class Variant:
    domain: str
    seed: int
    blueprint: Blueprint
    naming: Naming
    changes: tuple[str, ...]
    """What was varied, in words (for reports and debugging)."""

    @property
    def name(self) -> str:
        return f"{self.domain}_v{self.seed}"

    def schema(self) -> Schema:
        return build_schema(self.blueprint, naming=self.naming, name=self.name)


def pick_domain(seed: int, domains: Sequence[str] | None = None) -> str:
    """The catalog domain for a seed, by rendezvous hashing: adding a domain moves only the
    seeds the new domain wins, so existing seeds mostly keep their world."""
    names = sorted(domains if domains is not None else list_domains())
    if not names:
        raise ValueError("no domain blueprints to choose from")
    return max(names, key=lambda d: stable_seed("domain", seed, d))


def random_schema(seed: int, domain: str | None = None) -> Schema:
    """``synthenv generate --random``: a catalog domain chosen by the seed, varied by the seed."""
    return sample_variant(load_blueprint(domain or pick_domain(seed)), seed).schema()


def sample_variant(blueprint: Blueprint, seed: int) -> Variant:
    rng = random.Random(stable_seed("variant", blueprint.name, seed))
    data = blueprint.model_dump(mode="json", exclude_none=True)
    log: list[str] = []
    target = rng.randint(MIN_TABLES, MAX_TABLES)
    _drop_entities(data, rng, log)
    _drop_fields(data, rng, log)
    _vary_enums(data, rng, log)
    _vary_rows(data, rng)
    _add_fields(data, rng, log)
    extend(data, rng, log, target)
    _clean(data)
    varied = Blueprint.model_validate(data)
    naming = _naming(rng, blueprint.name)
    try:
        build_schema(varied, naming=naming)
    except ValueError:
        naming = Naming()
        log.append("naming fell back to snake_case (names collided)")
    log.append(
        f"naming {naming.tables}{'' if naming.plural else ' singular'}{' ' + naming.prefix if naming.prefix else ''}"
        f" / {naming.columns}"
    )
    return Variant(domain=blueprint.name, seed=seed, blueprint=varied, naming=naming, changes=tuple(log))


# -- helpers over the mutable blueprint data --------------------------------------------------


def _drop_entities(data: Data, rng: random.Random, log: list[str]) -> None:
    rate = rng.uniform(0.25, 0.75)
    for entity in [e for e in data["entities"] if e.get("optional")]:
        if rng.random() >= rate:
            continue
        name = entity["name"]
        blocking = [
            (e["name"], f["name"])
            for e in data["entities"]
            if e["name"] != name
            for f in e["fields"]
            if f.get("ref") == name and not f.get("optional")
        ]
        if blocking:
            continue
        data["entities"] = [e for e in data["entities"] if e["name"] != name]
        for e in data["entities"]:
            e["fields"] = [f for f in e["fields"] if f.get("ref") != name]
        log.append(f"dropped entity {name}")


def _drop_fields(data: Data, rng: random.Random, log: list[str]) -> None:
    rate = rng.uniform(0.15, 0.7)
    for entity in data["entities"]:
        used = used_fields(data, entity)
        keep = []
        for f in entity["fields"]:
            if f.get("optional") and f["name"] not in used and rng.random() < rate:
                log.append(f"dropped field {entity['name']}.{f['name']}")
                continue
            keep.append(f)
        entity["fields"] = keep


def _jitter(weights: Sequence[float], rng: random.Random, sigma: float = 0.35) -> list[float]:
    return [round(w * math.exp(rng.gauss(0, sigma)), 3) for w in weights]


def _vary_enums(data: Data, rng: random.Random, log: list[str]) -> None:
    targets = {(op["entity"], op["field"], op["to"]) for op in data.get("operations", [])}
    for entity in data["entities"]:
        for f in entity["fields"]:
            if f["type"] == "enum" and not f.get("transitions") and not f.get("follows"):
                values = list(f["values"])
                weights = list(f.get("weights") or [1.0] * len(values))
                if len(values) >= 4 and rng.random() < 0.5:
                    keep_n = rng.randint(max(2, math.ceil(0.6 * len(values))), len(values) - 1)
                    kept = [0, *sorted(rng.sample(range(1, len(values)), keep_n - 1))]
                    values, weights = [values[i] for i in kept], [weights[i] for i in kept]
                    log.append(f"narrowed {entity['name']}.{f['name']} to {len(values)} values")
                if "other" not in values and rng.random() < 0.2:
                    values.append("other")
                    weights.append(min(weights) / 2)
                f["values"], f["weights"] = values, _jitter(weights, rng)
            elif f["type"] == "status":
                _vary_status(entity, f, targets, rng, log)


def _vary_status(entity: Data, f: Data, targets: set[tuple[str, str, str]], rng: random.Random, log: list[str]) -> None:
    """Perturb the status mix; sometimes leave out one intermediate state, bridging its transitions."""
    values = list(f["values"])
    weights = list(f.get("weights") or [1.0] * len(values))
    moves: dict[str, list[str]] = {k: list(v) for k, v in (f.get("transitions") or {}).items()}
    droppable = [v for v in values[1:] if (entity["name"], f["name"], v) not in targets]
    if len(values) >= 5 and droppable and rng.random() < 0.3:
        gone = rng.choice(droppable)
        onward = moves.pop(gone, [])
        for src, dsts in list(moves.items()):
            if gone in dsts:
                merged = [d for d in dsts if d != gone] + [d for d in onward if d not in dsts and d != src]
                moves[src] = merged
            if not moves[src]:
                del moves[src]
        i = values.index(gone)
        values.pop(i)
        weights.pop(i)
        log.append(f"left status {gone!r} out of {entity['name']}.{f['name']}")
    f["values"], f["weights"] = values, _jitter(weights, rng, 0.3)
    if moves or f.get("transitions"):
        f["transitions"] = moves


def _vary_rows(data: Data, rng: random.Random) -> None:
    for entity in data["entities"]:
        if not entity.get("fixed_rows"):
            entity["rows"] = max(3, min(1000, round(entity.get("rows", 40) * math.exp(rng.gauss(0, 0.4)))))


_EXTRA_FIELDS: tuple[tuple[str, Data], ...] = (
    ("notes", {"type": "text", "nullable": True, "description": "Free-form remarks"}),
    ("is_archived", {"type": "boolean", "description": "Hidden from day-to-day lists"}),
    ("priority", {"type": "enum", "values": ["low", "normal", "high", "urgent"], "weights": [3, 8, 3, 1]}),
    (
        "source_channel",
        {
            "type": "enum",
            "values": ["web", "mobile_app", "phone", "email", "in_person", "partner"],
            "weights": [8, 5, 3, 2, 2, 1],
        },
    ),
    (
        "external_ref",
        {"type": "code", "unique": True, "nullable": True, "description": "Identifier in a partner system"},
    ),
)


def _add_fields(data: Data, rng: random.Random, log: list[str]) -> None:
    """A few bookkeeping attributes real schemas carry (created/updated times, notes, currency...)."""
    for entity in data["entities"]:
        names = {f["name"] for f in entity["fields"]}
        types = {f["type"] for f in entity["fields"]}
        options: list[tuple[str, Data]] = list(_EXTRA_FIELDS)
        times = [f["name"] for f in entity["fields"] if f["type"] == "timestamp" and not f.get("nullable")]
        if not times:
            options.append(("created_at", {"type": "timestamp"}))
        else:
            options.append(("updated_at", {"type": "timestamp", "after": times[0]}))
        if "money" in types:
            options.append(
                (
                    "currency",
                    {"type": "enum", "values": ["USD", "EUR", "GBP", "CAD", "AUD"], "weights": [12, 4, 2, 1, 1]},
                )
            )
            options.append(("tax_rate", {"type": "percent", "min": 0, "max": 25}))
        if "city" in types and "country" not in types:
            options.append(("country", {"type": "country"}))
        if types & {"person_name", "company"} and "phone" not in types:
            options.append(("contact_phone", {"type": "phone", "nullable": True}))
        for name, spec in rng.sample(options, k=min(len(options), rng.choice((0, 0, 1, 1, 2, 3)))):
            if name not in names:
                entity["fields"].append({"name": name, **spec})
                names.add(name)
                log.append(f"added field {entity['name']}.{name}")


# -- extensions: new tables ------------------------------------------------------------------


def _clean(data: Data) -> None:
    """Drop what no longer resolves after fields and entities moved or went away."""
    names = entity_names(data)
    ops = []
    for op in data.get("operations", []):
        if op["entity"] not in names:
            continue
        fields = {f["name"]: f for f in entity_data(data, op["entity"])["fields"]}
        status = fields.get(op["field"])
        if status is None or op["to"] not in status.get("values", []):
            continue
        if op.get("sets_time") and op["sets_time"] not in fields:
            op.pop("sets_time")
        ops.append(op)
    data["operations"] = ops
    for e in data["entities"]:
        groups = {f["name"] for f in e["fields"] if f["type"] in ("enum", "ref")}
        for f in e["fields"]:  # a vocabulary grouped by a field no longer there draws its default group
            if f.get("vocab_by") is not None and f["vocab_by"] not in groups:
                f.pop("vocab_by")
        if e.get("rules"):
            e["rules"] = [r for r in e["rules"] if _resolves(data, e, r)]
        if e.get("settles"):
            _clean_settles(data, e)
    probe = Blueprint.model_validate(
        {
            **data,
            "entities": [
                {**e, "fields": [{k: v for k, v in f.items() if k != "derive"} for f in e["fields"]]}
                for e in data["entities"]
            ],
        }
    )
    for e in data["entities"]:
        for f in e["fields"]:
            if f.get("derive"):
                try:
                    resolve(
                        probe,
                        probe.entity(e["name"]),
                        probe.entity(e["name"]).field(f["name"]),
                        parse_derive(f["derive"]),
                    )
                except ValueError:
                    f.pop("derive")


def _clean_settles(data: Data, entity: Data) -> None:
    """Payments keep settling their parent while its fields remain; statuses a variant left out leave the lists."""
    s = entity["settles"]
    fields = {f["name"]: f for f in entity["fields"]}
    ref = fields.get(s["parent"], {}).get("ref")
    parent = {f["name"]: f for f in entity_data(data, ref)["fields"]} if ref in entity_names(data) else {}
    statuses = [f for f in parent.values() if f["type"] == "status"]
    status = parent.get(s["status"]) if s.get("status") else (statuses[0] if len(statuses) == 1 else None)
    if s["amount"] not in fields or s["total"] not in parent or status is None:
        entity.pop("settles")
        return
    for group in ("paid", "open", "none"):
        if group in s:
            s[group] = [v for v in s[group] if v in status.get("values", [])]
    if not s["paid"]:
        entity.pop("settles")


def _resolves(data: Data, entity: Data, rule: Data | str) -> bool:
    """Every field a rule reads still exists (a variant may have dropped an optional one)."""
    fields = {f["name"]: f for f in entity["fields"]}
    names = entity_names(data)
    for ref in rule_operands(rule):
        if ref.via is None:
            if ref.field not in fields:
                return False
            continue
        via = fields.get(ref.via)
        if via is None or via.get("ref") not in names:
            return False
        if ref.field not in {f["name"] for f in entity_data(data, via["ref"])["fields"]}:
            return False
    return True


def _naming(rng: random.Random, domain: str) -> Naming:
    abbr = "".join(w[0] for w in domain.split("_") if w)
    style = rng.choices(["snake", "pascal", "camel"], [6, 3, 1])[0]
    prefix = rng.choices(["", "tbl_", "app_", f"{abbr}_", "t_"], [14, 2, 1, 2, 1])[0]
    columns = "camel" if style != "snake" and rng.random() < 0.7 else rng.choices(["snake", "camel"], [5, 1])[0]
    return Naming.model_validate({"tables": style, "plural": rng.random() < 0.7, "prefix": prefix, "columns": columns})
