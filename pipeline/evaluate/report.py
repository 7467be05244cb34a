"""From episode rows to the report: figures per family × level, text tables, JSON and a page.

The report is a pure function of the run's identity and its episode rows (sorted by task
and trial): no wall-clock time, no durations, no token counts. So a run stopped half way
and resumed gives the same ``report.json`` as one that ran straight through, and two runs
with the same config id on the same bundle digest are compared figure for figure. Timing
and cost are run facts: they go in the summary beside the report, not in it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.evaluate.metrics import TaskOutcome, cell, outcomes_of

METHOD = {
    "pass_at_1": "mean over tasks of passed / scored trials",
    "pass_at_k": "unbiased estimator 1 - C(n-c,k)/C(n,k) (Chen et al. 2021), mean over tasks with >= k scored trials",
    "pass_hat_k": "C(c,k)/C(n,k): all k trials pass (tau-bench), mean over tasks with >= k scored trials",
    "ci": "Wilson score interval, 95 %: pass@1 over scored episodes, pass@k and pass^k over tasks",
    "errors": "infrastructure errors (provider failures, timeouts, verification status 'error') are not trials",
}


def build_report(info: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The report of one run (``info`` is ``run.json``)."""
    k = int(info["trials"])
    tasks = outcomes_of(rows)
    by_family: dict[str, list[TaskOutcome]] = {}
    by_level: dict[int, list[TaskOutcome]] = {}
    for t in tasks:
        by_family.setdefault(t.family, []).append(t)
        by_level.setdefault(t.level, []).append(t)
    ends: dict[str, int] = {}
    for row in rows:
        if row["status"] == "error":
            ends[str(row["end"])] = ends.get(str(row["end"]), 0) + 1
    families = {}
    for family, items in sorted(by_family.items()):
        levels: dict[int, list[TaskOutcome]] = {}
        for t in items:
            levels.setdefault(t.level, []).append(t)
        families[family] = {
            "all": cell(items, k).as_dict(),
            "levels": {str(lvl): cell(ts, k).as_dict() for lvl, ts in sorted(levels.items())},
        }
    expected = len(info["tasks"]) * k
    return {
        "bundle": {"ref": info["ref"], "digest": info["digest"], "kind": info["kind"]},
        "policy": info["policy"],
        "config_id": info["config_id"],
        "config": info["config"],
        "trials": k,
        "episodes": {"planned": expected, "recorded": len(rows), "missing": expected - len(rows)},
        "errors": {"total": sum(ends.values()), "by_cause": dict(sorted(ends.items()))},
        "overall": cell(tasks, k).as_dict(),
        "levels": {str(lvl): cell(ts, k).as_dict() for lvl, ts in sorted(by_level.items())},
        "families": families,
        "tasks": {
            t.task_id: {"family": t.family, "level": t.level, "n": t.n, "passed": t.c, "errors": t.errors}
            for t in tasks
        },
        "method": METHOD,
    }


def _pct(value: float | None) -> str:
    return "   -" if value is None else f"{100 * value:4.0f}"


def _ci(ci: Sequence[float] | None) -> str:
    return "" if ci is None else f"[{100 * ci[0]:.0f}-{100 * ci[1]:.0f}]"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    rows = [list(map(str, r)) for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    return out


def render_text(report: Mapping[str, Any]) -> str:
    """The CLI summary: one line per family × level, then per level and overall (percentages)."""
    k = report["trials"]
    header = ["family", "lvl", "tasks", "eps", "err", "pass@1", "95% CI", f"pass@{k}", f"pass^{k}", "steps", "tool err"]

    def row(name: str, lvl: str, c: Mapping[str, Any]) -> list[str]:
        return [
            name,
            lvl,
            c["tasks"],
            c["episodes"],
            c["errors"],
            _pct(c["pass_at_1"]),
            _ci(c["pass_at_1_ci"]),
            _pct(c["pass_at_k"]),
            _pct(c["pass_hat_k"]),
            "-" if c["mean_steps"] is None else f"{c['mean_steps']:.1f}",
            "-" if c["mean_tool_errors"] is None else f"{c['mean_tool_errors']:.2f}",
        ]

    rows = []
    for family, f in report["families"].items():
        rows += [row(family, lvl, c) for lvl, c in f["levels"].items()]
    rows += [row("(all)", lvl, c) for lvl, c in report["levels"].items()]
    rows.append(row("(all)", "*", report["overall"]))
    e = report["errors"]
    head = (
        f"{report['bundle']['ref']} · {report['policy']} · {report['trials']} trial(s) · config {report['config_id']}\n"
        f"episodes {report['episodes']['recorded']}/{report['episodes']['planned']}, "
        f"infrastructure errors {e['total']}" + (f" {e['by_cause']}" if e["total"] else "") + " (not scored)"
    )
    return "\n".join([head, *_table(header, rows)]) + "\n"


def baseline_table(
    reports: Mapping[str, Mapping[str, Any]], trivial: Sequence[str], judgment: Sequence[str] = ()
) -> str:
    """pass@1 per level for each policy; ``!`` marks a level a trivial policy passes at all, ``*`` a top
    level a ``judgment`` policy (one that skips the judgment a request needs) passes above the limit."""
    from pipeline.package.report.evaluation import TOP_LEVEL, TOP_LIMIT

    levels = sorted({lvl for r in reports.values() for lvl in r["levels"]}, key=int)
    rows, starred = [], False
    for name, r in reports.items():
        cells = []
        for lvl in levels:
            c = r["levels"].get(lvl)
            p = None if c is None else c["pass_at_1"]
            mark = " "
            if name in trivial and p:
                mark = "!"
            elif name in judgment and int(lvl) == TOP_LEVEL and p is not None and p > TOP_LIMIT:
                mark, starred = "*", True
            cells.append(_pct(p) + mark)
        rows.append([name, *cells, _pct(r["overall"]["pass_at_1"])])
    lines = _table(["policy (pass@1 %)", *[f"L{lvl}" for lvl in levels], "all"], rows)
    if starred:
        lines.append(
            f"* passes more than {100 * TOP_LIMIT:.0f} % of level {TOP_LEVEL} without the judgment it should need"
        )
    return "\n".join(lines) + "\n"


def trivial_passes(reports: Mapping[str, Mapping[str, Any]], trivial: Sequence[str]) -> list[dict[str, Any]]:
    """Every (policy, family, level) where a trivial policy passed something: rewards had for free."""
    out = []
    for name, r in reports.items():
        if name not in trivial:
            continue
        for family, f in r["families"].items():
            for lvl, c in f["levels"].items():
                if c["pass_at_1"]:
                    out.append({"policy": name, "family": family, "level": int(lvl), "pass_at_1": c["pass_at_1"]})
    return out


def write_report(out: Path, report: Mapping[str, Any], extra: Sequence[Mapping[str, Any]] = ()) -> None:
    """``report.json`` and a self-contained ``report.html`` (this run, plus ``extra`` runs on the same page)."""
    from pipeline.package.report.evaluation import evaluation_page

    (out / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (out / "report.html").write_text(evaluation_page([report, *extra]), encoding="utf-8")
