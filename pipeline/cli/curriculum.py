"""``synthenv curriculum update``: apply rollout results and publish the next bundle version.
``synthenv curriculum simulate``: the adaptive curriculum over real items and a scripted policy."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import typer

from pipeline.cli.common import fail, quiet_prefect

curriculum_app = typer.Typer(no_args_is_help=True, help="Adapt procedural difficulty to rollout results.")


def _target(text: str) -> tuple[float, float]:
    """``LOW,HIGH``: two finite rates in [0, 1] with LOW < HIGH (``nan`` compares false to everything,
    so an unchecked band of ``nan,inf`` or ``0.9,0.1`` would silently never move a level)."""
    usage = f"--target must be LOW,HIGH with 0 <= LOW < HIGH <= 1 (e.g. 0.5,0.8), got {text!r}"
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(usage) from None
    if not (math.isfinite(low) and math.isfinite(high) and 0.0 <= low < high <= 1.0):
        raise ValueError(usage)
    return low, high


@curriculum_app.command("update")
def update(
    results: Path = typer.Option(
        ...,
        "--results",
        help="rollout results: JSONL or Parquet rows {bundle, task_id, reward}, a trajectory log, "
        "or an evaluation run directory (synthenv evaluate --out)",
    ),
    state: Path | None = typer.Option(
        None, "--state", help="curriculum state file (default: <registry>/curricula/<bundle name>.json)"
    ),
    registry: str | None = typer.Option(
        None, "--registry", help="registry directory or fsspec URL (default: $SYNTHENV_REGISTRY or artifacts/)"
    ),
    work: Path | None = typer.Option(None, "--work", help="scratch and pulled bundles (default: <registry>/.work)"),
    target: str = typer.Option("0.5,0.8", help="band of mean reward to hold (a new state file only)"),
    min_samples: int | None = typer.Option(
        None,
        min=1,
        help="scores needed before a level moves: default 32 per procedural level (a new state file only), "
        "4 per tool-use family × level",
    ),
    no_prefect: bool = typer.Option(False, "--no-prefect", help="run the same steps without the orchestrator"),
    as_json: bool = typer.Option(False, "--json", help="print the report as one JSON object"),
) -> None:
    """Record rewards per family and level; when a level moves (procedural) or a family × level's task count
    moves (tool-use), publish the next version (lineage: the previous)."""
    from pipeline.bundle.format import BundleError
    from pipeline.jobs import curriculum as curriculum_loop
    from pipeline.registry.registry import RegistryError

    if not results.exists():  # before any orchestrator starts: a typo costs no Prefect start-up
        fail(f"{results}: no such results file or run directory")
    try:
        band = _target(target)
        if no_prefect:
            report = curriculum_loop.update(
                results, state, registry, work, target=band, min_samples=min_samples
            ).as_dict()
        else:
            curriculum_loop.check_inputs(results, state)  # a bad file costs no orchestrator start-up
            quiet_prefect()
            from flows.curriculum import update_curriculum

            report = update_curriculum(
                str(results), str(state) if state else None, registry, str(work) if work else None, band, min_samples
            )
    except (ValueError, RegistryError, BundleError) as exc:
        fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps(report, sort_keys=True) + "\n")
    else:
        _print(report)


def _skills(text: str) -> dict[str, float]:
    """``family=skill,...`` with every family known and every skill a finite number."""
    from generators.registry import get_family

    skills: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        try:
            skill = float(value)
        except ValueError:
            skill = math.nan
        if not sep or not math.isfinite(skill):
            raise ValueError(f"--skill must be FAMILY=SKILL,... with a number per family (e.g. maze=2.5), got {part!r}")
        get_family(name.strip())  # an unknown family: ValueError naming the known ones
        skills[name.strip()] = skill
    if not skills:
        raise ValueError("--skill needs at least one FAMILY=SKILL")
    return skills


@curriculum_app.command("simulate")
def simulate(
    skill: str = typer.Option(
        ..., "--skill", help="the scripted policy: FAMILY=SKILL,... (skill on the 0-5 difficulty scale)"
    ),
    rounds: int = typer.Option(60, min=1, help="rounds; each draws --batch items per family"),
    batch: int = typer.Option(32, min=1, help="items per family and round"),
    seed: int = typer.Option(0, min=0),
    state: Path | None = typer.Option(None, "--state", help="adaptive curriculum state file (resumed if present)"),
    target: str = typer.Option("0.5,0.8", help="band of success to hold"),
    no_prefect: bool = typer.Option(False, "--no-prefect", help="run the same loop without the orchestrator"),
    as_json: bool = typer.Option(False, "--json", help="print the report as one JSON object"),
) -> None:
    """Run the adaptive curriculum (generators.adaptive_run) over generated items answered by a policy of
    fixed skill and scored by each family's scorer; exit 1 when a family's window ends outside the band."""
    from generators import adaptive_run

    try:
        skills, band = _skills(skill), _target(target)
        if no_prefect:
            curriculum = adaptive_run.open_curriculum(sorted(skills), state, band)
            policy = adaptive_run.ScriptedPolicy(skills, seed=seed)
            report = adaptive_run.run(curriculum, policy, rounds, batch, seed, state).as_dict()
        else:
            quiet_prefect()
            from flows.curriculum_adaptive import adaptive_curriculum

            report = adaptive_curriculum(skills, rounds, batch, seed, str(state) if state else None, band)
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps(report, sort_keys=True) + "\n")
    else:
        typer.echo(adaptive_run.report_markdown(report), nl=False)
    if report["in_band"] != len(report["families"]):
        raise typer.Exit(1)


def _print(r: dict[str, Any]) -> None:
    if r.get("kind") == "tool_use":
        _print_mix(r)
        return
    typer.echo(
        f"{r['bundle']}: levels {r['levels_before']} -> {r['levels_after']}"
        + (" (results already applied)" if r["already_applied"] else "")
    )
    for family, s in r["families"].items():
        typer.echo(
            f"  {family}: {s['rollouts']} rollouts, mean {s['mean']:.3f}, recorded {s['recorded']}, stale {s['stale']}"
        )
    typer.echo(f"  next {r['next']} {r['digest']}" if r["next"] else "  no level moved: no new version")
    typer.echo(f"  state {r['state']}")


def _print_mix(r: dict[str, Any]) -> None:
    typer.echo(
        f"{r['bundle']}: tasks per family × level" + (" (results already applied)" if r["already_applied"] else "")
    )
    for family, levels in r["cells"].items():
        cells = []
        for lvl, c in levels.items():
            before, after = r["mix_before"][family][lvl], r["mix_after"][family][lvl]
            rate = "-" if c["rate"] is None else f"{c['rate']:.2f}"
            cells.append(f"L{lvl} {rate} {c['verdict']} {before}->{after}" if before != after else f"L{lvl} {rate}")
        typer.echo(f"  {family}: " + ", ".join(cells))
    typer.echo(f"  next {r['next']} {r['digest']}" if r["next"] else "  nothing moved: no new version")
    typer.echo(f"  state {r['state']}")


def register(app: typer.Typer) -> None:
    app.add_typer(curriculum_app, name="curriculum")
