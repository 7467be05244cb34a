"""Extensions a variant may add to a blueprint: the tables a real team would have normalised out.

Each extension is (tables added, description, apply): lookup tables for enums, one-to-one
profiles, notes, attachments, status history, reviews, addresses, contacts, price history,
tags with a link table, users with an audit log. :func:`extend` adds them until the table
count reaches the variant's target. They edit the blueprint as plain data, before the
blueprint's own validation runs on the result.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from pipeline.world.formula import parse_derive
from pipeline.world.naming import with_article
from pipeline.world.rules import Ref, operands, parse

MAX_TABLES = 30


MAX_NAME = 36
"""Longest entity name an extension may create (tool names stay short)."""


Data = dict[str, Any]


def _spelled(name: str) -> str:
    """A snake_case name as the words it spells ("account_entry" -> "account entry")."""
    return name.replace("_", " ")


def entity_data(data: Data, name: str) -> Data:
    for e in data["entities"]:
        if e["name"] == name:
            return e
    raise KeyError(name)


def entity_names(data: Data) -> set[str]:
    return {e["name"] for e in data["entities"]}


def used_fields(data: Data, entity: Data) -> set[str]:
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
    for other in data["entities"]:
        refs = {f["name"]: f.get("ref") for f in other["fields"] if f["type"] == "ref"}
        for rule in other.get("rules", []):
            for ref in rule_operands(rule):
                own = ref.via is None and other is entity
                if own or (ref.via is not None and refs.get(ref.via) == entity["name"]):
                    used.add(ref.field)
                if ref.via is not None and other is entity:
                    used.add(ref.via)
    return used


def rule_operands(rule: Data | str) -> list[Ref]:
    """The fields a blueprint rule (as data) reads, its left side included."""
    if isinstance(rule, str):
        rule = {"check": rule}
    out = list(operands(parse(rule["check"])))
    if rule.get("when"):
        out += list(operands(parse(rule["when"], condition=True)))
    return out


def readable_value(value: str) -> str:
    """A lookup row's name as people write it: ``first_visit`` -> "First visit" (codes like ``USD`` stay)."""
    if value.isupper():
        return value
    text = value.replace("_", " ")
    return text[:1].upper() + text[1:]


Extension = tuple[int, str, Callable[[Data, random.Random], list[str]]]
"""(tables added, description, apply) where apply returns the new entity names."""


def _lookup(entity: str, field: str) -> Extension:
    def apply(data: Data, rng: random.Random) -> list[str]:
        e = entity_data(data, entity)
        f = next((x for x in e["fields"] if x["name"] == field), None)
        if f is None:
            return []
        name = field if field.startswith(entity) or "_" in field else f"{entity}_{field}"
        plural = name if name.endswith("s") else None
        if name in entity_names(data):
            return []
        values = [readable_value(v) for v in f["values"]]
        if len(set(values)) != len(values):
            return []
        fields: list[Data] = [{"name": "name", "type": "word", "unique": True, "initial": values, "vocab": "tag_name"}]
        if rng.random() < 0.6:
            fields.append({"name": "description", "type": "text", "nullable": True, "vocab": "admin_note"})
        if rng.random() < 0.5:
            fields.append({"name": "sort_order", "type": "integer", "min": 1, "max": max(2, len(values))})
        fields.append({"name": "is_active", "type": "boolean"})
        lookup = {
            "name": name,
            "description": f"The allowed values of {with_article(_spelled(entity))}'s {_spelled(field)}.",
            "label": "name",
            "rows": len(values),
            "fixed_rows": True,
            "fields": fields,
        }
        if plural:
            lookup["plural"] = plural
        data["entities"].insert(data["entities"].index(e), lookup)
        index = e["fields"].index(f)
        e["fields"][index] = {
            "name": f"{field}_id",
            "type": "ref",
            "ref": name,
            "weights": list(f.get("weights") or [1.0] * len(values)),
        }
        for other in e["fields"]:  # a vocabulary grouped by the enum is now grouped by its row's name
            if other.get("vocab_by") == field:
                other["vocab_by"] = f"{field}_id"
        return [name]

    return 1, f"promoted {entity}.{field} to a lookup table", apply


