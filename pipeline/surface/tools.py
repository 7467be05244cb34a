"""The tool list a model reads: each bundle tool as a compact ``{name, description, parameters}``.

A bundle's own JSON Schemas (``tools.json``, what the executor validates) spell every
filter of a list tool as its own property with its own description, every id bound as
``2**63 - 1`` and every date-time as a regular expression: 33 to 81 KB per domain, paid
on every rollout before the task starts. The rendering here keeps what a model acts on
and states each constraint the executor enforces once, in the fewest words:

* A list tool's filters move into one ``where`` object whose description names each
  filterable field once, with its type or allowed values and the suffixes it takes
  (``_contains``, ``_min``/``_max``, ``_from``/``_to``, ``_in``); the suffixes, the paging
  rules and the bounds every tool shares are said once in the system text
  (:data:`CONVENTIONS`). :func:`to_arguments` unfolds ``where`` back into the executor's
  flat arguments, :func:`to_surface` folds a flat call (a reference solution) into it.
* Each parameter is ``{type | enum | items, description}`` and the schema keeps only
  ``properties`` and ``required``: exactly what Python type hints and a Google-style
  docstring can carry, so TRL's tools (methods whose signatures are made from this list,
  rendered by ``transformers.utils.get_json_schema``) show the same list as every other
  adapter. Bounds, lengths and formats are in the parameter's description.
* Boilerplate sentences every tool of a kind repeats are dropped from descriptions (the
  system text says them once); what is particular to a tool (its table, business rules,
  allowed moves, side effects) stays.
"""

from __future__ import annotations

import re
from typing import Any

WHERE = "where"
"""The parameter a list tool's filters are folded into."""
FIELDS = "fields"
"""The parameter an update tool's new values are folded into (when a create tool lists them)."""
LIST_CONTROLS = ("order_by", "descending", "limit", "offset")
MAX_ID = 2**63 - 1
DATE_TIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$"
DATE = r"^\d{4}-\d{2}-\d{2}$"
TEXT_BOUNDS = (1, 500)
CONTAINS_BOUNDS = (1, 200)
SUFFIXES = ("_contains", "_min", "_max", "_from", "_to", "_in")

CONVENTIONS = (
    "Tool conventions: ids are integers >= 1; text values are 1-500 characters unless a field says "
    "otherwise; date-times are written YYYY-MM-DDTHH:MM:SS and dates YYYY-MM-DD; a tool takes only the "
    "parameters it lists. Creating needs existing referenced ids and unique values where a field is unique, "
    "and returns the new record with its id; an update changes only the fields given (at least one) and "
    "returns the record; a status moves only as its table allows, some moves only through the named "
    "operations. Listing returns {items, total, next_offset}: at most 50 items a call (limit 1-50, default "
    "20), sorted by order_by (default id; descending for largest first); pass next_offset as offset for the "
    "next page (null on the last); a page too long to show is cut, and the cut names the offset to continue "
    "from. Filters go in the where object, all optional and combined with AND: FIELD equals (id too); "
    "FIELD_contains (text fields) is a case-insensitive substring, 1-200 characters; FIELD_min/FIELD_max "
    "(numbers) are inclusive bounds; FIELD_from/FIELD_to (dates, date-times) are inclusive ranges written in "
    "the field's own format; FIELD_in (fields with listed values) is a non-empty list of distinct allowed values."
)
"""What every tool shares, said once in the system text instead of in every schema."""

_BOILERPLATE = (
    r" Every filter is optional and filters combine with AND; results are sorted \(order_by, descending\) and "
    r"paged: at most \d+ per call, next_offset fetches the next page and 'total' counts all matches\.",
    r" Required: [^.]*\.",
    r" Referenced ids must exist; unique fields must not clash\.",
    r" Returns the created record with its new id\.",
    r" Returns every field, or a not_found error if no [^.]* has that id\.",
    r" Returns the updated record\.",
    r" Returns the record as it was\.",
    r" Status changes go through the dedicated operations\.",
    r"; fields left out keep their value\.",
    r" Finer conditions \(dates, thresholds, text\) take the list of [^.]*\.",
)


def _trim_description(text: str) -> str:
    out = " ".join(text.split())
    for pattern in _BOILERPLATE:
        out = re.sub(pattern, "." if pattern.startswith(";") else "", out)
    out = re.sub(r"^Fetch one (.+?) by its numeric id\.", r"Fetch one \1 by id.", out)
    out = re.sub(r"^Change fields of an existing (\w[\w ]*?) given its id\.", r"Change fields of a \1.", out)
    return out.strip()


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() and abs(value) < 1e15 else str(value)


