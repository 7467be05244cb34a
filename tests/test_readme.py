"""README's two commands are the ones CI and users run; keep them in step with .ci/run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bash_blocks(text: str) -> list[str]:
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_the_readme_test_command() -> None:
    blocks = _bash_blocks((ROOT / "README.md").read_text())
    setup, tests = blocks[0], blocks[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci.splitlines()
    assert "synthenv generate" in setup and "pip install -e '.[all]'" in setup
    assert ".venv/bin/pip install -q -e '.[all]'" in ci


def test_layout_is_the_design_cards() -> None:
    for name in ("pyproject.toml", "pipeline", "generators", "templates", "artifacts", "tests", "flows"):
        assert (ROOT / name).exists(), name
    ignored = (ROOT / ".gitignore").read_text()
    assert "/artifacts/*" in ignored


def test_every_file_the_pipeline_readme_names_exists() -> None:
    """pipeline/README.md names the one place each contract lives: a moved file must move the line too."""
    text = (ROOT / "pipeline" / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\b((?:[a-z_]+/)+[a-z_]+\.py)\b", text))
    assert {"bundle/manifest.py", "runtime/task.py", "runtime/verify.py", "jobs/recipe.py"} <= named
    missing = sorted(p for p in named if not (ROOT / "pipeline" / p).is_file() and not (ROOT / p).is_file())
    assert not missing, missing
