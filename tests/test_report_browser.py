"""report.html as a reader sees it: rendered by headless Chromium at 1,100 px on a tool-use bundle
(``synthenv generate --domain online_store --seed 0``), a ``--random`` bundle of 28 tables
(seed 5) and a procedural bundle.

The page itself has no script; a copy of it gets one that measures the laid-out page after load
and writes the figures into the DOM as JSON, which ``--dump-dom`` prints. What a reader needs is
asserted: the summary box and the contents on the first screen, every contents link landing on a
section, no element past the 1,100 px window (outside a scrolling box), and every chart and
diagram drawn with something in it. Screenshots of the first screen and of the whole page are kept
in the test's temporary directory (``--basetemp`` to keep them).

Needs ``chromium`` on PATH (Debian: ``apt-get install -y chromium``); skipped without it.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pipeline.jobs.steps import Inputs, generate
from pipeline.package.procedural import build_procedural_bundle
from pipeline.world.variants import pick_domain

pytestmark = pytest.mark.slow

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
WIDTH, HEIGHT = 1100, 2000
PROBE_ID = "browser-probe"

# Runs after load (images decoded, layout done); everything it reports is read off the live layout.
PROBE = (
    """<script>
window.addEventListener('load', () => {
  const doc = document.documentElement, width = doc.clientWidth;
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top + scrollY, bottom: r.bottom + scrollY,
            width: r.width, height: r.height}; };
  const scrolls = (el) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.getAttribute('class') ? '.' + el.getAttribute('class') : '');
  const overflowing = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;  // not rendered (a closed <details>, say)
    if (r.right <= width + 0.5 && r.left >= -0.5) continue;
    let clipped = false;
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (scrolls(up) && up.getBoundingClientRect().right <= width + 0.5) { clipped = true; break; }
    }
    const text = (el.textContent || '').slice(0, 60);
    if (!clipped) overflowing.push({element: name(el), right: Math.round(r.right), text});
  }
  const summary = document.querySelector('.summary');
  const contents = document.querySelector('nav#contents');
  const links = contents ? [...contents.querySelectorAll('a[href^="#"]')].map((a) => {
    const target = document.getElementById(a.getAttribute('href').slice(1));
    return {href: a.getAttribute('href'), text: a.textContent, found: !!target,
            height: target ? target.getBoundingClientRect().height : 0};
  }) : [];
  const svgs = [...document.querySelectorAll('svg')].map((s) => ({
    label: s.getAttribute('aria-label'), ...box(s),
    marks: s.querySelectorAll('rect, path, line, circle, polyline, polygon').length,
    texts: s.querySelectorAll('text').length,
    in_closed_details: !!s.closest('details:not([open])')}));
  const images = [...document.images].map(
    (i) => ({src: i.src.slice(0, 60), width: i.naturalWidth, complete: i.complete}));
  const result = {
    width, innerWidth, scrollWidth: doc.scrollWidth, pageHeight: doc.scrollHeight,
    summary: summary ? {...box(summary), text: summary.innerText} : null,
    contents: contents ? {...box(contents), links} : null,
    headings: [...document.querySelectorAll('h2')].map((h) => h.id),
    overflowing, svgs, images,
  };
  const out = document.createElement('pre');
  out.id = '"""
    + PROBE_ID
    + """';
  out.textContent = JSON.stringify(result);
  document.body.appendChild(out);
});
</script>"""
)


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    command = [
        CHROMIUM,
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def _render(report: Path, work: Path) -> dict[str, Any]:
    """The probe's figures for ``report`` rendered in a 1,100 x 2,000 window, and two screenshots."""
    page = report.read_text(encoding="utf-8")
    assert "<script" not in page  # the report is static; the only script is the probe added below
    probed = work / "probed.html"
    probed.write_text(page.replace("</body>", PROBE + "</body>", 1), encoding="utf-8")
    window = f"--window-size={WIDTH},{HEIGHT}"
    run = _chromium(window, "--virtual-time-budget=10000", "--dump-dom", probed.as_uri(), profile=work / "profile")
    found = re.search(rf"<pre id=\"{PROBE_ID}\">(.*?)</pre>", run.stdout, re.S)
    assert found, f"no probe output (exit {run.returncode}): {run.stderr[-800:]}"
    figures: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    first = work / "first-screen.png"
    _chromium(window, f"--screenshot={first}", report.as_uri(), profile=work / "profile")
    whole = work / "whole-page.png"
    tall = min(int(figures["pageHeight"]) + 50, 16000)
    _chromium(f"--window-size={WIDTH},{tall}", f"--screenshot={whole}", report.as_uri(), profile=work / "profile")
    figures["screenshots"] = [first, whole]
    return figures


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH: the report is checked in a real browser (apt-get install -y chromium)")
    root = tmp_path_factory.mktemp("report-browser")
    store = generate(Inputs(domain="online_store", seed=0), root / "out", root / "w-store")
    wide = generate(Inputs(domain=pick_domain(5), seed=5, variant=True), root / "out", root / "w-random")
    procedural = build_procedural_bundle(["gcd_lcm", "maze", "sudoku"], root / "proc", n=12, seed=0)
    bundles = {
        "online_store": Path(store["path"]),
        "random-28-tables": Path(wide["path"]),
        "procedural": procedural.path,
    }
    tables = json.loads((bundles["random-28-tables"] / "schema.json").read_text(encoding="utf-8"))["tables"]
    assert len(tables) == 28, len(tables)
    out = {}
    for kind, bundle in bundles.items():
        work = root / kind
        work.mkdir()
        out[kind] = _render(bundle / "report.html", work)
    return out


KINDS = ["online_store", "random-28-tables", "procedural"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_summary_box_and_contents_are_on_the_first_screen(rendered: dict[str, dict[str, Any]], kind: str) -> None:
    page = rendered[kind]
    summary, contents = page["summary"], page["contents"]
    assert summary is not None and contents is not None, kind
    assert summary["height"] > 40 and summary["width"] > 600, summary
    assert summary["bottom"] < contents["top"] < HEIGHT, (summary, contents)  # box first, then contents
    assert contents["bottom"] <= HEIGHT, contents  # the whole contents on the first screen
    for line in ("items", "families") if kind == "procedural" else ("data", "tasks", "exploits"):
        assert line in summary["text"], (line, summary["text"][:300])


@pytest.mark.parametrize("kind", KINDS)
def test_every_contents_link_lands_on_a_section(rendered: dict[str, dict[str, Any]], kind: str) -> None:
    page = rendered[kind]
    links = page["contents"]["links"]
    assert len(links) >= 3, links
    assert [link["href"][1:] for link in links] == [h for h in page["headings"] if h], (links, page["headings"])
    assert all(link["found"] and link["height"] > 0 for link in links), links


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_is_wider_than_the_window(rendered: dict[str, dict[str, Any]], kind: str) -> None:
    """No element past the right edge of a 1,100 px window, except inside a box that scrolls; the page
    itself never scrolls sideways."""
    page = rendered[kind]
    assert page["width"] == WIDTH, page["width"]
    assert page["scrollWidth"] <= page["width"], page["scrollWidth"]
    assert page["overflowing"] == [], page["overflowing"][:10]


@pytest.mark.parametrize("kind", ["online_store", "random-28-tables"])
def test_charts_and_the_diagram_are_drawn(rendered: dict[str, dict[str, Any]], kind: str) -> None:
    """Every SVG the reader can see has a size and marks in it; the ER diagram names every table."""
    page = rendered[kind]
    shown = [s for s in page["svgs"] if not s["in_closed_details"]]
    assert len(shown) >= 3, page["svgs"]  # two distribution charts and the ER diagram at least
    for svg in shown:
        assert svg["width"] > 100 and svg["height"] > 50 and svg["marks"] > 0 and svg["texts"] > 0, svg
    er = [s for s in shown if s["label"] == "entity-relationship diagram"]
    assert len(er) == 1, [s["label"] for s in shown]
    tables = 28 if kind == "random-28-tables" else 7
    assert er[0]["texts"] >= tables, er[0]
    # The whole diagram inside the window: a deep reference graph wraps into bands, never scrolls.
    assert er[0]["left"] >= 0 and er[0]["right"] <= page["width"], er[0]
    assert all(image["complete"] and image["width"] > 0 for image in page["images"]), page["images"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_screenshots_are_pictures_of_a_page(rendered: dict[str, dict[str, Any]], kind: str) -> None:
    """Both screenshots exist at the window's width and are not blank."""
    from PIL import Image, ImageStat

    for shot in rendered[kind]["screenshots"]:
        assert shot.exists(), shot
        with Image.open(shot) as image:
            assert image.width == WIDTH, (shot, image.size)
            spread = ImageStat.Stat(image.convert("L")).stddev[0]
        assert spread > 10, (shot, spread)  # a blank page has none
