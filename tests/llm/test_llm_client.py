"""The client through litellm's own ``mock_response`` (the real call path, no network), and the cache."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pipeline.llm.blueprint import draft_blueprint, messages
from pipeline.llm.cache import request_key
from pipeline.llm.client import Client, LLMSettings, OfflineMiss, ProviderError
from pipeline.llm.scenario import parse_scenario
from pipeline.llm.usage import Ledger

needs_litellm = pytest.mark.skipif(
    importlib.util.find_spec("litellm") is None, reason="the 'llm' extra (litellm) is not installed"
)
MODEL = "openai/gpt-4o-mini"
ASK = [{"role": "user", "content": "Say hi as JSON"}]


def test_settings_refuse_what_cannot_work(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="model"):
        LLMSettings(model="gpt 4o")
    with pytest.raises(ValueError, match="base URL"):
        LLMSettings(model=MODEL, base_url="file:///etc/passwd")
    with pytest.raises(ValueError, match="cache directory"):
        LLMSettings(model=MODEL, offline=True)
    with pytest.raises(ValueError, match="concurrency"):
        LLMSettings(model=MODEL, concurrency=0)


def test_offline_answers_from_the_cache_or_refuses(tmp_path: Path) -> None:
    """No litellm needed: a cache hit never imports it, a miss is refused before any request."""
    settings = LLMSettings(model=MODEL, cache_dir=str(tmp_path), offline=True)
    with pytest.raises(OfflineMiss, match="no cached reply for the demo request"):
        Client(settings).complete("demo", ASK, Ledger())
    from pipeline.llm.cache import Entry, ResponseCache

    params = settings.params(json_reply=True)
    key = request_key(MODEL, ASK, params)
    ResponseCache(tmp_path).put(MODEL, ASK, params, Entry(key, '{"hi": 1}', 7, 3, 0.25))
    ledger = Ledger()
    reply = Client(settings).complete("demo", ASK, ledger)
    assert (reply.text, reply.cached, reply.key) == ('{"hi": 1}', True, key)
    assert ledger.summary()["steps"]["demo"] == {
        "calls": 1,
        "cached": 1,
        "attempts": 0,
        "prompt_tokens": 7,
        "completion_tokens": 3,
        "cost_usd": 0.0,
        "cost_usd_cached": 0.25,
    }


@needs_litellm
def test_a_reply_is_cached_accounted_and_replayed(tmp_path: Path) -> None:
    settings = LLMSettings(model=MODEL, cache_dir=str(tmp_path))
    ledger = Ledger()
    first = Client(settings, mock_response='{"hi": 1}').complete("demo", ASK, ledger)
    assert (first.text, first.cached) == ('{"hi": 1}', False)
    usage = ledger.steps["demo"]
    assert usage.calls == usage.attempts == 1 and usage.cost_usd > 0 and usage.keys == [first.key]
    # Another reply is on offer, but the request is the same: the cached one comes back.
    again = Client(settings, mock_response='{"hi": 2}').complete("demo", ASK, ledger)
    assert (again.text, again.cached, again.key) == ('{"hi": 1}', True, first.key)
    assert ledger.steps["demo"].cached == 1 and ledger.steps["demo"].cost_usd == usage.cost_usd


@needs_litellm
def test_a_missing_key_is_a_clear_error_before_any_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        Client(LLMSettings(model=MODEL, cache_dir=str(tmp_path))).complete("demo", ASK, Ledger())


@needs_litellm
def test_the_blueprint_loop_with_mock_replies(tmp_path: Path, florist: dict[str, Any]) -> None:
    scenario = parse_scenario("Florist: a flower shop")
    settings = LLMSettings(model=MODEL, cache_dir=str(tmp_path / "good"))
    ledger = Ledger()
    draft = draft_blueprint(scenario, Client(settings, mock_response=json.dumps(florist)), ledger)
    assert draft.blueprint is not None and draft.attempts == [] and ledger.steps["blueprint"].calls == 1
    bad = LLMSettings(model=MODEL, cache_dir=str(tmp_path / "bad"))
    ledger = Ledger()
    draft = draft_blueprint(scenario, Client(bad, mock_response="Sorry, no."), ledger, attempts=3)
    assert draft.blueprint is None and len(draft.reasons) == 3
    assert len(set(ledger.steps["blueprint"].keys)) == 3  # each correction is a new request, cached on its own


KEY = """
import json, sys
from pipeline.llm.blueprint import messages
from pipeline.llm.cache import request_key
from pipeline.llm.client import LLMSettings
from pipeline.llm.scenario import parse_scenario
msgs = messages(parse_scenario(sys.argv[1]))
print(request_key("openai/gpt-4o-mini", msgs, LLMSettings(model="openai/gpt-4o-mini").params(True)))
"""


def test_request_keys_are_the_same_in_another_process() -> None:
    line = "Florist: a flower shop taking bouquet orders"
    here = request_key(MODEL, messages(parse_scenario(line)), LLMSettings(model=MODEL).params(True))
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", KEY, line], capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == here


def test_without_the_extra_a_live_request_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.llm.client import LLMError

    monkeypatch.setitem(sys.modules, "litellm", None)  # as if not installed: importing it raises ImportError
    with pytest.raises(LLMError, match=r"pip install 'synthenv\[llm\]'"):
        Client(LLMSettings(model=MODEL, cache_dir=str(tmp_path))).complete("demo", ASK, Ledger())
