"""A state over 2 GiB loads, serves, resets, verifies and proves.

SQLite caps a database loaded with ``deserialize`` (and any ``memdb`` database) at 1 GiB and
cannot serialise one of 2 GiB, so states over ``IMAGE_LIMIT`` stay files
(:class:`pipeline.bundle.format.StateFile`). The fixture grows the test bundle's ``reviews``
table to about 2.2 GB (rows copied under new ids with a padded headline: valid values, the
same schema, the manifest resealed); the fast tests at the end run the file path on a small
state by lowering the limit.
"""

from __future__ import annotations

import copy
import gc
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pipeline.bundle.format import StateFile, load_bundle, pretty_json, seal_manifest, serialise, sha256_file
from pipeline.runtime.environment import Environment
from pipeline.server.http import create_app
from pipeline.tasks.proof import prove
from pipeline.tools.executor import open_copy

TARGET_BYTES = 2_200_000_000
"""Over 2 GiB: past both SQLite's memdb cap (1 GiB) and what ``serialize`` can hand back."""
PAD = 1000
FAR = 10**6
"""A review id among the copies."""
TOKEN = "trainer-secret-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def grow(bundle: Path, out: Path, target: int = TARGET_BYTES) -> Path:
    """A copy of ``bundle`` whose ``reviews`` table holds enough padded copies of its rows to pass ``target`` bytes."""
    copy = out / "big"
    shutil.copytree(bundle, copy)
    state = copy / "state.sqlite"
    conn = sqlite3.connect(state, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    top, count = conn.execute("SELECT max(id), count(*) FROM reviews").fetchone()
    assert top == count, "review ids are 1..n"
    rows = target // 1400  # a padded row and its share of the table's pages and index
    conn.execute("BEGIN")
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
        "INSERT INTO reviews (id, product_id, customer_id, headline, rating, written_at) "
        "SELECT ? + n.i, r.product_id, r.customer_id, r.headline || ' ' || printf('%.*c', ?, 'x'), "
        "r.rating, r.written_at FROM n JOIN reviews r ON r.id = 1 + (n.i % ?)",
        (rows, top, PAD, count),
    )
    conn.execute("COMMIT")
    conn.close()
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["state.sqlite"] = sha256_file(state)
    manifest["sizes"]["state.sqlite"] = state.stat().st_size
    (copy / "manifest.json").write_text(pretty_json(seal_manifest(manifest)), encoding="utf-8")
    return copy


