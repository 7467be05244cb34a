"""Helpers of the LLM tests (a module, not the conftest, so test files can import it by name)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def fake_settings(url: str, cache: Path, **overrides: Any) -> Any:
    from pipeline.llm.client import LLMSettings

    values = {
        "model": "openai/gpt-4o-mini",
        "base_url": url,
        "cache_dir": str(cache),
        "backoff": 0.01,
        "max_backoff": 0.05,
        "timeout": 20.0,
        **overrides,
    }
    return LLMSettings(**values)
