"""The mechanical checks every model reply goes through, without any model or network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.llm.blueprint import blueprint_json_schema, blueprint_text, check_blueprint, correction
from pipeline.llm.cache import Entry, ResponseCache, request_key
from pipeline.llm.distinct import DistinctFilter
from pipeline.llm.parse import ReplyError, load_object
from pipeline.llm.scenario import Scenario, load_scenarios, parse_scenario
from pipeline.llm.usage import Ledger, StepUsage
from pipeline.world.blueprint import Blueprint
from pipeline.world.schema import build_schema

# -- reading replies ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['{"a": 1}', '```json\n{"a": 1}\n```', 'Here you go: {"a": 1} Hope it helps.', '  \n{"a": 1}\n'],
)
def test_a_reply_is_read_as_the_one_json_object_in_it(text: str) -> None:
    assert load_object(text) == {"a": 1}


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("no json here", "no JSON object"),
        ('{"a": NaN}', "NaN"),
        ('{"a": Infinity}', "Infinity"),
        ('{"a": 1, "a": 2}', "appears twice"),
        ('{"a": ' + "[" * 40 + "]" * 40 + "}", "nesting"),
        ('{"a": 1', "invalid JSON"),
        ('{"a": }', "invalid JSON"),
    ],
)
def test_a_reply_that_is_not_clean_json_data_is_refused_with_a_reason(text: str, why: str) -> None:
    with pytest.raises(ReplyError, match=why):
        load_object(text)


# -- scenarios ----------------------------------------------------------------------------------


def test_a_scenario_line_splits_at_the_first_colon() -> None:
    s = parse_scenario("Amazon: an e-commerce platform: browse, buy, track")
    assert (s.name, s.description, s.slug) == ("Amazon", "an e-commerce platform: browse, buy, track", "amazon")


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("../../etc/passwd", "etc_passwd"),
        ("x'); DROP TABLE users;--", "x_drop_table_users"),
        ("Café Zürich", "cafe_zurich"),
        ("42 Bank", "scenario_42_bank"),
        ("日本", None),
    ],
)
def test_the_slug_is_an_identifier_whatever_the_name(name: str, slug: str | None) -> None:
    s = Scenario(name=name, description="a world")
    assert s.slug.replace("_", "").isalnum() and s.slug[0].isalpha() and len(s.slug) <= 40
    if slug is not None:
        assert s.slug == slug


def test_bad_scenarios_are_refused_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        json.dumps({"name": "Florist", "description": "a flower shop"}),
        "not json",
        json.dumps(["a", "list"]),
        json.dumps({"name": "", "description": "x"}),
        json.dumps({"name": "Bell\x07", "description": "x"}),
        "",
        json.dumps({"name": "Library", "description": "loans", "extra": "ignored"}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    good, bad = load_scenarios(path)
    assert [s.name for s in good] == ["Florist", "Library"]
    assert [n for n, _ in bad] == [2, 3, 4, 5]
    with pytest.raises(ValueError, match="NAME: description"):
        parse_scenario("no colon here")


# -- blueprints ---------------------------------------------------------------------------------


def test_the_blueprint_schema_is_derived_from_the_models_and_tightened() -> None:
    schema = blueprint_json_schema()
    field = schema["$defs"]["FieldSpec"]["properties"]
    assert "person_name" in field["type"]["enum"] and "vocabulary" in field
    assert field["name"]["pattern"] == "^[a-z][a-z0-9_]{0,40}$"
    assert schema["$defs"]["Entity"]["properties"]["plural"]["anyOf"][0]["pattern"]
    assert schema["properties"]["entities"]["maxItems"] == 30
    schema["properties"].clear()  # a copy: the validator's own schema is untouched
    assert blueprint_json_schema()["properties"]


def _no_refs(d: dict[str, Any]) -> None:
    for e in d["entities"]:
        for f in e["fields"]:
            if f["type"] == "ref":
                f.pop("ref")
                f["type"] = "integer"
            f.pop("derive", None)


def _date_stamp(d: dict[str, Any]) -> None:
    d["entities"][2]["fields"][4]["type"] = "date"


def test_a_valid_blueprint_passes_and_takes_the_scenario_name(florist: dict[str, Any]) -> None:
    bp, errors = check_blueprint({**florist, "name": "whatever the model said"}, "florist")
    assert errors == [] and bp is not None and bp.name == "florist"
    assert Blueprint.model_validate_json(blueprint_text(bp)) == bp


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d["entities"][2]["fields"][1].update(ref="client"), "refers to unknown entity 'client'"),
        (lambda d: d["entities"][0].update(label="nickname"), "label 'nickname' is not one of its fields"),
        (lambda d: d["entities"][1]["fields"][0].update(type="productname"), "is not one of"),
        (lambda d: d["entities"][1].update(name="Bouquet; DROP TABLE x"), "does not match"),
        (lambda d: d["entities"][1].update(plural='bouquets"; DROP TABLE x; --'), "does not match"),
        (lambda d: d["operations"][0].update(name="cancel order"), "does not match"),
        (lambda d: d["entities"][1]["fields"][1].update(min=300.0), "min 300.0 > max 250.0"),
        (lambda d: d["operations"][0].update(to="refunded"), "is not a status with value 'refunded'"),
        (lambda d: d["entities"][0]["fields"].append({"name": "id", "type": "integer"}), "'id' is implicit"),
        (lambda d: d.update(entities=d["entities"][:1]), "too short"),
        (_no_refs, "no entity refers to another"),
        (_date_stamp, "must be a timestamp field, not a date"),
        (lambda d: d["entities"][1]["fields"][3].update(unique=True), "UNIQUE constraint failed: bouquets.seasonal"),
        (lambda d: d["entities"][0].update(description="x" * 1500), "too long: 1500 characters, at most 1000"),
    ],
)
def test_each_broken_rule_comes_back_as_an_error_the_model_can_act_on(
    florist: dict[str, Any], change: Any, expected: str
) -> None:
    change(florist)
    bp, errors = check_blueprint(florist, "florist")
    assert bp is None
    assert any(expected in e for e in errors), errors
    message = correction(errors, truncated=False)
    assert expected in message and "whole corrected blueprint" in message


def test_names_are_identifiers_in_the_world_models_too(florist: dict[str, Any]) -> None:
    """Defence in depth: a hand-written YAML with SQL in a plural or an operation name is refused as well."""
    florist["entities"][1]["plural"] = 'x"; DROP TABLE y; --'
    with pytest.raises(ValueError, match="snake_case"):
        Blueprint.model_validate(florist)


# -- vocabularies feed population as data -----------------------------------------------------


def test_a_vocabulary_is_data_population_draws_from(florist: dict[str, Any], tmp_path: Path) -> None:
    from pipeline.data.populate import populate

    words = [f"Peony Cloud {i}" for i in range(10)] + ["'); DROP TABLE bouquets; --"]
    florist["entities"][1]["fields"][0]["vocabulary"] = words
    schema = build_schema(Blueprint.model_validate(florist))
    assert "vocabulary" in json.loads(schema.model_dump_json())["tables"][1]["columns"][1]
    result = populate(schema, 0, tmp_path / "s.sqlite", 1.0)
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(result.path)) as conn:
        titles = [r[0] for r in conn.execute("SELECT title FROM bouquets")]
    assert len(titles) == 20 and len(set(titles)) == 20
    assert all(any(t == w or t.startswith(w + " ") for w in words) for t in titles)


def test_a_schema_without_vocabularies_serialises_as_before(florist: dict[str, Any]) -> None:
    """The new column attribute is left out when absent, so existing bundles keep their digests."""
    dumped = build_schema(Blueprint.model_validate(florist)).model_dump_json()
    assert "vocabulary" not in dumped


@pytest.mark.parametrize(
    ("field", "words", "why"),
    [
        (0, ["ok"], "applies to"),  # customer.full_name is a person_name: keeps its built-in pool
        (None, ["a", "a"], "distinct"),
        (None, ["line\nbreak"], "control characters"),
        (None, [" padded"], "trimmed"),
        (None, ["x" * 301], "at most 300"),
    ],
)
def test_vocabulary_values_are_checked(florist: dict[str, Any], field: int | None, words: list[str], why: str) -> None:
    target = florist["entities"][0]["fields"][0] if field == 0 else florist["entities"][1]["fields"][0]
    target["vocabulary"] = words
    with pytest.raises(ValueError, match=why):
        Blueprint.model_validate(florist)


# -- cache and accounting --------------------------------------------------------------------


def test_cache_keys_cover_model_messages_and_parameters() -> None:
    msgs = [{"role": "user", "content": "hi"}]
    key = request_key("openai/x", msgs, {"temperature": 0.0})
    assert len(key) == 64
    assert key == request_key("openai/x", [{"content": "hi", "role": "user"}], {"temperature": 0.0})
    assert key != request_key("openai/y", msgs, {"temperature": 0.0})
    assert key != request_key("openai/x", [{"role": "user", "content": "hi!"}], {"temperature": 0.0})
    assert key != request_key("openai/x", msgs, {"temperature": 0.5})


def test_a_tampered_cache_entry_is_a_miss_not_a_wrong_answer(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    msgs = [{"role": "user", "content": "hi"}]
    key = request_key("m/x", msgs, {})
    path = cache.put("m/x", msgs, {}, Entry(key, "hello", 3, 1, 0.5))
    assert cache.get(key) == Entry(key, "hello", 3, 1, 0.5)
    record = json.loads(path.read_text(encoding="utf-8"))
    record["request"]["messages"][0]["content"] = "something else"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert cache.get(key) is None
    path.write_text("{broken", encoding="utf-8")
    assert cache.get(key) is None
    with pytest.raises(ValueError, match="not a cache key"):
        cache.path("../../etc/passwd")


def test_ledgers_add_up_per_step_and_round_trip_through_a_summary() -> None:
    a, b = Ledger(), Ledger()
    a.steps["blueprint"] = StepUsage(2, 0, 3, 100, 50, 0.01, 0.0, ["k1", "k2"])
    b.steps["blueprint"] = StepUsage(1, 1, 0, 40, 10, 0.0, 0.002, ["k3"])
    b.steps["vocab"] = StepUsage(1, 0, 1, 5, 5, 0.001, 0.0, ["k4"])
    total = Ledger.total_of([a, b])
    assert total.steps["blueprint"].calls == 3 and total.keys()["blueprint"] == ["k1", "k2", "k3"]
    assert total.summary()["total"]["prompt_tokens"] == 145
    again = Ledger.from_summary(total.summary())
    assert again.summary() == total.summary()


# -- distinctness ----------------------------------------------------------------------------


def test_near_duplicate_scenarios_and_blueprints_are_rejected(florist: dict[str, Any]) -> None:
    f = DistinctFilter()
    first = Scenario(name="Florist", description="A flower shop taking bouquet orders and delivering them")
    assert f.admit_scenario(first) is None
    again = Scenario(name="Flower shop", description="A florist taking bouquet orders and delivering them")
    assert f.admit_scenario(again) is not None
    assert f.admit_scenario(Scenario(name="florist!", description="something else entirely")).kind == "name"
    assert f.admit_scenario(Scenario(name="Airline", description="Flights, seats and bookings")) is None
    bp = Blueprint.model_validate(florist)
    assert f.admit_blueprint("Florist", bp) is None
    renamed = Blueprint.model_validate({**florist, "name": "flowers", "title": "Flowers"})
    rejection = f.admit_blueprint("Flowers", renamed)
    assert rejection is not None and rejection.similarity == 1.0 and rejection.like == "Florist"
    report = f.report()
    assert report["threshold"] == 0.7 and len(report["rejections"]) == 3
