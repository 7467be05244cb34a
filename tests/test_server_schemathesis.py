"""Property-based: every documented route of the served app, for three domains, never 5xx.

schemathesis generates valid and invalid requests from the served OpenAPI document
(tool routes are the bundle's own ``openapi.json``); each response must not be a server
error, must use a documented status and content type, a success must match its schema,
and a request the schema forbids must be refused. Tool calls carry a real session id
(or none, or an unknown one, as generated), so they reach the executor.

schemathesis's pytest plugin does not run under pytest 9, so each operation's
strategy is driven here with Hypothesis directly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from pipeline.server.http import create_app
from pipeline.tools.openapi import SESSION_HEADER
from tests.conftest import TEST_DOMAINS

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
EXAMPLES = {GenerationMode.POSITIVE: 6, GenerationMode.NEGATIVE: 4}


def _fuzz(app: Any, mode: GenerationMode) -> list[str]:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    manager = app.state.manager
    live: list[str] = []
    failures: list[str] = []

    def session_id() -> str:
        if not live or not manager.is_open(live[0]):
            live[:] = [manager.create(seed=0)[0]]
        return live[0]

    for result in schema.get_all_operations():
        operation = result.ok()

        @settings(
            max_examples=EXAMPLES[mode],
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def run(case: Any) -> None:
            if case.path.startswith("/tools/") and case.headers and case.headers.get(SESSION_HEADER):
                case.headers[SESSION_HEADER] = session_id()
            response = case.call()
            if response.status_code == 413:
                # A body over the size limit is refused before it is read: right for any schema.
                assert response.json()["code"] == "payload_too_large"
                return
            case.validate_response(response, checks=CHECKS)

        try:
            run()
        except Unsatisfiable:
            # Nothing in this operation can be made invalid (no body, free-form path): nothing to test.
            pass
        except Exception as exc:
            failures.append(f"{operation.label} ({mode.value}): {_short(exc)}")
    return failures


def _short(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)
    parts = [str(e) for e in inner] if inner else [str(exc)]
    return " | ".join(p[:400] for p in parts)


@pytest.mark.slow
@pytest.mark.parametrize("domain", TEST_DOMAINS)
@pytest.mark.parametrize("mode", list(EXAMPLES), ids=lambda m: m.value)
def test_no_request_is_a_server_error(bundles: dict[str, Path], domain: str, mode: GenerationMode) -> None:
    # schemathesis addresses an in-process app as "testserver"; the request guard must allow it.
    app = create_app(bundles[domain], max_sessions=32, session_ttl=600, allowed_hosts=["testserver"])
    failures = _fuzz(app, mode)
    assert not failures, "\n".join(failures)
