"""report.html read at a glance: figures for issue 25's report bullets, off headless Chromium at
1,100 px and off the page's text.

For each ``report.html`` given, renders it with the probe of ``tests/test_report_browser.py`` (the
same script, window and Chromium flags the test asserts on) and prints: page height, the widest
the page scrolls to against the window, elements past the window's edge, where the summary box and
the contents end, contents links that land on a section, SVGs drawn and the ER diagram's width;
then from the HTML: tools listed in "Tools the agent sees", policy rules, example rows (one per
family and level), how many of them carry the refusal form and how often the most repeated
sentence of 12 words or more recurs among them, and captions naming a distribution shape.
Screenshots of the first screen and the whole page go to ``--shots`` (a temporary directory by
default). Needs ``chromium``.

    python benchmarks/report_probe.py B1/report.html B2/report.html ... [--shots DIR]

Results are printed and written to ``benchmarks/results/report_probe.json``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

SHAPES = ("log-normal", "lognormal", "normal", "uniform", "skewed", "long tail", "long-tailed")


def _section(page: str, section_id: str) -> str:
    found = re.search(rf"<h2 id=['\"]{section_id}['\"].*?(?=<h2 |</body>)", page, re.S)
    return found.group(0) if found else ""


def text_figures(page: str) -> dict[str, Any]:
    """What the HTML says: tools, rules, examples and their most repeated sentence, charts, captions."""
    tools = _section(page, "tools")
    policy = _section(page, "policy")
    examples = _section(page, "examples")
    rows = [row for row in re.findall(r"<tr[^>]*>(.*?)</tr>", examples, re.S) if re.search(r"<td[^>]*>L?\d</td>", row)]
    sentences = Counter(
        s.strip()
        for row in rows
        for s in re.split(r"(?<=[.!?])\s+", re.sub(r"<[^>]+>", " ", row))
        if len(s.split()) >= 12
    )
    repeated = max(sentences.items(), key=lambda kv: (kv[1], len(kv[0])), default=("", 0))
    captions = re.findall(r"<figcaption[^>]*>(.*?)</figcaption>", page, re.S)
    return {
        "sections": re.findall(r"<h2 id=['\"]([^'\"]+)['\"]", page),
        "tools_listed": len(re.findall(r"<tr[^>]*>\s*<td[^>]*>\s*<code>", tools)),
        "policy_rules": len(re.findall(r"<li[^>]*>", policy)),
        "example_rows": len(rows),
        "example_rows_with_the_refusal_form": sum("&quot;cannot&quot;: REASON" in row for row in rows),
        "most_repeated_long_sentence": {"times": repeated[1], "words": len(repeated[0].split())},
        "captions": len(captions),
        "captions_naming_a_shape": [
            re.sub(r"<[^>]+>", "", c)[:110] for c in captions if any(s in c.lower() for s in SHAPES)
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", type=Path, nargs="+")
    parser.add_argument("--shots", type=Path, default=Path(tempfile.gettempdir()) / "report_probe")
    parser.add_argument("--out", type=Path, default=RESULTS / "report_probe.json")
    args = parser.parse_args()
    import test_report_browser as browser

    if browser.CHROMIUM is None:
        raise SystemExit("no chromium on PATH (Debian: apt-get install -y chromium)")
    results: dict[str, Any] = {}
    for report in args.reports:
        name = report.absolute().parent.parent.name
        with tempfile.TemporaryDirectory(prefix="report-probe-") as work:
            page = browser._render(report, Path(work))
            args.shots.mkdir(parents=True, exist_ok=True)
            for shot in page.pop("screenshots"):
                shutil.copy(shot, args.shots / f"{name}-{shot.name}")
        er = [s for s in page["svgs"] if s["label"] == "entity-relationship diagram"]
        links = page["contents"]["links"] if page["contents"] else []
        results[name] = {
            "page_height": page["pageHeight"],
            "window": page["width"],
            "scroll_width": page["scrollWidth"],
            "overflowing": len(page["overflowing"]),
            "summary_bottom": round(page["summary"]["bottom"]) if page["summary"] else None,
            "contents_bottom": round(page["contents"]["bottom"]) if page["contents"] else None,
            "contents_links_landing": f"{sum(link['found'] for link in links)}/{len(links)}",
            "svgs_drawn": sum(s["marks"] > 0 for s in page["svgs"]),
            "er_width": round(er[0]["width"]) if er else None,
            **text_figures(report.read_text(encoding="utf-8")),
        }
        print(name, json.dumps(results[name]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
