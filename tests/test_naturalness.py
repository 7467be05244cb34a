"""The naturalness rules: each flags its pattern and passes the natural wording beside it, and
built bundles break none of them."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.runtime.environment import Environment
from pipeline.runtime.task import Task, ToolCall
from pipeline.tasks.naturalness import (
    Violation,
    World,
    relative_clause_chains,
    task_violations,
    violations,
    wording_violations,
)
from pipeline.tasks.phrasing import refusal_form
from pipeline.tasks.words import with_article
from pipeline.tools.executor import open_reading


def rules(text: str, world: World | None = None) -> set[str]:
    return {v.rule for v in wording_violations(text, world.schema if world else None)}


# -- relative clauses -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Close the claim whose status is under review whose policy is POL-1.",
        "What is the status of the claim whose policy is the policy whose holder is Dana Whitfield?",
        'Find the passenger whose full name mentions "Ramirez" (whose nationality is Spain).',
        "Cancel the claim whose status is open that belongs to the policy with a premium of 12.",
    ],
)
def test_chained_relative_clauses_are_flagged(text: str) -> None:
    assert rules(text) == {"relative_clauses"}


@pytest.mark.parametrize(
    "text",
    [
        "Close the claim under review on Dana Whitfield's policy with an annual premium of 1,215.98.",
        "Close the claim with status under review whose policy is POL-1.",
        "How many orders whose status is paid and whose total is 20 or more are there?",
        "Of the order whose total is 3, or the order whose total is 4, which is newer?",
        "Sum the fines of the members of the branch whose name includes 'Library'.",
        'Find the book whose title is "The One Whose Name Is Lost".',
        "Which has more stock: the product with price 3 whose title mentions x than the other?",
    ],
)
def test_one_relative_clause_per_noun_phrase_passes(text: str) -> None:
    assert "relative_clauses" not in rules(text)


def test_a_chain_is_reported_with_its_words() -> None:
    assert relative_clause_chains("the bag whose weight is 9 whose ticket is T-1") == ["whose weight is 9 whose"]


# -- identifiers and raw ids ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Run cancel_order on order ORD-1.",
        "Set the unit_price of order item OI-2 to 3.",
        "List the orders WHERE status is paid.",
        "Count the products with price >= 10.",
    ],
)
def test_identifier_tokens_are_flagged(text: str) -> None:
    assert rules(text) == {"identifier"}


@pytest.mark.parametrize(
    "text",
    [
        "Cancel order ORD-104233 and email ann_lee@example.com.",
        "Set the unit price of order item OI-2 to 3.",
        'Find the product "snake_case Handbook".',
        "List the orders that are not paid, newest first.",
    ],
)
def test_values_and_words_are_not_identifiers(text: str) -> None:
    assert "identifier" not in rules(text)


@pytest.mark.parametrize(
    "text", ["Look up the pet with id 194.", "Find the member whose id is 39.", "Open order id 12."]
)
def test_a_raw_id_is_flagged(text: str) -> None:
    assert rules(text) == {"raw_id"}


@pytest.mark.parametrize("text", ["Look up order #12.", "Find the member numbered #39.", "Check the valid date."])
def test_a_record_number_as_given_passes(text: str) -> None:
    assert "raw_id" not in rules(text)


@pytest.mark.parametrize("seed", range(4))
def test_the_refusal_form_is_left_out(seed: int) -> None:
    request = "Cancel order #12."
    assert violations(request + " " + refusal_form(random.Random(seed)), [], "update", {}) == []
    assert violations("Cancel the order with id 12. " + refusal_form(random.Random(seed)), [], "update", {})


# -- state rules ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(bundles: dict[str, Path]) -> Iterator[World]:
    env = Environment.from_bundle(bundles["online_store"])
    conn = open_reading(env.bundle.state_bytes)
    try:
        yield World(env.schema, env.executor, conn)
    finally:
        conn.close()
        env.close()


def test_schema_identifiers_are_flagged(world: World) -> None:
    assert rules("Move order ORD-1 with ship_order.", world) == {"identifier"}
    assert rules("Ship order ORD-1.", world) == set()


def _prices(world: World) -> list[float]:
    return [r[0] for r in world.conn.execute("SELECT price FROM products")]


def test_a_filter_every_row_or_no_row_meets_is_flagged(world: World) -> None:
    low, high = min(_prices(world)), max(_prices(world))

    def flagged(arguments: dict[str, object], family: str = "count") -> set[str]:
        call = ToolCall(tool="list_products", arguments=arguments)
        return {v.rule for v in violations("Count the cheap products.", [call], family, {}, world)}

    assert flagged({"price_min": low}) == {"always_true"}
    assert flagged({"price_min": high + 1}) == {"always_false"}
    assert flagged({"price_min": high + 1}, family="infeasible") == set()
    assert flagged({"price_min": high}) == set()
    assert flagged({"title": "nothing like this"}) == set()  # a name is not a condition


def test_a_conditional_whose_condition_is_settled_by_the_state_is_flagged(world: World) -> None:
    low, high = min(_prices(world)), max(_prices(world))
    write = ToolCall(tool="update_product", arguments={"id": 1, "stock": 3})

    def flagged(threshold: float) -> set[str]:
        condition = f"its price is at least {threshold:g}"
        text = f"Look at product #1. If {condition}, set its stock to 3. If not, set its price to 4."
        return {v.rule for v in violations(text, [write], "conditional", {}, world)}

    assert flagged(int(low)) == {"always_true"}
    assert flagged(int(high) + 1) == {"always_false"}
    middle = sorted(_prices(world))[len(_prices(world)) // 2]
    assert flagged(int(middle)) == set()


def test_articles_follow_the_sound() -> None:
    assert [with_article(w) for w in ("unit price", "amount", "hourly rate", "status")] == [
        "a unit price",
        "an amount",
        "an hourly rate",
        "a status",
    ]
    plurals = ("key cards issued", "units sold", "nights", "sales region", "address", "basis")
    assert [with_article(w) for w in plurals] == [
        "key cards issued",
        "units sold",
        "nights",
        "a sales region",
        "an address",
        "a basis",
    ]


@pytest.mark.parametrize(
    "text",
    ["the bank account with currency usd and a account name mentioning x", "A note written about a order."],
)
def test_a_before_a_vowel_sound_is_flagged(text: str) -> None:
    assert [v.rule for v in wording_violations(text)] == ["article"]


@pytest.mark.parametrize(
    "text",
    [
        "an account name",
        "a unit price of 3",
        "a one-way fare",
        "a euro amount",
        "an hourly rate",
        'the book "a odd title"',
        "Is a Owen Smith booked?",
        "A order placed on May 2",
    ],
)
def test_articles_as_spoken_and_names_pass(text: str) -> None:
    assert [v.rule for v in wording_violations(text) if v.rule == "article"] == []


# -- built bundles -------------------------------------------------------------------------------------


@pytest.mark.parametrize("domain", ["online_store", "library_loans"])
def test_built_bundles_read_naturally(bundles: dict[str, Path], domain: str) -> None:
    env = Environment.from_bundle(bundles[domain])
    conn = open_reading(env.bundle.state_bytes)
    try:
        world = World(env.schema, env.executor, conn)
        found = {t.id: [str(v) for v in task_violations(t, world)] for t in env.tasks}
    finally:
        conn.close()
        env.close()
    assert env.tasks and {k: v for k, v in found.items() if v} == {}


def test_check_fails_a_bundle_with_an_unnatural_instruction(
    bundles: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``synthenv check`` names the task and the rule (the wording is stubbed: a shipped bundle
    cannot be edited without breaking its digest)."""
    import pipeline.tasks.check as check

    def chained(task: Task, world: World) -> list[Violation]:
        return [Violation("relative_clauses", "whose a is 1 whose")] if task.id.startswith("lookup-") else []

    monkeypatch.setattr(check, "task_violations", chained)
    report = check.check_bundle(bundles["online_store"])
    failed = {k: v for k, v in report.failures.items() if "unnatural" in v}
    assert failed and all(k.startswith("lookup-") and "relative_clauses" in v for k, v in failed.items())
