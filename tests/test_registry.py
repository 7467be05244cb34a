"""The registry: publish, list, pull and gc over fsspec; immutability, atomicity, concurrency."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.bundle.format import (
    MANIFEST,
    load_bundle,
    read_run_record,
    write_bundle,
    write_run_record,
)
from pipeline.bundle.versions import bump, latest, parse_version
from pipeline.registry.registry import Ref, Registry, RegistryError

ROOT = Path(__file__).resolve().parent.parent


def _variant(source: Path, dest: Path, note: str) -> Path:
    """A valid bundle with the same name and version as ``source`` but other content."""
    target = dest / source.name
    shutil.copytree(source, target)
    report = target / "report.html"
    report.write_text(report.read_text(encoding="utf-8") + f"<!-- {note} -->\n", encoding="utf-8")
    manifest = json.loads((target / MANIFEST).read_text(encoding="utf-8"))
    write_bundle(target, {k: v for k, v in manifest.items() if k not in ("format", "files", "digest")})
    return target


@pytest.fixture
def bundle(store_bundle: Path, tmp_path: Path) -> Path:
    """A private copy of the session's online_store bundle (tests may leave sidecars beside it)."""
    target = tmp_path / "src" / store_bundle.parent.name / store_bundle.name
    shutil.copytree(store_bundle, target)
    return target


@pytest.fixture
def registry(tmp_path: Path) -> Registry:
    return Registry(tmp_path / "registry")


def test_refs_parse_and_reject() -> None:
    assert Ref.parse("store") == Ref("store")
    assert Ref.parse("store@latest") == Ref("store")
    assert Ref.parse("store@1.2.0") == Ref("store", version="1.2.0")
    digest = "sha256:" + "ab" * 32
    assert Ref.parse(f"store@{digest}") == Ref("store", digest=digest)
    for bad in ("Store", "store@1.2", "store@sha256:abc", "store@v1.0.0", "@1.0.0", "a/b"):
        with pytest.raises(RegistryError):
            Ref.parse(bad)


def test_versions_order_and_bump() -> None:
    assert latest(["1.10.0", "1.9.3", "0.20.1"]) == "1.10.0"
    assert latest([]) is None
    assert bump("1.2.3", "major") == "2.0.0" and bump("1.2.3", "minor") == "1.3.0" and bump("1.2.3", "patch") == "1.2.4"
    for bad in ("1.2", "01.2.3", "1.2.3-rc1"):
        with pytest.raises(ValueError):
            parse_version(bad)
    with pytest.raises(ValueError):
        bump("1.0.0", "micro")


