"""The command line starts without its heavy dependencies.

``synthenv --help`` and ``synthenv domains`` must not pay for Prefect, the web stack,
SQLAlchemy, DuckDB or litellm (each hundreds of milliseconds to import): those are imported
inside the commands that use them. Checked on what a fresh interpreter has imported, not
on a timing (``benchmarks/startup_bench.py`` measures that).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("prefect", "fastapi", "starlette", "uvicorn", "sqlalchemy", "duckdb", "litellm", "numpy", "jsonschema_rs")

PROBE = """
import contextlib, io, json, sys
exec(sys.argv[2])
sys.argv = ["synthenv", *json.loads(sys.argv[1])]
from pipeline.cli.main import main
buffer = io.StringIO()
with contextlib.redirect_stdout(buffer):
    try:
        main()
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "stdout": buffer.getvalue(), "modules": sorted(sys.modules)}))
"""


def run_cli(args: list[str], cache: Path, before: str = "") -> tuple[int, str, set[str]]:
    """Exit code, stdout and every imported module name of ``synthenv ARGS`` in a fresh interpreter
    (``before``: code run first, such as an import the check must see through)."""
    env = {**os.environ, "SYNTHENV_CACHE_DIR": str(cache), "COLUMNS": "100", "TERMINAL_WIDTH": "100"}
    run = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), before],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    )
    result = json.loads(run.stdout.strip().splitlines()[-1])
    return int(result["code"] or 0), result["stdout"], set(result["modules"])


def _imported(args: list[str], cache: Path, before: str = "") -> tuple[int, set[str]]:
    """The exit code of ``synthenv ARGS`` in a fresh interpreter and the top-level modules it imported."""
    code, _, modules = run_cli(args, cache, before)
    return code, {m.split(".")[0] for m in modules}


@pytest.mark.parametrize("args", [["--help"], ["domains"], ["domains", "--json"], ["generate", "--help"]])
def test_the_cli_starts_without_heavy_modules(args: list[str], tmp_path: Path) -> None:
    _imported(["domains"], tmp_path)  # the catalog index cached, as after a first call
    code, modules = _imported(args, tmp_path)
    assert code == 0
    assert "pipeline" in modules  # the probe did import the command line
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))


def test_the_probe_sees_a_heavy_import(tmp_path: Path) -> None:
    """The check can fail: a heavy module imported on the way is seen."""
    code, modules = _imported(["--help"], tmp_path, before="import sqlalchemy")
    assert code == 0 and "sqlalchemy" in modules
