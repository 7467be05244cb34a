"""Step 4 and 5 end to end: proven tasks, content-addressed bundles, tamper refusal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.bundle import BundleError, load_bundle
from pipeline.check import check_bundle

EXPECTED_FILES = {"schema.json", "schema.sql", "state.sqlite", "tools.json", "openapi.json", "tasks.jsonl",
                  "report.html", "Dockerfile"}


def test_bundle_layout_and_manifest(store_bundle: Path) -> None:
    b = load_bundle(store_bundle)
    assert set(b.manifest["files"]) == EXPECTED_FILES
    for key in ("name", "version", "digest", "seed", "frozen_clock", "generator_version", "knobs", "counts", "lineage"):
        assert key in b.manifest, key
    assert b.digest.startswith("sha256:") and len(b.digest) == 71
    assert (store_bundle.parent / f"{b.name}-{b.version}.tar.gz").is_file()


@pytest.mark.parametrize("domain", ["online_store", "clinic_appointments", "library_loans"])
def test_every_shipped_task_is_proven(bundles: dict[str, Path], domain: str) -> None:
    report = check_bundle(bundles[domain])
    assert report.tasks >= 40
    assert report.ok, report.failures
    families = {json.loads(line)["family"] for line in (bundles[domain] / "tasks.jsonl").open()}
    assert len(families) >= 10


def test_wrong_answers_and_wrong_writes_score_zero(store_bundle: Path) -> None:
    """Through the agent's own entry point: perturbed and stuffed answers, misdirected writes."""
    from pipeline import Environment
    from pipeline.taskgen.proof import fingerprint, perturbed_answers, stuffed_answers, wrong_row_solutions

    env = Environment.from_bundle(store_bundle)
    misdirected = 0
    for task in env.tasks:
        for answer in perturbed_answers(task) + stuffed_answers(task):
            env.reset(task_id=task.id)
            for call in task.solution:
                env.step(call.model_dump())
            assert env.step({"answer": answer})[1] == 0.0, (task.id, answer)
        gold = _state(env, task.solution)
        for solution in wrong_row_solutions(task, env.executor)[:2]:
            env.reset(task_id=task.id)
            ok = all(env.step(call.model_dump())[0]["type"] == "tool_result" for call in solution)
            if ok and fingerprint(env._session.conn, env.schema) != gold:  # noqa: SLF001 - white-box state
                misdirected += 1
                assert env.step({"answer": task.answer})[1] == 0.0, task.id
    assert misdirected > 0


def _state(env: Any, solution: Any) -> tuple[Any, ...]:
    from pipeline.runtime.session import Session
    from pipeline.taskgen.proof import fingerprint, replay

    session = Session(env.bundle.state_bytes, env.executor)
    try:
        replay(session, solution)
        return fingerprint(session.conn, env.schema)
    finally:
        session.close()


@pytest.mark.parametrize(
    "tamper, message",
    [
        (lambda p: (p / "tasks.jsonl").write_text((p / "tasks.jsonl").read_text()[:-50]), "tasks.jsonl was modified"),
        (lambda p: (p / "state.sqlite").unlink(), "state.sqlite listed in the manifest is missing"),
        (lambda p: (p / "extra.txt").write_text("x"), "files not in the manifest: extra.txt"),
        (lambda p: _edit_manifest_files(p), "digest does not match"),
    ],
)
def test_a_modified_bundle_is_refused_naming_the_file(store_bundle: Path, tmp_path: Path, tamper, message: str) -> None:
    copy = tmp_path / "b"
    shutil.copytree(store_bundle, copy)
    tamper(copy)
    with pytest.raises(BundleError, match=message):
        load_bundle(copy)


def _edit_manifest_files(path: Path) -> None:
    m = json.loads((path / "manifest.json").read_text())
    m["files"]["tasks.jsonl"] = "0" * 64
    (path / "manifest.json").write_text(json.dumps(m))


def _generate_in_subprocess(out: Path, hashseed: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "generate", "--domain", "clinic_appointments", "--seed", "3",
         "--out", str(out), "--no-prefect", "--json"],
        capture_output=True, text=True, env=env, check=True, timeout=300,
    )
    return json.loads(proc.stdout)


def test_same_inputs_same_digest_across_hash_seeds(tmp_path: Path) -> None:
    a = _generate_in_subprocess(tmp_path / "a", "1")
    b = _generate_in_subprocess(tmp_path / "b", "4242")
    assert a["digest"] == b["digest"]
    for name in EXPECTED_FILES:
        assert (Path(a["path"]) / name).read_bytes() == (Path(b["path"]) / name).read_bytes(), name
    assert Path(a["archive"]).read_bytes() == Path(b["archive"]).read_bytes()


def test_different_seed_different_digest(bundles: dict[str, Path], tmp_path: Path) -> None:
    from pipeline.steps import Inputs, generate

    other = generate(Inputs(domain="online_store", seed=8), tmp_path / "o", tmp_path / "w")
    assert other["digest"] != load_bundle(bundles["online_store"]).digest
