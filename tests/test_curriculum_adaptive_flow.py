"""The adaptive curriculum as a Prefect flow (temporary server): a scripted policy of fixed
skill converges into the band, the state is saved and the convergence table is the artifact.
The loop itself is tested as plain functions in tests/generators/test_generators_adaptive_run.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.prefect, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def harness() -> Iterator[None]:
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=180):
        yield


def test_the_flow_converges_saves_state_and_reports(tmp_path: Path) -> None:
    from prefect import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    from flows.curriculum_adaptive import adaptive_curriculum
    from generators.adaptive import AdaptiveCurriculum

    state = tmp_path / "adaptive.json"
    skills = {"gcd_lcm": 3.3, "maze": 1.2, "syllogism": 4.2}
    report = adaptive_curriculum(skills, rounds=40, batch=32, seed=0, state=str(state))
    assert report["in_band"] == 3, report
    for name, c in report["families"].items():
        assert c["rounds_to_band"] is not None and c["rounds_to_band"] <= 30, (name, c)
        assert 0.5 <= c["final_expected"] <= 0.8 and 0.44 <= c["final_observed"] <= 0.86, (name, c)
    saved = AdaptiveCurriculum.load(state)
    assert {name: saved.difficulty(name) for name in skills} == {
        name: c["final_centre"] for name, c in report["families"].items()
    }
    assert json.loads(state.read_text())["format"] == "synthenv-adaptive-curriculum/1"
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(
            limit=1, artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["adaptive-curriculum"]))
        )
    assert found and "3 of 3 families in band" in str(found[0].data)
