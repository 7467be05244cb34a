"""The family table in generators/README.md is the registry's, and counterparts are well formed."""

from __future__ import annotations

import re

import pytest

from generators import registry, table

COUNTERPART = re.compile(r"(?:reasoning_gym|rlve):[a-z0-9_]+")


def test_readme_table_is_up_to_date() -> None:
    current = table.README.read_text(encoding="utf-8")
    assert table.replace_table(current, table.render()) == current, (
        "generators/README.md: the family table is out of date; run python -m generators.table --write"
    )


def test_every_family_has_one_row_with_its_category() -> None:
    rows = table.family_rows()
    assert [row[1] for row in rows] == sorted(registry.list_families(), key=lambda n: (registry.category_of(n), n))
    for category, name, knobs, levels, _ in rows:
        assert category == registry.category_of(name)
        assert levels.startswith(f"{len(registry.get_family(name).levels)} levels")
        for knob in registry.get_family(name).config.RANGES:
            assert knob in knobs


@pytest.mark.parametrize("name", registry.list_families())
def test_counterpart_is_empty_or_a_peer_dataset(name: str) -> None:
    counterpart = registry.get_family(name).counterpart
    assert counterpart == "" or COUNTERPART.fullmatch(counterpart), counterpart


def test_known_counterparts() -> None:
    expected = {
        "gcd_lcm": "reasoning_gym:gcd",
        "game_24": "reasoning_gym:puzzle24",
        "graph_coloring": "reasoning_gym:graph_color",
        "zebra_puzzle": "reasoning_gym:zebra_puzzles",
        "propositional_sat": "reasoning_gym:propositional_logic",
    }
    for name, counterpart in expected.items():
        assert registry.get_family(name).counterpart == counterpart


def test_a_stale_or_unmarked_readme_is_caught() -> None:
    stale = f"intro\n{table.BEGIN}\n| old |\n{table.END}\noutro\n"
    replaced = table.replace_table(stale, table.render())
    assert replaced != stale and replaced.startswith("intro\n") and replaced.endswith("\noutro\n")
    with pytest.raises(ValueError, match="no"):
        table.replace_table("no markers here", table.render())


def test_cells_escape_pipes() -> None:
    assert table._cell("a|b\nc") == "a\\|b c"
