"""The reference and the judgment-free scripted policies per level, on both report pages.

The bundle's ``report.html`` (scripted policies played at build, on a draft of the bundle) and
the ``report.html`` of ``synthenv evaluate --baselines`` must show the same pass rate per level
for ``reference``, ``literal``, ``first_candidate`` and ``no_computation``: the figures are
counted here from the evaluation's own episode rows, not from either page's code.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from pipeline.evaluate.runner import read_episodes
from pipeline.jobs.evaluate import Target, baselines
from pipeline.jobs.steps import Inputs, generate
from pipeline.package.report.evaluation import FREE, TOP_LEVEL, WHAT, level_table

POLICIES = ("reference", "literal", "first_candidate", "no_computation")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A small bundle (three tasks per family, levels 0 to 2) and its baselines run, for the four policies."""
    root = tmp_path_factory.mktemp("scripted")
    summary = generate(Inputs(domain="online_store", seed=3, tasks_per_family=3), root / "b", root / "work")
    bundle = Path(summary["path"])
    suite = baselines(Target(str(bundle)), names=list(POLICIES), out=root / "runs")
    return {"bundle": bundle, "suite": suite}


def _expected(run: Path) -> tuple[dict[int, str], str]:
    """pass@1 per level and overall, counted from the run's episode rows (one trial per task)."""
    rows = read_episodes(run / "episodes.jsonl")
    per: dict[int, list[bool]] = defaultdict(list)
    for row in rows:
        per[int(row["level"])].append(row["status"] == "passed")

    def pct(xs: list[bool]) -> str:
        return f"{100 * sum(xs) / len(xs):.0f}%"

    return {lvl: pct(xs) for lvl, xs in sorted(per.items())}, pct([x for xs in per.values() for x in xs])


def _row(page: str, policy: str) -> list[str]:
    """The cells of the per-level table's row for ``policy`` (after its name)."""
    found = re.findall(rf"<tr><td>{policy}</td>(.*?)</tr>", page)
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", r) for r in found]
    rows = [r for r in rows if r and r[-1] == WHAT[policy].replace("'", "&#x27;")]
    assert len(rows) == 1, f"{policy}: {len(rows)} per-level rows"
    return rows[0][:-1]


def _levels(page: str) -> list[int]:
    head = page[page.index("<th>policy</th>") : page.index("<th>all</th>")]
    return [int(x) for x in re.findall(r"<th>L(\d+)<br>", head)]


@pytest.mark.parametrize("which", ["bundle", "evaluate"])
def test_both_pages_show_the_four_policies_per_level_with_the_counted_figures(
    small: dict[str, Any], which: str
) -> None:
    if which == "bundle":
        page = (small["bundle"] / "report.html").read_text(encoding="utf-8")
        page = page[page.index("<h2 id='scripted'>") :]
    else:
        page = (Path(small["suite"]["out"]) / "report.html").read_text(encoding="utf-8")
    runs = Path(small["suite"]["out"])
    reference, _ = _expected(runs / "reference")
    assert set(reference.values()) == {"100%"}  # the upper bound, at every level
    assert _levels(page) == sorted(reference)
    for policy in POLICIES:
        per_level, overall = _expected(runs / policy)
        assert _row(page, policy) == [*per_level.values(), overall], policy


def test_the_bundle_page_is_the_same_bytes_when_built_again(small: dict[str, Any], tmp_path: Path) -> None:
    summary = generate(Inputs(domain="online_store", seed=3, tasks_per_family=3), tmp_path / "b", tmp_path / "w")
    again = Path(summary["path"]) / "report.html"
    assert again.read_bytes() == (small["bundle"] / "report.html").read_bytes()


def _report(policy: str, top: float | None) -> dict[str, Any]:
    levels = {"0": {"pass_at_1": 1.0, "tasks": 4}}
    if top is not None:
        levels[str(TOP_LEVEL)] = {"pass_at_1": top, "tasks": 5}
    return {"policy": policy, "levels": levels, "overall": {"pass_at_1": 0.5}}


def test_a_top_level_passed_without_judgment_is_red_and_a_lower_one_is_not() -> None:
    def red(policy: str, top: float) -> bool:
        table = level_table([_report("reference", 1.0), _report(policy, top)])
        row = table[table.index(f"<tr><td>{policy}</td>") :]
        return FREE in row

    assert red("literal", 0.4) and red("no_computation", 0.21)
    assert not red("first_candidate", 0.2)  # at most a fifth of the top level: the bar holds
    assert not red("reference", 1.0)
    table = level_table([_report("reference", None), _report("literal", 1.0)])
    assert "5 tasks" in table and "4 tasks" in table and "what it does" in table


def test_the_text_table_stars_a_top_level_passed_without_judgment() -> None:
    from pipeline.evaluate.report import baseline_table

    reports = {p: _report(p, top) for p, top in (("reference", 1.0), ("literal", 0.4), ("no_computation", 0.2))}
    table = baseline_table(reports, ("refuse",), ("literal", "no_computation"))
    rows = {line.split()[0]: line for line in table.splitlines()}
    assert rows["literal"].rstrip().endswith("40*    50") and "*" not in rows["no_computation"]
    assert table.splitlines()[-1].startswith("* passes more than 20 % of level 5")