def test_publish_list_pull_round_trip(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    from pipeline import Environment, pull

    result = registry.publish(bundle)
    source = load_bundle(bundle)
    assert result.created and not result.restamped
    assert result.entry.ref == source.ref and result.entry.digest == source.digest
    assert [e.ref for e in registry.entries()] == [source.ref]
    for ref in (source.name, f"{source.name}@latest", source.ref, f"{source.name}@{source.digest}"):
        assert registry.resolve(ref).digest == source.digest
    path = pull(source.name, registry=registry.url, to=tmp_path / "pulled")
    assert path == tmp_path / "pulled" / source.name / source.version
    for name in [MANIFEST, *source.manifest.files]:
        assert (path / name).read_bytes() == (bundle / name).read_bytes(), name
    env = Environment.from_bundle(path)
    obs, info = env.reset(seed=0)
    assert info["digest"] == source.digest and obs["instruction"]
    env.close()
    # Pulling again reuses the verified directory.
    assert registry.pull(source.ref, to=tmp_path / "pulled") == path


def test_same_content_again_is_a_no_op(bundle: Path, registry: Registry) -> None:
    first = registry.publish(bundle)
    entry_file = Path(registry.store.path("refs", first.entry.name, f"{first.entry.version}.json"))
    before = entry_file.read_bytes()
    again = registry.publish(bundle)
    assert not again.created and again.entry == first.entry
    assert entry_file.read_bytes() == before


def test_other_content_under_a_published_version_is_refused(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    registry.publish(bundle)
    other = _variant(bundle, tmp_path / "variant", "edited")
    assert load_bundle(other).ref == load_bundle(bundle).ref
    with pytest.raises(RegistryError, match="immutable"):
        registry.publish(other)
    assert registry.resolve(load_bundle(bundle).ref).digest == load_bundle(bundle).digest


def test_refuses_a_tampered_bundle(bundle: Path, registry: Registry) -> None:
    (bundle / "tasks.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(RegistryError, match="modified"):
        registry.publish(bundle)
    assert registry.entries() == []


@pytest.mark.slow
def test_publishing_under_another_version_equals_generating_it(
    bundle: Path, registry: Registry, tmp_path: Path
) -> None:
    """The version is content: re-versioning re-packages, byte for byte what generate --version writes."""
    from pipeline.jobs.steps import Inputs, generate

    source = load_bundle(bundle)
    result = registry.publish(bundle, version="1.1.0")
    assert result.created and result.restamped and result.entry.version == "1.1.0"
    assert result.entry.digest != source.digest
    pulled = load_bundle(registry.pull(f"{source.name}@1.1.0", to=tmp_path / "pulled"))
    assert pulled.manifest.version == "1.1.0"
    assert pulled.read_json("openapi.json")["info"]["version"] == "1.1.0"
    assert pulled.manifest.lineage == source.manifest.lineage
    lineage_inputs = source.manifest.as_tool_use().lineage.inputs
    fresh = generate(
        Inputs(domain=lineage_inputs.domain, seed=lineage_inputs.seed, version="1.1.0"),
        tmp_path / "fresh",
        tmp_path / "work",
    )
    assert fresh["digest"] == pulled.digest
    assert (Path(fresh["path"]) / MANIFEST).read_bytes() == (pulled.path / MANIFEST).read_bytes()


@pytest.mark.slow
def test_bump_publishes_new_content_as_the_next_version(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    registry.publish(bundle)
    unchanged = registry.publish(bundle, bump="minor")
    assert not unchanged.created and unchanged.entry.version == "1.0.0", "the latest already has this content"
    changed = _variant(bundle, tmp_path / "variant", "regenerated")
    bumped = registry.publish(changed, bump="minor")
    assert bumped.created and bumped.restamped and bumped.entry.version == "1.1.0"
    again = registry.publish(changed, bump="minor")
    assert not again.created and again.entry.version == "1.1.0"
    assert [e.version for e in registry.entries()] == ["1.0.0", "1.1.0"]
    assert registry.resolve(f"{bumped.entry.name}@latest").version == "1.1.0"


def test_run_record_goes_to_the_index_not_the_bundle(bundle: Path, registry: Registry) -> None:
    digest_before = load_bundle(bundle).digest
    manifest_before = (bundle / MANIFEST).read_bytes()
    write_run_record(bundle, {"flow_run_id": "3f1c-run", "flow": "generate_environment"})
    assert read_run_record(bundle)["flow_run_id"] == "3f1c-run"
    assert load_bundle(bundle).digest == digest_before and (bundle / MANIFEST).read_bytes() == manifest_before
    entry = registry.publish(bundle).entry
    assert entry.run == {"flow_run_id": "3f1c-run", "flow": "generate_environment"}
    assert entry.published_at.endswith("+00:00")


def test_lineage_records_inputs_and_parent(store_bundle: Path) -> None:
    from pipeline import __version__
    from pipeline.jobs.steps import Inputs

    lineage = load_bundle(store_bundle).manifest.as_tool_use().lineage
    assert lineage.generator_version == __version__
    assert lineage.inputs.domain == "online_store" and lineage.inputs.seed == 7
    assert {"scale", "tasks_per_family", "clock"} <= lineage.inputs.model_fields_set and lineage.parent is None
    assert Inputs(domain="online_store", parent="online-store-s7@1.0.0").parent == "online-store-s7@1.0.0"
    with pytest.raises(ValueError, match="parent"):
        Inputs(domain="online_store", parent="latest")


def test_pull_errors_name_what_exists(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    with pytest.raises(RegistryError, match="empty"):
        registry.resolve("nothing")
    registry.publish(bundle)
    name = load_bundle(bundle).name
    with pytest.raises(RegistryError, match=name):
        registry.resolve("nothing")
    with pytest.raises(RegistryError, match=r"versions: 1\.0\.0"):
        registry.resolve(f"{name}@9.9.9")
    with pytest.raises(RegistryError, match="no version"):
        registry.resolve(f"{name}@sha256:{'0' * 64}")


def test_pull_verifies_every_blob(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    entry = registry.publish(bundle).entry
    state_sha = load_bundle(bundle).manifest.files["state.sqlite"]
    blob = Path(registry.store.path("blobs", "sha256", state_sha))
    blob.write_bytes(blob.read_bytes()[:-1] + b"\x00")
    with pytest.raises(RegistryError, match="corrupt"):
        registry.pull(entry.ref, to=tmp_path / "pulled")
    assert not (tmp_path / "pulled" / entry.name / entry.version).exists()
    assert not list((tmp_path / "pulled" / entry.name).iterdir()), "no partial pull left behind"


def test_pull_refuses_to_overwrite_other_content(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    entry = registry.publish(bundle).entry
    dest = tmp_path / "pulled" / entry.name
    _variant(bundle, dest.parent / "x", "local edit").rename(dest.parent / "tmp")
    dest.mkdir(parents=True)
    (dest.parent / "tmp").rename(dest / entry.version)
    with pytest.raises(RegistryError, match="already holds"):
        registry.pull(entry.ref, to=tmp_path / "pulled")


@pytest.mark.parametrize("scheme", ["file", "memory"])
def test_any_fsspec_url_works_the_same(bundle: Path, tmp_path: Path, scheme: str) -> None:
    url = f"file://{tmp_path / 'reg'}" if scheme == "file" else f"memory://synthenv-test-{os.getpid()}-{time.time_ns()}"
    reg = Registry(url)
    entry = reg.publish(bundle).entry
    assert not reg.publish(bundle).created
    assert [e.ref for e in reg.entries()] == [entry.ref]
    path = reg.pull(entry.ref, to=tmp_path / "pulled")
    assert load_bundle(path).digest == entry.digest
    with pytest.raises(RegistryError, match="immutable"):
        reg.publish(_variant(bundle, tmp_path / "variant", "x"))
    assert reg.gc(grace_seconds=0).removed == []


def test_gc_removes_only_unreferenced_blobs(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    entry = registry.publish(bundle).entry
    orphan = Path(registry.store.path("blobs", "sha256", "f" * 64))
    orphan.write_bytes(b"left by a killed publish")
    assert registry.gc().spared_recent == 1, "young blobs are spared (a publish may be in flight)"
    dry = registry.gc(grace_seconds=0, dry_run=True)
    assert dry.removed == ["sha256:" + "f" * 64] and orphan.exists()
    report = registry.gc(grace_seconds=0)
    assert report.removed == ["sha256:" + "f" * 64] and report.freed_bytes == 24 and not orphan.exists()
    assert report.kept == len(load_bundle(bundle).manifest.files) + 1
    assert load_bundle(registry.pull(entry.ref, to=tmp_path / "pulled")).digest == entry.digest


_KILLED_PUBLISH = textwrap.dedent("""
    import os, signal, sys
    from pipeline.registry import store as registry_store
    original, calls = registry_store.Store.put_blob, []
    def put_then_die(self, source, target):
        original(self, source, target)
        calls.append(target)
        if len(calls) == int(sys.argv[3]):
            os.kill(os.getpid(), signal.SIGKILL)
    registry_store.Store.put_blob = put_then_die
    from pipeline.registry.registry import Registry
    Registry(sys.argv[2]).publish(sys.argv[1])
""")


def test_a_killed_publish_leaves_nothing_visible(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _KILLED_PUBLISH, str(bundle), registry.url, "3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -9, proc.stderr
    assert len(list(Path(registry.store.path("blobs", "sha256")).iterdir())) == 3
    assert registry.entries() == []
    with pytest.raises(RegistryError, match="empty"):
        registry.pull(load_bundle(bundle).name, to=tmp_path / "pulled")
    assert len(registry.gc(grace_seconds=0).removed) == 3
    assert registry.publish(bundle).created


_CONCURRENT_PUBLISH = textwrap.dedent("""
    import json, os, sys, time
    from pipeline.registry.registry import Registry, RegistryError
    bundle, url, version, go = sys.argv[1:5]
    while not os.path.exists(go):
        time.sleep(0.005)
    try:
        r = Registry(url).publish(bundle, version=version or None)
        print(json.dumps({"ok": True, "created": r.created, "digest": r.entry.digest, "version": r.entry.version}))
    except RegistryError as exc:
        print(json.dumps({"ok": False, "error": str(exc)}))
""")


def test_concurrent_publishers_cannot_corrupt_the_index(bundle: Path, registry: Registry, tmp_path: Path) -> None:
    """Six processes race: two contents for one version, the same content twice, and a second version."""
    other = _variant(bundle, tmp_path / "variant", "contender")
    go = tmp_path / "go"
    jobs = [(bundle, ""), (bundle, ""), (other, ""), (other, ""), (bundle, "2.0.0"), (bundle, "2.0.0")]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CONCURRENT_PUBLISH, str(path), registry.url, version, str(go)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path, version in jobs
    ]
    time.sleep(2.0)  # let every interpreter start and wait at the line
    go.touch()
    results = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=180)
        assert p.returncode == 0, stderr
        results.append(json.loads(stdout.strip().splitlines()[-1]))
    first = [r for r in results[:4] if r["ok"]]
    winner = first[0]["digest"]
    assert all(r["digest"] == winner for r in first)
    assert sum(r["created"] for r in first) == 1, results
    assert all("immutable" in r["error"] for r in results[:4] if not r["ok"])
    assert len(first) == 2, "both publishers of the winning content succeed (one creates, one is a no-op)"
    assert sum(r["created"] for r in results[4:]) == 1 and all(r["ok"] for r in results[4:])
    entries = registry.entries()
    assert [e.version for e in entries] == ["1.0.0", "2.0.0"]
    assert registry.resolve(f"{entries[0].name}@1.0.0").digest == winner
    for e in entries:
        assert load_bundle(registry.pull(e.ref, to=tmp_path / "pulled")).digest == e.digest
    assert not list(Path(registry.store.path(".staging")).iterdir())


def test_cli_publish_list_pull_gc(bundle: Path, tmp_path: Path) -> None:
    from pipeline.cli.main import app

    runner = CliRunner()
    reg = str(tmp_path / "registry")
    published = runner.invoke(app, ["publish", str(bundle), "--registry", reg, "--json"])
    assert published.exit_code == 0, published.output
    entry = json.loads(published.stdout)
    assert entry["created"] is True
    again = runner.invoke(app, ["publish", str(bundle), "--registry", reg])
    assert again.exit_code == 0 and "already published" in again.stdout
    listed = runner.invoke(app, ["list", "--registry", reg, "--json"])
    assert [e["digest"] for e in json.loads(listed.stdout)] == [entry["digest"]]
    pulled = runner.invoke(
        app, ["pull", f"{entry['name']}@{entry['digest']}", "--registry", reg, "--to", str(tmp_path / "p"), "--json"]
    )
    assert pulled.exit_code == 0, pulled.output
    assert load_bundle(json.loads(pulled.stdout)["path"]).digest == entry["digest"]
    missing = runner.invoke(app, ["pull", "nope@1.0.0", "--registry", reg])
    assert missing.exit_code == 3 and "no bundle named 'nope'" in missing.output  # not_found, as in info
    both = runner.invoke(app, ["publish", str(bundle), "--registry", reg, "--version", "1.0.0", "--bump", "minor"])
    assert both.exit_code == 2
    collected = runner.invoke(app, ["gc", "--registry", reg, "--grace", "0", "--json"])
    assert collected.exit_code == 0 and json.loads(collected.stdout)["removed"] == []
