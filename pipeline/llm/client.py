"""One way to ask a model: cached, retried, capped, accounted, refusable offline.

Requests go through litellm, so any provider it knows works (``openai/…``,
``anthropic/…``, a local OpenAI-compatible server through ``base_url``), with keys from
the provider's usual environment variables. litellm costs seconds to import and, unless
told otherwise, fetches its cost map from the network, so it is imported on the first
request that is not in the cache, with ``LITELLM_LOCAL_MODEL_COST_MAP`` set: a run that
replays only cached replies never imports it.

Rate limits, timeouts, dropped connections and 5xx answers are retried with exponential
backoff (tenacity); anything else (a bad key, a bad request) fails at once. At most
``concurrency`` requests per (model, endpoint) are in flight in a process, however many
threads a flow runs (Dask worker processes each have their own cap). Every reply is
cached by request hash before it is used, good or bad, so a replay walks the same
correction loop and makes the same bundle.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pipeline.llm.cache import Entry, ResponseCache, request_key
from pipeline.llm.usage import Ledger

Messages = list[dict[str, Any]]
"""OpenAI-style chat messages: ``{"role", "content"}``, plus ``tool_calls`` / ``tool_call_id`` in a tool loop."""


@dataclass(frozen=True)
class LLMSettings:
    """How to reach the model and how hard to try. Only ``model`` and the sampling parameters
    change a reply (and so the cache key); the rest is how the request travels."""

    model: str
    base_url: str | None = None
    cache_dir: str | None = None
    """Where replies are cached; None keeps no cache (unit tests only)."""
    offline: bool = False
    """Refuse every request the cache cannot answer."""
    timeout: float = 120.0
    retries: int = 4
    """Extra tries after the first for transient failures."""
    backoff: float = 2.0
    """Seconds before the first retry; doubles each time (with jitter) up to ``max_backoff``."""
    max_backoff: float = 60.0
    concurrency: int = 4
    temperature: float = 0.0
    max_tokens: int | None = None

    def __post_init__(self) -> None:
        if not self.model or len(self.model) > 200 or any(c.isspace() for c in self.model):
            raise ValueError(f"model must be a litellm model name such as openai/gpt-4o-mini, got {self.model!r}")
        if self.base_url is not None:
            parts = urlsplit(self.base_url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(f"base URL must be an http(s) URL, got {self.base_url!r}")
        if self.offline and self.cache_dir is None:
            raise ValueError("offline mode needs a cache directory to answer from")
        if not 0 < self.timeout <= 3600:
            raise ValueError(f"timeout must be in (0, 3600] seconds, got {self.timeout}")
        if not 0 <= self.retries <= 10:
            raise ValueError(f"retries must be in 0..10, got {self.retries}")
        if not 1 <= self.concurrency <= 64:
            raise ValueError(f"concurrency must be in 1..64, got {self.concurrency}")
        if self.backoff < 0 or self.max_backoff < self.backoff:
            raise ValueError("backoff must be >= 0 and at most max_backoff")
        if not 0 <= self.temperature <= 2:
            raise ValueError(f"temperature must be in [0, 2], got {self.temperature}")
        if self.max_tokens is not None and not 1 <= self.max_tokens <= 1_000_000:
            raise ValueError(f"max_tokens must be in 1..1000000, got {self.max_tokens}")

    def params(self, json_reply: bool) -> dict[str, Any]:
        """The sampling parameters: part of the request and of its cache key."""
        out: dict[str, Any] = {"temperature": self.temperature}
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        if json_reply:
            out["response_format"] = {"type": "json_object"}
        return out


class LLMError(RuntimeError):
    """A request that produced no reply. ``transient`` says whether trying later may help."""

    transient = False


class OfflineMiss(LLMError):
    """Offline, and the cache holds no reply for this request."""


class ProviderError(LLMError):
    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass(frozen=True)
class Reply:
    text: str
    key: str
    cached: bool
    finish_reason: str | None = None
    tool_calls: tuple[dict[str, str], ...] = ()
    """``{"id", "name", "arguments"}`` per call, arguments as the raw text the model wrote."""


_slots: dict[tuple[str, str | None, int], threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


def _slot(settings: LLMSettings) -> threading.BoundedSemaphore:
    """One cap per (model, endpoint, cap) in this process: every thread of a flow shares it."""
    with _slots_lock:
        key = (settings.model, settings.base_url, settings.concurrency)
        if key not in _slots:
            _slots[key] = threading.BoundedSemaphore(settings.concurrency)
        return _slots[key]


def _litellm() -> Any:
    """Import litellm on first use, offline-safe and quiet (``--json`` output stays clean)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
        import tenacity  # noqa: F401  (litellm does not depend on it; the retries below need it)
    except ImportError:
        raise LLMError("LLM generation needs the 'llm' extra: pip install 'synthenv[llm]'") from None
    litellm.suppress_debug_info = True
    logging.getLogger("LiteLLM").setLevel(logging.WARNING)
    return litellm


def _transient(exc: BaseException) -> bool:
    litellm = _litellm()
    kinds = (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.BadGatewayError,
    )
    return isinstance(exc, kinds)


