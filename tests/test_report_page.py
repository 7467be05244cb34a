"""report.html read at a glance: summary box, contents, the tools and the policy an agent is given,
examples without the repeated refusal paragraph, charts only where they add to a table.

Every figure the page shows is recounted here from the bundle's own files (tasks.jsonl, the
manifest, the surface every adapter uses), never from the report's code.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pipeline import Environment
from pipeline.jobs.steps import Inputs, generate
from pipeline.surface import surface_of
from pipeline.surface.text import system_text


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("report-page")
    summary = generate(Inputs(domain="online_store", seed=0), root / "b", root / "work")
    bundle = Path(summary["path"])
    return {
        "bundle": bundle,
        "page": (bundle / "report.html").read_text(encoding="utf-8"),
        "manifest": json.loads((bundle / "manifest.json").read_text(encoding="utf-8")),
        "tasks": [json.loads(line) for line in (bundle / "tasks.jsonl").read_text(encoding="utf-8").splitlines()],
    }


def _section(page: str, anchor: str) -> str:
    """From ``<h2 id='anchor'>`` to the next ``<h2``."""
    start = page.index(f"<h2 id='{anchor}'>")
    end = page.find("<h2", start + 1)
    return page[start : end if end != -1 else len(page)]


def test_the_summary_box_and_contents_come_first_and_link_every_section(built: dict[str, Any]) -> None:
    page = built["page"]
    box, nav, first = page.index("<div class='summary'"), page.index("<nav id='contents'>"), page.index("<h2")
    assert box < nav < first
    anchors = re.findall(r"<h2 id='([^']+)'>", page)
    assert not re.search(r"<h2>", page), "every section heading has an anchor"
    assert re.findall(r"<li><a href='#([^']+)'>", page[nav:first]) == anchors
    for must in ("tools", "policy", "tables", "er", "realism", "tasks", "examples", "exploits", "scripted"):
        assert must in anchors, must
    summary = html.unescape(page[box:nav])
    tasks = built["tasks"]
    assert f"{len(tasks)} proven of {built['manifest']['counts']['candidates']} candidates" in summary
    assert f"{len({t['family'] for t in tasks})} families" in summary
    passed = sum(c["passed"] for c in built["manifest"]["counts"]["exploits"].values())
    assert f"{len(built['manifest']['counts']['exploits'])} tried" in summary and f"{passed} passed" in summary


def test_the_tools_section_lists_what_the_agent_is_given(built: dict[str, Any]) -> None:
    env = Environment.from_bundle(built["bundle"])
    try:
        tools = surface_of(env).tools
        served = [t["name"] for t in env.tool_specs()]
    finally:
        env.close()
    section = _section(built["page"], "tools")
    listed = re.findall(r"<tr><td><code>([a-z_]+)</code></td>", section)
    assert listed == [t["name"] for t in tools]  # grouped in the surface's own order, the answer tool last
    for t in tools:
        first = " ".join(t["description"].split()).split(". ")[0]
        assert html.escape(first) in section, t["name"]
    assert f"{len(served)} tools by table" in section
    assert all(name in section for name in served)


def test_the_policy_section_shows_every_rule_the_agent_is_shown(built: dict[str, Any]) -> None:
    section = _section(built["page"], "policy")
    lines = [line for line in built["manifest"]["policy"].splitlines() if line.strip()]
    assert len(lines) >= 5
    items = [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", section)]
    assert items == [" ".join(line.split()) for line in lines]
    system = system_text(False, built["manifest"]["policy"])  # as every surface composes it
    assert html.escape(system) in section, "the full system text, as the agent reads it"


def test_counts_per_family_match_tasks_jsonl(built: dict[str, Any]) -> None:
    per = Counter(t["family"] for t in built["tasks"])
    section = _section(built["page"], "tasks")
    for family, n in per.items():
        assert re.search(rf"<tr><td>{family}</td>(<td>\d+</td>)+<td><b>{n}</b></td></tr>", section), family


def test_one_example_per_family_and_level_and_the_refusal_paragraph_once(built: dict[str, Any]) -> None:
    from pipeline.tasks.phrasing import REFUSAL_FORM, Phrasebook

    wordings = [" ".join(v.format().split()) for v in Phrasebook.load().variants(*REFUSAL_FORM)]
    section = _section(built["page"], "examples")
    first: dict[tuple[str, int], dict[str, Any]] = {}
    for t in built["tasks"]:
        first.setdefault((t["family"], t["level"]), t)
    rows = re.findall(r"<td>L(\d+)</td><td>\d+</td><td>(.*?)</td></tr>", section)
    assert len(rows) == len(first)
    for (family, level), t in first.items():
        ending = next(w for w in wordings if t["instruction"].endswith(" " + w))
        request = t["instruction"][: -len(ending) - 1]
        assert (str(level), html.escape(request)) in rows, (family, level)
    for _, request in rows:
        assert "&quot;cannot&quot;" not in request, "no refusal paragraph repeated in an example"
    used = {w for w in wordings if any(t["instruction"].endswith(" " + w) for t in built["tasks"])}
    assert used
    for w in wordings:
        assert built["page"].count(html.escape(w)) == (1 if w in used else 0), "said once, above the examples"


def test_charts_only_where_they_add_to_a_table(built: dict[str, Any]) -> None:
    page = built["page"]
    tasks = page[page.index("<h2 id='tasks'>") : page.index("<h2 id='exploits'>")]
    assert "<svg" not in tasks, "every task figure is a table already: no chart repeats one"
    labels = re.findall(r"<svg [^>]*aria-label='([^']*)'", page)
    assert len(labels) == 3 and labels[-1] == "entity-relationship diagram", labels
    length = tasks[tasks.index("<h3>Reference solution length</h3>") : tasks.index("<h3>Depth per level</h3>")]
    assert length.count("style='background:rgba(") >= len({t["family"] for t in built["tasks"]})


def test_a_28_table_er_diagram_fits_the_column() -> None:
    from pipeline.package.report.data import COLUMN, er_svg
    from pipeline.world.variants import random_schema

    schema = random_schema(6)
    assert len(schema.tables) == 28
    svg = er_svg(schema)
    width = int(re.search(r"<svg [^>]*width='(\d+)'", svg)[1])
    least = int(re.search(r"min-width:(\d+)px", svg)[1])
    assert width > COLUMN, "drawn wider than the column: the page must scale it"
    assert f"viewBox='0 0 {width} " in svg and "max-width:100%" in svg
    assert least <= COLUMN, "it scales into the column, no scrolling needed"


def _money(tmp_path: Path, bundle: Path, amounts: list[float]) -> str:
    import math
    import shutil
    import sqlite3

    from pipeline.package.report.data import money_chart
    from pipeline.world.schema import Schema

    state = tmp_path / f"state-{len(amounts)}-{amounts[-1]}.sqlite"
    shutil.copyfile(bundle / "state.sqlite", state)
    schema = Schema.model_validate_json((bundle / "schema.json").read_text(encoding="utf-8"))
    conn = sqlite3.connect(state)
    conn.create_function("log10", 1, math.log10, deterministic=True)
    conn.execute("PRAGMA foreign_keys=OFF")
    conn.execute("PRAGMA ignore_check_constraints=ON")
    conn.execute("DELETE FROM payments")
    ids = range(1, len(amounts) + 1)
    conn.executemany(
        "INSERT INTO payments (id, reference, order_id, amount, method, paid_at) VALUES (?, ?, 1, ?, 'card', "
        "'2026-01-01T00:00:00')",
        [(i, f"PAY-{i}", a) for i, a in zip(ids, amounts)],
    )
    try:
        return money_chart(conn, schema, {"payments": 10**6})
    finally:
        conn.close()


def test_a_money_caption_names_a_shape_only_when_the_data_shows_it(built: dict[str, Any], tmp_path: Path) -> None:
    import random

    rng = random.Random(0)
    assert _money(tmp_path, built["bundle"], [12.5, 40.0]) == "", "two values: no histogram"
    lognormal = _money(tmp_path, built["bundle"], [round(rng.lognormvariate(3, 1), 2) for _ in range(400)])
    assert "Looks log-normal" in lognormal and "400 values" in lognormal
    even = _money(tmp_path, built["bundle"], [round(rng.uniform(10, 100), 2) for _ in range(400)])
    assert "<figcaption>400 values from" in even and "log-normal" not in even and "skewed" not in even


def test_the_procedural_report_shows_one_example_item_per_family_and_level(tmp_path: Path) -> None:
    from pipeline.package.procedural import build_procedural_bundle
    from pipeline.package.report.procedural import QUESTION_CHARS

    level = {"gcd_lcm": 1, "maze": 2}
    bundle = build_procedural_bundle(["gcd_lcm", "maze"], tmp_path / "a", n=12, seed=0, level=level)
    again = build_procedural_bundle(["gcd_lcm", "maze"], tmp_path / "b", n=12, seed=0, level=level)
    assert bundle.digest == again.digest
    page = bundle.file("report.html").read_text(encoding="utf-8")
    box, nav = page.index("<div class='summary'"), page.index("<nav id='contents'>")
    assert box < nav < page.index("<h2")
    assert re.findall(r"<li><a href='#([^']+)'>", page) == re.findall(r"<h2 id='([^']+)'>", page)
    assert "12 single-turn questions" in page[box:nav]
    items = [json.loads(line) for line in bundle.file("tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    first: dict[tuple[str, int], dict[str, Any]] = {}
    for item in items:
        first.setdefault((item["metadata"]["family"], item["metadata"]["level"]), item)
    assert set(first) == {("gcd_lcm", 1), ("maze", 2)}
    section = page[page.index("<h2 id='examples'>") :]
    rows = re.findall(
        r"<tr><td>([a-z_]+)<br>.*?</td><td>(\d+)</td><td><pre>(.*?)</pre></td><td><pre>(.*?)</pre>", section, re.S
    )
    assert [(f, int(lvl)) for f, lvl, _, _ in rows] == sorted(first)
    for family, lvl, question, answer in rows:
        item = first[(family, int(lvl))]
        assert html.unescape(question).startswith(item["question"][:QUESTION_CHARS])
        assert html.unescape(answer) == str(item["answer"])
