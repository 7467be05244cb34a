"""``adaptive_curriculum``: the adaptive curriculum over real items, a round per Prefect task.

The loop is ``generators.adaptive_run.run``; here each round (generate, answer, score) is a
task, the state file is saved after every round and the per-family convergence table is the
flow's artifact.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from generators import adaptive_run

play_round = task(name="play-round", cache_policy=NO_CACHE)(adaptive_run.play_round)


@flow(name="adaptive_curriculum", log_prints=True)
def adaptive_curriculum(
    skills: dict[str, float],
    rounds: int = 60,
    batch: int = 32,
    seed: int = 0,
    state: str | None = None,
    target: tuple[float, float] = (0.5, 0.8),
) -> dict[str, Any]:
    """Run a scripted policy of fixed skill per family through the adaptive curriculum."""
    curriculum = adaptive_run.open_curriculum(sorted(skills), state, target)
    policy = adaptive_run.ScriptedPolicy(skills, seed=seed)
    report = adaptive_run.run(curriculum, policy, rounds, batch, seed, state, play=play_round).as_dict()
    create_markdown_artifact(
        adaptive_run.report_markdown(report), key="adaptive-curriculum", description="adaptive_curriculum report"
    )
    print(f"{report['in_band']} of {len(report['families'])} families in band after {rounds} rounds")
    return report