class Client:
    """Asks ``settings.model``; every reply lands in the cache and in ``ledger`` under its step."""

    def __init__(self, settings: LLMSettings, *, mock_response: str | None = None) -> None:
        self.settings = settings
        self.cache = ResponseCache(settings.cache_dir) if settings.cache_dir else None
        self.mock_response = mock_response
        """litellm's ``mock_response`` (unit tests): no network, but the real call path."""

    def complete(self, step: str, messages: Messages, ledger: Ledger, json_reply: bool = True) -> Reply:
        params = self.settings.params(json_reply)
        return self._complete(step, messages, ledger, params, params)

    def chat(
        self,
        step: str,
        messages: Messages,
        ledger: Ledger,
        tools: list[dict[str, Any]],
        salt: str | None = None,
    ) -> Reply:
        """One turn of a tool-calling conversation: ``tools`` in OpenAI's function format.

        ``salt`` joins the cache key but is not sent: repeated trials of one conversation
        (pass@k) are separate requests, each cached and replayed on its own.
        """
        params = {**self.settings.params(False), "tools": tools}
        key_params = {**params, "salt": salt} if salt is not None else params
        return self._complete(step, messages, ledger, params, key_params)

    def _complete(
        self, step: str, messages: Messages, ledger: Ledger, params: dict[str, Any], key_params: dict[str, Any]
    ) -> Reply:
        s = self.settings
        key = request_key(s.model, messages, key_params)
        usage = ledger.step(step)
        entry = self.cache.get(key) if self.cache else None
        if entry is not None:
            usage.calls += 1
            usage.cached += 1
            usage.prompt_tokens += entry.prompt_tokens
            usage.completion_tokens += entry.completion_tokens
            usage.cost_usd_cached = round(usage.cost_usd_cached + entry.cost_usd, 8)
            usage.keys.append(key)
            return Reply(entry.text, key, True, entry.finish_reason, entry.tool_calls)
        if s.offline:
            raise OfflineMiss(
                f"offline: no cached reply for the {step} request {key[:16]}… to {s.model} in {s.cache_dir}; "
                "run once without --llm-offline to fill the cache"
            )
        entry, attempts = self._ask(step, key, messages, params)
        if self.cache is not None:
            self.cache.put(s.model, messages, key_params, entry)
        usage.calls += 1
        usage.attempts += attempts
        usage.prompt_tokens += entry.prompt_tokens
        usage.completion_tokens += entry.completion_tokens
        usage.cost_usd = round(usage.cost_usd + entry.cost_usd, 8)
        usage.keys.append(key)
        return Reply(entry.text, key, False, entry.finish_reason, entry.tool_calls)

    def _kwargs(self, messages: Messages, params: dict[str, Any]) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {
            "model": s.model,
            "messages": messages,
            "timeout": s.timeout,
            "max_retries": 0,  # retries happen here, where they are counted and classified
            "drop_params": True,  # a provider without JSON mode still gets the request
            **params,
        }
        if s.base_url is not None:
            kwargs["api_base"] = s.base_url
        if self.mock_response is not None:
            kwargs["mock_response"] = self.mock_response
        return kwargs

    def _credentials(self, litellm: Any, kwargs: dict[str, Any]) -> None:
        """Keys come from the provider's environment variables; a local server needs none."""
        s = self.settings
        if self.mock_response is not None:
            return
        env = litellm.validate_environment(model=s.model)
        if env.get("keys_in_environment"):
            return
        if s.base_url is not None:
            kwargs["api_key"] = "unused"  # the OpenAI client insists on a key even for a local server
            return
        missing = ", ".join(env.get("missing_keys") or []) or "an API key"
        raise ProviderError(f"{s.model} needs {missing} in the environment (or --llm-base-url for a local server)")

    def _ask(self, step: str, key: str, messages: Messages, params: dict[str, Any]) -> tuple[Entry, int]:
        litellm = _litellm()
        import tenacity

        s = self.settings
        kwargs = self._kwargs(messages, params)
        self._credentials(litellm, kwargs)
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(s.retries + 1),
            wait=tenacity.wait_exponential_jitter(multiplier=s.backoff, max=s.max_backoff, jitter=s.backoff),
            retry=tenacity.retry_if_exception(_transient),
            reraise=True,
        )
        attempts = 0
        try:
            with _slot(s):
                for attempt in retrying:
                    with attempt:
                        attempts += 1
                        response = litellm.completion(**kwargs)
        except Exception as exc:
            transient = _transient(exc)
            message = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
            raise ProviderError(
                f"{step}: {s.model} failed after {attempts} attempt(s): {type(exc).__name__}: {message}", transient
            ) from None
        return self._entry(litellm, key, response), attempts

    def _entry(self, litellm: Any, key: str, response: Any) -> Entry:
        choice = response.choices[0]
        usage = getattr(response, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # a model missing from the local cost map: tokens still count
            cost = 0.0
        calls = tuple(
            {
                "id": str(getattr(call, "id", "") or f"call_{i}"),
                "name": str(getattr(call.function, "name", "") or ""),
                "arguments": str(getattr(call.function, "arguments", "") or ""),
            }
            for i, call in enumerate(getattr(choice.message, "tool_calls", None) or ())
        )
        return Entry(
            key=key,
            text=choice.message.content or "",
            tool_calls=calls,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=round(cost, 8),
            finish_reason=getattr(choice, "finish_reason", None),
        )
