"""Step 4 and 5 end to end: proven tasks, content-addressed bundles, tamper refusal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from pipeline.bundle.format import BundleError, load_bundle
from pipeline.tasks.check import check_bundle

EXPECTED_FILES = {
    "schema.json",
    "schema.sql",
    "state.sqlite",
    "tools.json",
    "openapi.json",
    "tasks.jsonl",
    "report.html",
    "Dockerfile",
}


def test_bundle_layout_and_manifest(store_bundle: Path) -> None:
    b = load_bundle(store_bundle)
    assert set(b.manifest.files) == EXPECTED_FILES
    for key in ("name", "version", "digest", "seed", "frozen_clock", "generator_version", "knobs", "counts", "lineage"):
        assert key in b.manifest.model_fields_set, key
    assert b.digest.startswith("sha256:") and len(b.digest) == 71
    assert (store_bundle.parent / f"{b.name}-{b.version}.tar.gz").is_file()


@pytest.mark.parametrize("domain", ["online_store", "clinic_appointments", "library_loans"])
def test_every_shipped_task_is_proven(bundles: dict[str, Path], domain: str) -> None:
    report = check_bundle(bundles[domain])
    assert report.tasks >= 40
    assert report.ok, report.failures
    lines = (bundles[domain] / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    families = {json.loads(line)["family"] for line in lines}
    assert len(families) >= 10


def test_report_counts_every_exploit(store_bundle: Path) -> None:
    from pipeline.tasks.exploits import REGISTRY

    page = (store_bundle / "report.html").read_text(encoding="utf-8")
    section = page[page.index("<h2 id='exploits'>Exploits</h2>") :]
    assert all(f"<td>{name}</td>" in section for name in REGISTRY)
    assert "a task ships only if every one scores 0.0" in section


def test_exploits_score_zero_through_the_agents_own_entry_point(store_bundle: Path) -> None:
    """The library's attempts replayed through ``Environment.step``, as an agent would send them:
    perturbed and stuffed answers, misdirected and collateral writes."""
    from pipeline import Environment
    from pipeline.tasks.exploits import REGISTRY
    from pipeline.tasks.exploits.base import Probe, scratch_for
    from pipeline.tasks.proof import fingerprint

    env = Environment.from_bundle(store_bundle)
    with closing(scratch_for(env.bundle.state_bytes)) as scratch:
        tried = 0
        for task in env.tasks:
            probe = Probe(task, env.executor, env.bundle.state_bytes, scratch)
            gold = _state(env, task.solution)
            for name in ("perturbed_answer", "stuffed_answer", "wrong_row", "collateral_write"):
                for attempt in list(REGISTRY[name].attempts(probe))[:3]:
                    env.reset(task_id=task.id)
                    results = [env.step(call.model_dump())[0]["type"] for call in attempt.calls]
                    if any(results[i] != "tool_result" for i in attempt.required):
                        continue
                    if attempt.unless_gold_state and fingerprint(env._session.conn, env.schema) == gold:
                        continue
                    tried += 1
                    assert env.step({"answer": attempt.answer})[1] == 0.0, (task.id, name, attempt)
    assert tried > len(env.tasks)


def _state(env: Any, solution: Any) -> tuple[Any, ...]:
    from pipeline.runtime.session import Session
    from pipeline.tasks.proof import fingerprint, replay

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
        (lambda p: (p / "extra.txt").write_text("x"), "not in the manifest: 'extra.txt'"),
        (lambda p: _edit_manifest_files(p), "file list was modified"),
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
        [
            sys.executable,
            "-m",
            "pipeline.cli.main",
            "generate",
            "--domain",
            "clinic_appointments",
            "--seed",
            "3",
            "--out",
            str(out),
            "--no-prefect",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
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
    from pipeline.jobs.steps import Inputs, generate

    other = generate(Inputs(domain="online_store", seed=8), tmp_path / "o", tmp_path / "w")
    assert other["digest"] != load_bundle(bundles["online_store"]).digest
