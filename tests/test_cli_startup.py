"""``synthenv --help`` and ``synthenv domains`` import neither pydantic nor rich's markdown and
traceback modules, and the help they print is the one typer renders with rich.

typer 0.29 builds a pydantic converter even for the ``--help`` flag's unset value and its help
renderer imports rich's markdown (markdown-it, pygments) and traceback modules at load;
``pipeline/cli/startup.py`` avoids both, falling back to typer's own path if typer changes.
Checked on what a fresh interpreter has imported and on the text printed, not on a timing
(``benchmarks/startup_bench.py`` measures that).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_startup import run_cli as _run

SLOW = ("pydantic", "pydantic_core", "rich.markdown", "rich.traceback", "rich.syntax", "markdown_it", "pygments")


def _slow(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m in SLOW or m.split(".")[0] in SLOW)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["domains"],
        ["domains", "--json"],
        ["domains", "--help"],
        ["serve", "--help"],  # a command another module registers
        ["prefect", "start", "--help"],  # a command of an added typer app
    ],
)
def test_help_and_domains_import_no_pydantic_and_no_markdown(args: list[str], tmp_path: Path) -> None:
    _run(["domains", "--json"], tmp_path)  # the catalog index cached, as after a first call
    code, stdout, modules = _run(args, tmp_path)
    assert code == 0
    assert stdout.strip()
    assert not _slow(modules), _slow(modules)


def test_domains_json_imports_no_rich(tmp_path: Path) -> None:
    """The consoles are made on first use: a command that prints only JSON never imports rich."""
    code, stdout, modules = _run(["domains", "--json"], tmp_path)
    assert code == 0
    assert {row["name"] for row in json.loads(stdout)} >= {"online_store"}
    assert not {m for m in modules if m.split(".")[0] == "rich"}


def test_the_probe_sees_a_slow_import(tmp_path: Path) -> None:
    """The check can fail: pydantic imported on the way is seen."""
    code, _, modules = _run(["--help"], tmp_path, before="import pydantic")
    assert code == 0 and "pydantic" in _slow(modules)


@pytest.mark.parametrize(
    "args",
    [["--help"], ["domains", "--help"], ["generate", "--help"], ["prefect", "--help"], ["prefect", "start", "--help"]],
)
def test_the_help_is_typers_rich_help_unchanged(args: list[str], tmp_path: Path) -> None:
    """The same text as with rich's markdown and traceback modules loaded first (typer's own import)."""
    code, fast, modules = _run(args, tmp_path)
    assert code == 0 and "typer.rich_utils" in modules
    assert "╭─ Options" in fast and "Usage: synthenv" in fast
    code, ordinary, modules = _run(args, tmp_path, before="import rich.markdown, rich.traceback")
    assert code == 0 and "rich.markdown" in modules
    assert fast == ordinary


STAND_INS = """
import sys
from pipeline.cli import startup
exec(sys.argv[1])
startup.import_rich_help()
import rich.markdown, rich.traceback, typer.rich_utils as ru
assert ru.Markdown("**x**").__class__ is rich.markdown.Markdown
try:
    raise ValueError("boom")
except ValueError as exc:
    tb = ru.Traceback.from_exception(type(exc), exc, exc.__traceback__)
assert isinstance(tb, rich.traceback.Traceback)
assert sys.modules["rich.markdown"] is rich.markdown and hasattr(rich.markdown, "Heading")
print("ok")
"""


@pytest.mark.parametrize(
    "before",
    [
        "",
        # typer needing a name the stand-ins do not have: the ordinary import instead
        "startup._DEFERRED = {'rich.markdown': 'Heading', 'rich.traceback': 'Frame'}",
    ],
)
def test_the_stand_ins_become_the_real_classes(before: str) -> None:
    run = subprocess.run(
        [sys.executable, "-c", STAND_INS, before], capture_output=True, text=True, check=False, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_markdown_help_still_renders_through_the_real_markdown() -> None:
    """A typer app in markdown mode on these classes renders its markdown (the deferred class is used)."""
    code = """
import typer
from typer.testing import CliRunner
from pipeline.cli.startup import Command, Group
app = typer.Typer(cls=Group, rich_markup_mode="markdown")
@app.command(cls=Command)
def hello(name: str = typer.Option("x", help="**who** to greet")) -> None:
    '''Say *hello*.'''
@app.command(cls=Command)
def other() -> None:
    pass
result = CliRunner().invoke(app, ["hello", "--help"], env={"COLUMNS": "100"})
assert result.exit_code == 0, result.output
assert "who to greet" in result.output and "**" not in result.output, result.output
print("ok")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_pass_through_leaves_an_unknown_option_alone() -> None:
    """Should typer drop the attributes relied on, the option is returned as it is (typer's slow path)."""
    from pipeline.cli.startup import _pass_through

    class Option:
        pass

    option = Option()
    assert _pass_through(option) is option
    assert not hasattr(option, "_runtime_param")