@pytest.fixture(scope="module")
def big_bundle(store_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("large-state")
    try:
        yield grow(store_bundle, out)
    finally:
        shutil.rmtree(out, ignore_errors=True)


@pytest.fixture(scope="module")
def big_env(big_bundle: Path) -> Iterator[Environment]:
    env = Environment.from_bundle(big_bundle)
    yield env
    env.close()


@pytest.mark.slow
def test_a_state_over_2_gib_loads_resets_steps_and_verifies(big_bundle: Path, big_env: Environment) -> None:
    size = (big_bundle / "state.sqlite").stat().st_size
    assert size > 2**31
    image = sqlite3.connect(f"{(big_bundle / 'state.sqlite').as_uri()}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError):  # what the in-memory image path would hit
        image.serialize()
    image.close()
    env = big_env
    assert isinstance(env._initial, StateFile)
    env.reset(seed=0)
    far = env.step({"tool": "get_review", "arguments": {"id": FAR}})
    assert far[0]["type"] == "tool_result" and far[0]["result"]["headline"].endswith("x" * 20)
    passed = 0
    for task in [t for t in env.tasks if t.verifier.changes][:5]:
        env.reset(task_id=task.id)
        for call in task.solution:
            assert env.step(call.model_dump())[0]["type"] == "tool_result"
        verdict = env.verify(task.answer)
        assert verdict["status"] in ("passed", "failed"), verdict  # never an error: the diff ran
        passed += verdict["status"] == "passed"
        env.reset(task_id=task.id)
        assert env._session is not None and env._session.touched() == {}
        assert env.verify(task.answer)["status"] == "failed"
    assert passed >= 1
    # Sessions read the file through the OS page cache and keep only what they wrote: the state
    # is never copied into the process (the resident set grows by far less than its size).
    gc.collect()
    rss = _rss_mb()
    forks = [copy.copy(env) for _ in range(20)]
    for i, fork in enumerate(forks):
        fork.reset(seed=i)
        fork.step({"tool": "get_review", "arguments": {"id": FAR - i}})
    assert _rss_mb() - rss < 200
    for fork in forks:
        fork.close()


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_state_over_2_gib_is_served(big_bundle: Path, big_env: Environment) -> None:
    app = create_app(big_bundle, max_sessions=4, session_ttl=600, trainer_token=TOKEN)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as c:
        r = await c.post("/trainer/sessions", json={"seed": 1}, headers=AUTH)
        assert r.status_code == 201, r.text
        sid = r.json()["session_id"]
        r = await c.post("/tools/get_review", json={"id": FAR}, headers={"X-Session-Id": sid})
        assert r.status_code == 200 and r.json()["id"] == FAR
        r = await c.post(f"/trainer/sessions/{sid}/verify", json={"answer": None}, headers=AUTH)
        assert r.status_code == 200 and r.json()["status"] in ("passed", "failed")
        assert (await c.post(f"/trainer/sessions/{sid}/reset", json={}, headers=AUTH)).status_code == 200
        assert (await c.delete(f"/trainer/sessions/{sid}", headers=AUTH)).status_code == 204


@pytest.mark.slow
def test_a_task_is_proven_on_a_state_over_2_gib(big_bundle: Path, big_env: Environment) -> None:
    initial = load_bundle(big_bundle, verify=False).state_bytes
    assert isinstance(initial, StateFile)
    task = next(t for t in big_env.tasks if t.verifier.changes)
    reason, run = prove(task, initial, big_env.executor)
    assert reason is None and run is not None and run.gold == 1.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# The same file path on a small state, fast: the limit lowered so every state stays a file.


@pytest.fixture
def file_states(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pipeline.bundle.format.IMAGE_LIMIT", 0)


def test_a_state_over_the_limit_is_a_file_handle(store_bundle: Path, file_states: None) -> None:
    state = serialise(store_bundle / "state.sqlite")
    assert isinstance(state, StateFile) and state == StateFile(store_bundle / "state.sqlite")
    conn = open_copy(state)
    try:
        conn.execute("DELETE FROM reviews")  # a private copy: the file is untouched
        assert conn.execute("SELECT count(*) FROM reviews").fetchone()[0] == 0
    finally:
        conn.close()
    fresh = open_copy(state)
    try:
        assert fresh.execute("SELECT count(*) FROM reviews").fetchone()[0] > 0
    finally:
        fresh.close()


def test_a_changed_state_file_is_refused(tmp_path: Path, store_bundle: Path) -> None:
    path = tmp_path / "state.sqlite"
    shutil.copyfile(store_bundle / "state.sqlite", path)
    state = StateFile(path)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM reviews")
    conn.commit()
    conn.close()
    with pytest.raises(Exception, match="changed while in use"):
        open_copy(state)


def test_file_backed_sessions_are_isolated_and_reset_by_rollback(
    store_bundle: Path, tmp_path: Path, file_states: None
) -> None:
    copy = tmp_path / "bundle"
    shutil.copytree(store_bundle, copy)  # another path: not the parsed bundle other tests share
    a, b = Environment.from_bundle(copy), Environment.from_bundle(copy)
    assert isinstance(a._initial, StateFile)
    task = next(t for t in a.tasks if t.verifier.changes)
    a.reset(task_id=task.id)
    b.reset(task_id=task.id)
    for call in task.solution:
        a.step(call.model_dump())
    assert a._session is not None and b._session is not None
    assert a._session.touched() and not b._session.touched()
    assert a.verify(task.answer)["status"] == "passed"
    assert b.verify(task.answer)["status"] == "failed"
    a.reset(task_id=task.id)
    assert a.verify(task.answer)["status"] == "failed"
    base = a._session._prepared.base_file
    assert base.exists() and (copy / "state.sqlite").read_bytes() == (store_bundle / "state.sqlite").read_bytes()
    a.close()
    b.close()
    del a, b
    gc.collect()
    assert not base.exists()  # removed with the last Environment of its bundle


def test_a_base_left_by_a_gone_process_is_swept(store_bundle: Path, tmp_path: Path, file_states: None) -> None:
    """A process that ends without finalizers (a worker's ``os._exit``) leaves its base file; the
    next base made on this host removes it, and never one of a process still running."""
    from pipeline.runtime.session import _base_prefix

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    stale = Path(tempfile.gettempdir()) / f"{_base_prefix()}{int(gone.stdout)}-left.sqlite"
    live = Path(tempfile.gettempdir()) / f"{_base_prefix()}{os.getpid()}-mine.sqlite"
    stale.write_bytes(b"")
    live.write_bytes(b"")
    try:
        copy = tmp_path / "bundle"
        shutil.copytree(store_bundle, copy)
        env = Environment.from_bundle(copy)
        env.reset(seed=0)  # the first shared session makes the base
        assert not stale.exists() and live.exists()
        env.close()
    finally:
        stale.unlink(missing_ok=True)
        live.unlink(missing_ok=True)