def _child(
    parent: str,
    suffix: str,
    description: str,
    label: str,
    fields: list[Data],
    rows: float,
    plural: str | None = None,
    extra: Data | None = None,
) -> Extension:
    def apply(data: Data, rng: random.Random) -> list[str]:
        name = f"{parent}_{suffix}"
        if name in entity_names(data) or len(name) > MAX_NAME:
            return []
        p = entity_data(data, parent)
        entity = {
            "name": name,
            "description": description,
            "label": label,
            "rows": max(3, min(1000, int(p.get("rows", 40) * rows * rng.uniform(0.6, 1.4)))),
            "fields": [{"name": f"{parent}_id", "type": "ref", "ref": parent}, *fields],
        }
        if plural:
            entity["plural"] = f"{parent}_{plural}"
        entity.update(extra or {})
        data["entities"].append(entity)
        return [name]

    return 1, f"added {parent}_{suffix}", apply


def _notes(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(
        parent,
        "note",
        f"A note written about {with_article(words)}.",
        "subject",
        [
            {"name": "subject", "type": "title", "vocab": "note_subject"},
            {"name": "body", "type": "text", "vocab": "note"},
            {"name": "author", "type": "person_name"},
            {"name": "written_at", "type": "timestamp"},
            {"name": "is_internal", "type": "boolean"},
        ],
        1.2,
    )


def _attachments(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(
        parent,
        "attachment",
        f"A file attached to {with_article(words)}.",
        "file_name",
        [
            {"name": "file_name", "type": "file_name", "unique": True},
            {
                "name": "content_type",
                "type": "enum",
                "values": ["application/pdf", "image/jpeg", "image/png", "text/plain", "application/zip"],
                "weights": [8, 5, 3, 2, 1],
            },
            {"name": "size_bytes", "type": "integer", "min": 1000, "max": 25_000_000},
            {"name": "uploaded_at", "type": "timestamp"},
        ],
        0.8,
    )


def _history(parent: str, status: Data) -> Extension:
    words = parent.replace("_", " ")
    values, moves = list(status["values"]), status.get("transitions") or {}
    s = status["name"]
    return _child(
        parent,
        f"{s}_change",
        f"One change of {with_article(words)}'s {s.replace('_', ' ')}.",
        "change_code",
        [
            {"name": "change_code", "type": "code", "unique": True},
            {"name": f"from_{s}", "type": "enum", "values": values},
            {"name": f"to_{s}", "type": "enum", "values": values, "transitions": moves, "follows": f"from_{s}"},
            {"name": "changed_at", "type": "timestamp"},
            {"name": "changed_by", "type": "username"},
        ],
        2.0,
        extra={"history_of": f"{parent}.{s}"},
    )


def _reviews(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(
        parent,
        "review",
        f"A rating and comment left about {with_article(words)}.",
        "headline",
        [
            {"name": "headline", "type": "title", "vocab": "review_headline"},
            {"name": "reviewer_name", "type": "person_name"},
            {"name": "rating", "type": "rating", "min": 1, "max": 5},
            {"name": "comment", "type": "text", "nullable": True, "vocab": "review_comment"},
            {"name": "reviewed_at", "type": "timestamp"},
        ],
        1.5,
    )


def _addresses(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(
        parent,
        "address",
        f"A postal address of {with_article(words)}.",
        "street",
        [
            {
                "name": "address_type",
                "type": "enum",
                "values": ["home", "billing", "shipping", "work", "mailing"],
                "weights": [6, 3, 3, 2, 1],
            },
            {"name": "street", "type": "address"},
            {"name": "city", "type": "city"},
            {"name": "postcode", "type": "postcode"},
            {"name": "country", "type": "country"},
            {"name": "is_primary", "type": "boolean"},
        ],
        1.3,
        plural="addresses",
    )


def _contacts(parent: str) -> Extension:
    words = parent.replace("_", " ")
    return _child(
        parent,
        "contact",
        f"A person to contact at {with_article(words)}.",
        "full_name",
        [
            {"name": "full_name", "type": "person_name"},
            {"name": "email", "type": "email", "unique": True},
            {"name": "phone", "type": "phone", "nullable": True},
            {"name": "job_title", "type": "job_title"},
        ],
        2.0,
    )


def _price_history(parent: str, field: Data) -> Extension:
    words = parent.replace("_", " ")
    m = field["name"]
    bounds: dict[str, Any] = {k: field[k] for k in ("min", "max") if k in field}
    return _child(
        parent,
        f"{m}_change",
        f"A change of {with_article(words)}'s {m.replace('_', ' ')}.",
        "change_code",
        [
            {"name": "change_code", "type": "code", "unique": True},
            {"name": f"old_{m}", "type": "money", **bounds},
            {"name": f"new_{m}", "type": "money", **bounds},
            {
                "name": "reason",
                "type": "enum",
                "values": ["promotion", "cost_change", "correction", "seasonal", "competitor_match"],
                "weights": [4, 3, 1, 2, 1],
            },
            {"name": "changed_at", "type": "timestamp"},
        ],
        1.5,
    )


def _profile(parent: str, moved: list[str]) -> Extension:
    """One-to-one: a detail table that took some optional attributes out of its parent."""

    def apply(data: Data, rng: random.Random) -> list[str]:
        name = f"{parent}_profile"
        if name in entity_names(data):
            return []
        p = entity_data(data, parent)
        fields = [f for f in p["fields"] if f["name"] in moved]
        if len(fields) < 2:
            return []
        p["fields"] = [f for f in p["fields"] if f["name"] not in moved]
        entity = {
            "name": name,
            "description": f"Further details of {with_article(_spelled(parent))}, one row per {_spelled(parent)}.",
            "label": f"{parent}_id",
            "rows": max(1, int(p.get("rows", 40) * rng.uniform(0.6, 0.95))),
            "fields": [
                {"name": f"{parent}_id", "type": "ref", "ref": parent, "unique": True, "nullable": True},
                *fields,
                {"name": "updated_at", "type": "timestamp"},
            ],
        }
        data["entities"].append(entity)
        return [name]

    return 1, f"split {parent} details into a one-to-one table", apply


def _tags(parent: str) -> Extension:
    """Many-to-many: a shared tag table and a link table with a unique (parent, tag) pair."""

    def apply(data: Data, rng: random.Random) -> list[str]:
        link = f"{parent}_tag"
        if link in entity_names(data) or len(link) > MAX_NAME:
            return []
        added = []
        if "tag" not in entity_names(data):
            data["entities"].append(
                {
                    "name": "tag",
                    "description": "A label that can be put on records.",
                    "label": "name",
                    "rows": rng.randint(8, 30),
                    "fixed_rows": True,
                    "fields": [
                        {"name": "name", "type": "word", "unique": True, "vocab": "tag_name"},
                        {"name": "color", "type": "color"},
                    ],
                }
            )
            added.append("tag")
        elif entity_data(data, "tag")["label"] != "name":
            return []
        p = entity_data(data, parent)
        data["entities"].append(
            {
                "name": link,
                "description": f"A tag put on {with_article(_spelled(parent))}.",
                "label": "link_code",
                "rows": max(3, min(1000, int(p.get("rows", 40) * rng.uniform(1.0, 2.5)))),
                "unique_together": [[f"{parent}_id", "tag_id"]],
                "fields": [
                    {"name": "link_code", "type": "code", "unique": True},
                    {"name": "tagged_at", "type": "timestamp"},
                    {"name": f"{parent}_id", "type": "ref", "ref": parent},
                    {"name": "tag_id", "type": "ref", "ref": "tag"},
                ],
            }
        )
        return [*added, link]

    return 2, f"added tags on {parent}", apply


def _audit(data: Data) -> Extension:
    def apply(data: Data, rng: random.Random) -> list[str]:
        if {"app_user", "audit_event"} & entity_names(data):
            return []
        entities = sorted(entity_names(data))
        data["entities"].append(
            {
                "name": "app_user",
                "description": "A person who logs in to the system.",
                "label": "username",
                "rows": rng.randint(10, 60),
                "fields": [
                    {"name": "username", "type": "username", "unique": True},
                    {"name": "full_name", "type": "person_name"},
                    {"name": "email", "type": "email", "unique": True},
                    {
                        "name": "role",
                        "type": "enum",
                        "values": ["admin", "manager", "staff", "viewer"],
                        "weights": [1, 3, 8, 2],
                    },
                    {"name": "created_at", "type": "timestamp"},
                ],
            }
        )
        data["entities"].append(
            {
                "name": "audit_event",
                "description": "A recorded action of a user on a record.",
                "label": "event_code",
                "rows": rng.randint(100, 600),
                "fields": [
                    {"name": "event_code", "type": "code", "unique": True},
                    {"name": "app_user_id", "type": "ref", "ref": "app_user"},
                    {
                        "name": "action",
                        "type": "enum",
                        "values": ["create", "update", "delete", "login", "export"],
                        "weights": [4, 8, 1, 5, 1],
                    },
                    {"name": "record_type", "type": "enum", "values": entities},
                    {"name": "occurred_at", "type": "timestamp"},
                ],
            }
        )
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
        used = used_fields(data, e)
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
        movable = [
            f["name"]
            for f in e["fields"]
            if f.get("optional")
            and f["type"] not in ("ref", "status")
            and f["name"] not in used
            and not f.get("unique")
        ]
        if len(movable) >= 2:
            out.append(_profile(name, movable))
    return out


def extend(data: Data, rng: random.Random, log: list[str], target: int) -> None:
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
