"""Fixtures of the LLM tests: the florist blueprint a scripted model answers with."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))  # fakellm and llm_helpers, test helpers beside this file


@pytest.fixture
def florist() -> dict[str, Any]:
    return json.loads((HERE / "florist.json").read_text(encoding="utf-8"))


@pytest.fixture
def florist_text() -> str:
    return (HERE / "florist.json").read_text(encoding="utf-8")