def _bounds_words(schema: dict[str, Any]) -> list[str]:
    """The constraints of one value schema in words (empty when they are the shared conventions)."""
    words: list[str] = []
    low, high = schema.get("minimum"), schema.get("maximum")
    if high == MAX_ID:
        high = None
    if low is not None and high is not None:
        words.append(f"{_number(low)}-{_number(high)}")
    elif low is not None and not (low == 1 and schema.get("maximum") == MAX_ID):
        words.append(f">= {_number(low)}")
    elif high is not None:
        words.append(f"<= {_number(high)}")
    lengths = (schema.get("minLength"), schema.get("maxLength"))
    if lengths != (None, None) and lengths != TEXT_BOUNDS:
        words.append(f"{lengths[0] or 0}-{lengths[1]} characters" if lengths[1] else f">= {lengths[0]} characters")
    pattern = schema.get("pattern")
    if pattern == DATE_TIME:
        words.append("date-time")
    elif pattern == DATE:
        words.append("date")
    elif pattern:
        words.append(f"matching {pattern}")
    return words


def _type_word(schema: dict[str, Any]) -> str:
    if schema.get("enum"):
        return "|".join(str(v) for v in schema["enum"])
    if schema.get("pattern") == DATE_TIME:
        return "date-time"
    if schema.get("pattern") == DATE:
        return "date"
    kind = schema.get("type")
    return {"string": "text", "integer": "integer", "number": "number", "boolean": "boolean"}.get(str(kind), str(kind))


def _typed(schema: dict[str, Any]) -> dict[str, Any]:
    """Only the keys a type hint carries: ``type``, ``enum`` (a const is a one-value enum), ``items``."""
    if "const" in schema:
        return {"type": "string" if isinstance(schema["const"], str) else "integer", "enum": [schema["const"]]}
    if schema.get("enum"):
        return {"type": schema.get("type", "string"), "enum": list(schema["enum"])}
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        return (
            {"type": "array", "items": _typed(items)}
            if isinstance(items, dict) and items.get("type")
            else {"type": "array"}
        )
    if isinstance(kind, list):  # a nullable value: the model may leave it out instead
        kind = next((k for k in kind if k != "null"), "string")
    return {"type": kind or "string"}


def _param(name: str, schema: dict[str, Any], noun: str | None = None) -> dict[str, Any]:
    """One parameter: its type and a description holding its meaning and bounds."""
    words = _bounds_words(schema) if not schema.get("enum") else []
    meaning = str(schema.get("description") or "")
    generic = meaning.startswith(("id of the ", "always '"))
    if name == "id" or generic:
        meaning = f"id of the {noun}" if noun and name == "id" else ("fixed" if generic and "const" in schema else "")
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        words = _bounds_words(schema["items"]) + words
        if schema.get("uniqueItems"):
            words.append("distinct")
    if schema.get("type") == "object" and isinstance(schema.get("properties"), dict):
        meaning = "filters: " + fields_text(schema["properties"])
    words = [w for w in words if w not in meaning]
    text = "; ".join(w for w in [meaning, *words] if w) or name.replace("_", " ")
    return {**_typed(schema), "description": text}


def fields_text(props: dict[str, Any]) -> str:
    """``status pending|paid (_in); total number (_min/_max); name text (_contains)``: one entry per field."""
    entries: list[str] = []
    names = set(props)
    for name, schema in props.items():
        if any(name.endswith(s) and name[: -len(s)] in names for s in SUFFIXES):
            continue
        word = _type_word(schema)
        if schema.get("type") == "integer" and name.endswith("_id"):
            word = "id"
        taken = [s for s in SUFFIXES if name + s in names]
        pairs = {"_min": "_max", "_from": "_to"}
        shown = []
        for s in taken:
            if s in pairs.values():
                continue
            shown.append(f"{s}/{pairs[s]}" if s in pairs and name + pairs[s] in names else s)
        entries.append(f"{name} {word}" + (f" ({', '.join(shown)})" if shown else ""))
    loose = [n for n in props if any(n.endswith(s) for s in SUFFIXES) and not _has_base(n, names)]
    for name in loose:  # a suffixed filter whose field has no equality filter of its own
        if not any(entry.startswith(name + " ") for entry in entries):
            entries.append(f"{name} {_type_word(props[name])}")
    return "; ".join(entries)


def _has_base(name: str, names: set[str]) -> bool:
    return any(name.endswith(s) and name[: -len(s)] in names for s in SUFFIXES)


def is_list_tool(spec: dict[str, Any]) -> bool:
    """A list tool: paged (``limit`` and ``offset``) and sorted (``order_by``)."""
    props = (spec.get("parameters") or {}).get("properties") or {}
    return all(k in props for k in LIST_CONTROLS) and WHERE not in props


