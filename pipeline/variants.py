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

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.blueprint import Blueprint, list_domains, load_blueprint
from pipeline.derive import parse_derive, resolve
from pipeline.schema import Naming, Schema, build_schema

MIN_TABLES, MAX_TABLES = 8, 30
MAX_NAME = 36
"""Longest entity name an extension may create (tool names stay short)."""

Data = dict[str, Any]


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


def _hash(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode()).digest()[:8], "big")


def pick_domain(seed: int, domains: Sequence[str] | None = None) -> str:
    """The catalog domain for a seed, by rendezvous hashing: adding a domain moves only the
    seeds the new domain wins, so existing seeds mostly keep their world."""
    names = sorted(domains if domains is not None else list_domains())
    if not names:
        raise ValueError("no domain blueprints to choose from")
    return max(names, key=lambda d: _hash("domain", seed, d))


def random_schema(seed: int, domain: str | None = None) -> Schema:
    """``synthenv generate --random``: a catalog domain chosen by the seed, varied by the seed."""
    return sample_variant(load_blueprint(domain or pick_domain(seed)), seed).schema()


def sample_variant(blueprint: Blueprint, seed: int) -> Variant:
    rng = random.Random(_hash("variant", blueprint.name, seed))
    data = blueprint.model_dump(mode="json", exclude_none=True)
    log: list[str] = []
    target = rng.randint(MIN_TABLES, MAX_TABLES)
    _drop_entities(data, rng, log)
    _drop_fields(data, rng, log)
    _vary_enums(data, rng, log)
    _vary_rows(data, rng)
    _add_fields(data, rng, log)
    _extend(data, rng, log, target)
    _clean(data)
    varied = Blueprint.model_validate(data)
    naming = _naming(rng, blueprint.name)
    try:
        build_schema(varied, naming=naming)
    except ValueError:
        naming = Naming()
        log.append("naming fell back to snake_case (names collided)")
    log.append(f"naming {naming.tables}{'' if naming.plural else ' singular'}{' ' + naming.prefix if naming.prefix else ''}"
               f" / {naming.columns}")
    return Variant(domain=blueprint.name, seed=seed, blueprint=varied, naming=naming, changes=tuple(log))


# -- helpers over the mutable blueprint data --------------------------------------------------


def _entity(data: Data, name: str) -> Data:
    for e in data["entities"]:
        if e["name"] == name:
            return e
    raise KeyError(name)


def _names(data: Data) -> set[str]:
    return {e["name"] for e in data["entities"]}


def _used_fields(data: Data, entity: Data) -> set[str]:
    """Fields something else depends on: label, ordering, operations, derivations, follows."""
    used = {entity["label"]}
    for f in entity["fields"]:
        used.update(x for x in (f.get("after"), f.get("follows")) if x)
        if f.get("derive"):
            rule = parse_derive(f["derive"])
            used.update(rule.factors)
            used.update(x for x in (rule.via,) if x)
    for op in data.get("operations", []):
        if op["entity"] == entity["name"]:
            used.update(x for x in (op["field"], op.get("sets_time")) if x)
    for other in data["entities"]:
        for f in other["fields"]:
            if f.get("derive"):
                rule = parse_derive(f["derive"])
                if rule.kind == "sum" and rule.child == entity["name"]:
                    used.update(rule.factors)
                if rule.kind == "copy":
                    used.add(str(rule.source))
    for group in entity.get("unique_together", []):
        used.update(group)
    return used


def _drop_entities(data: Data, rng: random.Random, log: list[str]) -> None:
    rate = rng.uniform(0.25, 0.75)
    for entity in [e for e in data["entities"] if e.get("optional")]:
        if rng.random() >= rate:
            continue
        name = entity["name"]
        blocking = [(e["name"], f["name"]) for e in data["entities"] if e["name"] != name
                    for f in e["fields"] if f.get("ref") == name and not f.get("optional")]
        if blocking:
            continue
        data["entities"] = [e for e in data["entities"] if e["name"] != name]
        for e in data["entities"]:
            e["fields"] = [f for f in e["fields"] if f.get("ref") != name]
        log.append(f"dropped entity {name}")


def _drop_fields(data: Data, rng: random.Random, log: list[str]) -> None:
    rate = rng.uniform(0.15, 0.7)
    for entity in data["entities"]:
        used = _used_fields(data, entity)
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
                    kept = [0] + sorted(rng.sample(range(1, len(values)), keep_n - 1))
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
            entity["rows"] = max(3, min(1000, int(round(entity.get("rows", 40) * math.exp(rng.gauss(0, 0.4))))))


