"""Bundle and registry text reaching HTML or a terminal: it must arrive as text, never as markup."""

from __future__ import annotations

from pathlib import Path

import pytest
from craft import read_manifest, seal
from typer.testing import CliRunner

from pipeline.bundle.manifest import manifest_from
from pipeline.cli.main import app
from pipeline.package.report.page import report_html
from pipeline.runtime.task import Task
from pipeline.world.schema import Schema

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"


def test_report_html_escapes_every_manifest_value(store_bundle: Path) -> None:
    # Every text field a page shows (the seed is an int: the model refuses any other value).
    hostile = manifest_from(read_manifest(store_bundle)).with_changes(
        title=SCRIPT, description=IMG, frozen_clock=SCRIPT, domain=SCRIPT
    )
    schema = Schema.model_validate_json((store_bundle / "schema.json").read_text())
    tasks = [Task.model_validate_json(line) for line in (store_bundle / "tasks.jsonl").read_text().splitlines()]
    page = report_html(hostile.as_tool_use(), schema, store_bundle / "state.sqlite", tasks)
    assert SCRIPT not in page and IMG not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


MARKUP = "[bold red]PWNED[/bold red][link=http://evil.example]click[/link]"
ANSI = "\x1b[2J\x1b]0;owned\x07"


def test_info_prints_bundle_text_literally(bundle_copy: Path) -> None:
    manifest = read_manifest(bundle_copy)
    knobs = {**manifest["knobs"], "note": MARKUP}  # an unknown field is kept (a newer synthenv may add one)
    seal(bundle_copy, {**manifest, "domain": MARKUP + ANSI, "knobs": knobs}, rehash=False)
    result = CliRunner().invoke(app, ["info", str(bundle_copy)], color=True)
    assert result.exit_code == 0, result.output
    assert "[bold red]PWNED[/bold red]" in result.output
    assert "\x1b[2J" not in result.output and "\x1b]0;" not in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["pull", "x[/]"],
        ["pull", "x[bold]" + ANSI],
        ["info", "/nonexistent/[red]x[/red]"],
        ["check", "/nonexistent/[/]"],
    ],
)
def test_error_messages_print_hostile_text_literally(args: list[str], tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [*args, *(["--registry", str(tmp_path)] if args[0] == "pull" else [])], color=True)
    assert result.exit_code in (2, 3), result.output  # usage (a bad reference) or not_found
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "\x1b]0;" not in result.output and "\x1b[2J" not in result.output
    assert "error" in result.output