def _noun(spec: dict[str, Any]) -> str | None:
    prop = ((spec.get("parameters") or {}).get("properties") or {}).get("id") or {}
    text = str(prop.get("description") or "")
    return text[len("id of the ") :] if text.startswith("id of the ") else None


def _update_twin(spec: dict[str, Any], by_name: dict[str, dict[str, Any]]) -> str | None:
    """The create tool whose parameters an update tool repeats (then the update folds them into ``fields``)."""
    name = str(spec["name"])
    if not name.startswith("update_"):
        return None
    twin = by_name.get("create_" + name[len("update_") :])
    if twin is None:
        return None
    mine = (spec.get("parameters") or {}).get("properties") or {}
    theirs = (twin.get("parameters") or {}).get("properties") or {}
    extra = set(mine) - set(theirs) - {"id"}
    if "id" not in mine or not theirs or not set(theirs) <= set(mine) or len(extra) > 1:
        return None
    return str(twin["name"])


def compact_tool(spec: dict[str, Any], twin: str | None = None) -> dict[str, Any]:
    """One bundle tool as the model reads it (see the module docstring); ``twin`` is the create tool
    an update tool's fields are the same as."""
    schema = spec.get("parameters") or {}
    props: dict[str, Any] = dict(schema.get("properties") or {})
    required = [p for p in schema.get("required") or () if p in props]
    noun = _noun(spec)
    out: dict[str, Any] = {}
    if is_list_tool(spec):
        filters = {k: v for k, v in props.items() if k not in LIST_CONTROLS}
        if filters:
            out[WHERE] = {"type": "object", "description": "filters: " + fields_text(filters)}
        out["order_by"] = {**_typed(props["order_by"]), "description": "sort field"}
        out["descending"] = {"type": "boolean", "description": "largest first"}
        out["limit"] = {"type": "integer", "description": "1-50"}
        out["offset"] = {"type": "integer", "description": ">= 0: a page's next_offset"}
        required = []
    elif twin is not None:
        out["id"] = _param("id", props["id"], noun)
        extra = [k for k in props if k != "id" and k not in ("status",)]
        status = {k: v for k, v in props.items() if k not in extra and k != "id"}
        words = f"the fields to change, at least one: any parameter of {twin}"
        for key, value in status.items():
            words += f"; {key} {_type_word(value)}"
        out[FIELDS] = {"type": "object", "description": words}
        required = ["id", FIELDS]
    else:
        out = {name: _param(name, p, noun) for name, p in props.items()}
    parameters: dict[str, Any] = {"type": "object", "properties": out}
    if required:  # in property order, as a signature made from these properties lists them
        parameters["required"] = [p for p in out if p in required]
    description = _trim_description(str(spec.get("description", "")))
    return {"name": spec["name"], "description": description, "parameters": parameters}


def folds(specs: list[dict[str, Any]]) -> dict[str, str]:
    """Tool name -> the parameter the rendering folds its arguments into (``where`` or ``fields``)."""
    by_name = {str(s["name"]): s for s in specs}
    out = {str(s["name"]): WHERE for s in specs if is_list_tool(s)}
    out.update({str(s["name"]): FIELDS for s in specs if _update_twin(s, by_name)})
    return out


def compact_tools(specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_name = {str(s["name"]): s for s in specs}
    return [compact_tool(s, _update_twin(s, by_name)) for s in specs]


def to_arguments(tool: str, arguments: Any, folded: dict[str, str]) -> Any:
    """A call as the model made it, as the executor's arguments: ``where`` / ``fields`` unfolded.

    Anything that is not a well-formed fold (not an object, a key given both inside and outside
    it) is passed on as it is, so the executor refuses it with a typed error; a call already in
    the executor's flat form is taken as it is.
    """
    key = folded.get(tool)
    if key is None or not isinstance(arguments, dict) or key not in arguments:
        return arguments
    inner = arguments[key]
    rest = {k: v for k, v in arguments.items() if k != key}
    if inner is None:
        return rest
    if not isinstance(inner, dict) or set(inner) & set(rest):
        return arguments
    return {**inner, **rest}


def to_surface(tool: str, arguments: dict[str, Any], folded: dict[str, str]) -> dict[str, Any]:
    """The executor's arguments as the model writes them (a reference solution's call, for a scripted policy)."""
    key = folded.get(tool)
    if key is None:
        return dict(arguments)
    keep = LIST_CONTROLS if key == WHERE else ("id",)
    inner = {k: v for k, v in arguments.items() if k not in keep}
    rest = {k: v for k, v in arguments.items() if k in keep}
    return {**({key: inner} if inner else {}), **rest}