_EXTRA_FIELDS: tuple[tuple[str, Data], ...] = (
    ("notes", {"type": "text", "nullable": True, "description": "Free-form remarks"}),
    ("is_archived", {"type": "boolean", "description": "Hidden from day-to-day lists"}),
    ("priority", {"type": "enum", "values": ["low", "normal", "high", "urgent"], "weights": [3, 8, 3, 1]}),
    ("source_channel", {"type": "enum", "values": ["web", "mobile_app", "phone", "email", "in_person", "partner"],
                        "weights": [8, 5, 3, 2, 2, 1]}),
    ("external_ref", {"type": "code", "unique": True, "nullable": True, "description": "Identifier in a partner system"}),
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
            options.append(("currency", {"type": "enum", "values": ["USD", "EUR", "GBP", "CAD", "AUD"],
                                         "weights": [12, 4, 2, 1, 1]}))
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

Extension = tuple[int, str, Callable[[Data, random.Random], list[str]]]
"""(tables added, description, apply) where apply returns the new entity names."""


def _lookup(entity: str, field: str) -> Extension:
    def apply(data: Data, rng: random.Random) -> list[str]:
        e = _entity(data, entity)
        f = next((x for x in e["fields"] if x["name"] == field), None)
        if f is None:
            return []
        name = field if field.startswith(entity) or "_" in field else f"{entity}_{field}"
        plural = name if name.endswith("s") else None
        if name in _names(data):
            return []
        values = list(f["values"])
        fields: list[Data] = [{"name": "name", "type": "word", "unique": True, "initial": values}]
        if rng.random() < 0.6:
            fields.append({"name": "description", "type": "text", "nullable": True})
        if rng.random() < 0.5:
            fields.append({"name": "sort_order", "type": "integer", "min": 1, "max": max(2, len(values))})
        fields.append({"name": "is_active", "type": "boolean"})
        lookup = {"name": name, "description": f"The allowed values of a {entity.replace('_', ' ')}'s "
                  f"{field.replace('_', ' ')}.", "label": "name", "rows": len(values), "fixed_rows": True,
                  "fields": fields}
        if plural:
            lookup["plural"] = plural
        data["entities"].insert(data["entities"].index(e), lookup)
        index = e["fields"].index(f)
        e["fields"][index] = {"name": f"{field}_id", "type": "ref", "ref": name,
                              "weights": list(f.get("weights") or [1.0] * len(values))}
        return [name]
    return 1, f"promoted {entity}.{field} to a lookup table", apply


def _child(parent: str, suffix: str, description: str, label: str, fields: list[Data], rows: float,
           plural: str | None = None) -> Extension:
    def apply(data: Data, rng: random.Random) -> list[str]:
        name = f"{parent}_{suffix}"
        if name in _names(data) or len(name) > MAX_NAME:
            return []
        p = _entity(data, parent)
        entity = {"name": name, "description": description, "label": label,
                  "rows": max(3, min(1000, int(p.get("rows", 40) * rows * rng.uniform(0.6, 1.4)))),
                  "fields": [{"name": f"{parent}_id", "type": "ref", "ref": parent}, *fields]}
        if plural:
            entity["plural"] = f"{parent}_{plural}"
        data["entities"].append(entity)
        return [name]
    return 1, f"added {parent}_{suffix}", apply


def _notes(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(parent, "note", f"A note written about a {words}.", "subject", [
        {"name": "subject", "type": "title"},
        {"name": "body", "type": "text"},
        {"name": "author", "type": "person_name"},
        {"name": "written_at", "type": "timestamp"},
        {"name": "is_internal", "type": "boolean"},
    ], 1.2)


def _attachments(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(parent, "attachment", f"A file attached to a {words}.", "file_name", [
        {"name": "file_name", "type": "file_name", "unique": True},
        {"name": "content_type", "type": "enum", "values": ["application/pdf", "image/jpeg", "image/png", "text/plain",
                                                            "application/zip"], "weights": [8, 5, 3, 2, 1]},
        {"name": "size_bytes", "type": "integer", "min": 1000, "max": 25_000_000},
        {"name": "uploaded_at", "type": "timestamp"},
    ], 0.8)


def _history(parent: str, status: Data) -> Extension:
    words = parent.replace("_", " ")
    values, moves = list(status["values"]), status.get("transitions") or {}
    s = status["name"]
    return _child(parent, f"{s}_change", f"One change of a {words}'s {s.replace('_', ' ')}.", "change_code", [
        {"name": "change_code", "type": "code", "unique": True},
        {"name": f"from_{s}", "type": "enum", "values": values},
        {"name": f"to_{s}", "type": "enum", "values": values, "transitions": moves, "follows": f"from_{s}"},
        {"name": "changed_at", "type": "timestamp"},
        {"name": "changed_by", "type": "username"},
    ], 2.0)


def _reviews(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(parent, "review", f"A rating and comment left about a {words}.", "headline", [
        {"name": "headline", "type": "title"},
        {"name": "reviewer_name", "type": "person_name"},
        {"name": "rating", "type": "rating", "min": 1, "max": 5},
        {"name": "comment", "type": "text", "nullable": True},
        {"name": "reviewed_at", "type": "timestamp"},
    ], 1.5)


def _addresses(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(parent, "address", f"A postal address of a {words}.", "street", [
        {"name": "address_type", "type": "enum", "values": ["home", "billing", "shipping", "work", "mailing"],
         "weights": [6, 3, 3, 2, 1]},
        {"name": "street", "type": "address"},
        {"name": "city", "type": "city"},
        {"name": "postcode", "type": "postcode"},
        {"name": "country", "type": "country"},
        {"name": "is_primary", "type": "boolean"},
    ], 1.3, plural="addresses")


def _contacts(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(parent, "contact", f"A person to contact at a {words}.", "full_name", [
        {"name": "full_name", "type": "person_name"},
        {"name": "email", "type": "email", "unique": True},
        {"name": "phone", "type": "phone", "nullable": True},
        {"name": "job_title", "type": "job_title"},
    ], 2.0)


def _price_history(parent: str, field: Data) -> Extension:
    words = parent.replace("_", " ")
    m = field["name"]
    bounds = {k: field[k] for k in ("min", "max") if k in field}
    return _child(parent, f"{m}_change", f"A change of a {words}'s {m.replace('_', ' ')}.", "change_code", [
        {"name": "change_code", "type": "code", "unique": True},
        {"name": f"old_{m}", "type": "money", **bounds},
        {"name": f"new_{m}", "type": "money", **bounds},
        {"name": "reason", "type": "enum", "values": ["promotion", "cost_change", "correction", "seasonal",
                                                      "competitor_match"], "weights": [4, 3, 1, 2, 1]},
        {"name": "changed_at", "type": "timestamp"},
    ], 1.5)


def _profile(parent: str, moved: list[str]) -> Extension:
    """One-to-one: a detail table that took some optional attributes out of its parent."""
    def apply(data: Data, rng: random.Random) -> list[str]:
        name = f"{parent}_profile"
        if name in _names(data):
            return []
        p = _entity(data, parent)
        fields = [f for f in p["fields"] if f["name"] in moved]
        if len(fields) < 2:
            return []
        p["fields"] = [f for f in p["fields"] if f["name"] not in moved]
        entity = {"name": name, "description": f"Further details of a {parent.replace('_', ' ')}, one row per "
                  f"{parent.replace('_', ' ')}.", "label": f"{parent}_id",
                  "rows": max(1, int(p.get("rows", 40) * rng.uniform(0.6, 0.95))),
                  "fields": [{"name": f"{parent}_id", "type": "ref", "ref": parent, "unique": True, "nullable": True},
                             *fields,
                             {"name": "updated_at", "type": "timestamp"}]}
        data["entities"].append(entity)
        return [name]
    return 1, f"split {parent} details into a one-to-one table", apply


def _tags(parent: str) -> Extension:
    """Many-to-many: a shared tag table and a link table with a unique (parent, tag) pair."""
    def apply(data: Data, rng: random.Random) -> list[str]:
        link = f"{parent}_tag"
        if link in _names(data) or len(link) > MAX_NAME:
            return []
        added = []
        if "tag" not in _names(data):
            data["entities"].append({"name": "tag", "description": "A label that can be put on records.",
                                     "label": "name", "rows": rng.randint(8, 30), "fixed_rows": True, "fields": [
                                         {"name": "name", "type": "word", "unique": True},
                                         {"name": "color", "type": "color"}]})
            added.append("tag")
        elif _entity(data, "tag")["label"] != "name":
            return []
        p = _entity(data, parent)
        data["entities"].append({
            "name": link, "description": f"A tag put on a {parent.replace('_', ' ')}.", "label": "link_code",
            "rows": max(3, min(1000, int(p.get("rows", 40) * rng.uniform(1.0, 2.5)))),
            "unique_together": [[f"{parent}_id", "tag_id"]],
            "fields": [{"name": "link_code", "type": "code", "unique": True},
                       {"name": "tagged_at", "type": "timestamp"},
                       {"name": f"{parent}_id", "type": "ref", "ref": parent},
                       {"name": "tag_id", "type": "ref", "ref": "tag"}]})
        return [*added, link]
    return 2, f"added tags on {parent}", apply


def _audit(data: Data) -> Extension:
    def apply(data: Data, rng: random.Random) -> list[str]:
        if {"app_user", "audit_event"} & _names(data):
            return []
        entities = sorted(_names(data))
        data["entities"].append({"name": "app_user", "description": "A person who logs in to the system.",
                                 "label": "username", "rows": rng.randint(10, 60), "fields": [
                                     {"name": "username", "type": "username", "unique": True},
                                     {"name": "full_name", "type": "person_name"},
                                     {"name": "email", "type": "email", "unique": True},
                                     {"name": "role", "type": "enum", "values": ["admin", "manager", "staff", "viewer"],
                                      "weights": [1, 3, 8, 2]},
                                     {"name": "created_at", "type": "timestamp"}]})
        data["entities"].append({"name": "audit_event", "description": "A recorded action of a user on a record.",
                                 "label": "event_code", "rows": rng.randint(100, 600), "fields": [
                                     {"name": "event_code", "type": "code", "unique": True},
                                     {"name": "app_user_id", "type": "ref", "ref": "app_user"},
                                     {"name": "action", "type": "enum", "values": ["create", "update", "delete", "login",
                                                                                   "export"], "weights": [4, 8, 1, 5, 1]},
                                     {"name": "record_type", "type": "enum", "values": entities},
                                     {"name": "occurred_at", "type": "timestamp"}]})
        return ["app_user", "audit_event"]
    return 2, "added users and an audit log", apply


def _candidates(data: Data) -> list[Extension]:
    out: list[Extension] = [_audit(data)]
    for e in data["entities"]:
        if e.get("fixed_rows"):
            continue
        name = e["name"]
        types = {f["type"] for f in e["fields"]}
        label_type = next(f["type"] for f in e["fields"] if f["name"] == e["label"])
        used = _used_fields(data, e)
        out += [_notes(name), _attachments(name), _tags(name)]
        for f in e["fields"]:
            if f["type"] == "enum" and not f.get("transitions") and len(f["values"]) >= 3 and f["name"] not in used:
                out.append(_lookup(name, f["name"]))
            if f["type"] == "status" and f.get("transitions"):
                out.append(_history(name, f))
            if f["type"] == "money" and ("price" in f["name"] or "rate" in f["name"] or "fee" in f["name"]):
                out.append(_price_history(name, f))
        if label_type in ("product_name", "title", "company", "word"):
            out.append(_reviews(name))
        if types & {"person_name", "company"} and "address" not in types:
            out.append(_addresses(name))
        if label_type == "company":
            out.append(_contacts(name))
        movable = [f["name"] for f in e["fields"] if f.get("optional") and f["type"] not in ("ref", "status")
                   and f["name"] not in used and not f.get("unique")]
        if len(movable) >= 2:
            out.append(_profile(name, movable))
    return out


def _extend(data: Data, rng: random.Random, log: list[str], target: int) -> None:
    candidates = _candidates(data)
    rng.shuffle(candidates)
    for size, description, apply in candidates:
        count = len(data["entities"])
        if count >= target:
            break
        if count + size > MAX_TABLES:
            continue
        if apply(data, rng):
            log.append(description)


def _clean(data: Data) -> None:
    """Drop what no longer resolves after fields and entities moved or went away."""
    names = _names(data)
    ops = []
    for op in data.get("operations", []):
        if op["entity"] not in names:
            continue
        fields = {f["name"]: f for f in _entity(data, op["entity"])["fields"]}
        status = fields.get(op["field"])
        if status is None or op["to"] not in status.get("values", []):
            continue
        if op.get("sets_time") and op["sets_time"] not in fields:
            op.pop("sets_time")
        ops.append(op)
    data["operations"] = ops
    probe = Blueprint.model_validate({**data, "entities": [
        {**e, "fields": [{k: v for k, v in f.items() if k != "derive"} for f in e["fields"]]}
        for e in data["entities"]]})
    for e in data["entities"]:
        for f in e["fields"]:
            if f.get("derive"):
                try:
                    resolve(probe, probe.entity(e["name"]), probe.entity(e["name"]).field(f["name"]),
                            parse_derive(f["derive"]))
                except ValueError:
                    f.pop("derive")


def _naming(rng: random.Random, domain: str) -> Naming:
    abbr = "".join(w[0] for w in domain.split("_") if w)
    style = rng.choices(["snake", "pascal", "camel"], [6, 3, 1])[0]
    prefix = rng.choices(["", "tbl_", "app_", f"{abbr}_", "t_"], [14, 2, 1, 2, 1])[0]
    columns = "camel" if style != "snake" and rng.random() < 0.7 else rng.choices(["snake", "camel"], [5, 1])[0]
    return Naming.model_validate({"tables": style, "plural": rng.random() < 0.7, "prefix": prefix, "columns": columns})
