"""The text of the files an OpenEnv Space directory holds (see :mod:`.openenv_space`).

Laid out as OpenEnv's own scaffold (``openenv init``'s template in openenv-core 0.3.0): the
directory is the package ``<module>`` (``__init__.py``, ``client.py``, ``models.py``,
``openenv.yaml``) with its server in ``<module>.server`` (``server/app.py``), so an install
adds no top-level ``server`` package and ``AutoEnv`` finds ``<module>.client``. The client
and models import only openenv-core and pydantic: a trainer installs the Space without
synthenv. Placeholders are ``str.format`` fields; literal braces are doubled.
"""

from __future__ import annotations

INIT = '''"""Client for the synthenv bundle {ref} served as an OpenEnv environment."""

from .client import {cls}Env
from .models import {cls}Action, {cls}Observation

__all__ = ["{cls}Action", "{cls}Env", "{cls}Observation"]
'''

MODELS = '''"""Wire models of the synthenv bundle {ref} ({digest}).

An action is ``{{"tool": name, "arguments": {{...}}}}`` or ``{{"answer": value}}`` (the answer
ends the episode). The final observation carries the verdict: ``status`` is ``passed``,
``failed`` or ``error`` (the verification could not run: mask it, do not train on it), with
``reason``, ``task_id`` (the task scored) and ``assigned_task_id`` (the task reset assigned).
"""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.types import Action, Observation
from pydantic import Field


class {cls}Action(Action):
    tool: str | None = Field(default=None, description="name of the tool to call")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments")
    answer: Any = Field(default=None, description="the final answer; ends the episode")


class {cls}Observation(Observation):
    content: dict[str, Any] = Field(default_factory=dict)
    text: str = ""
    system: str | None = None
    signals: dict[str, Any] = Field(default_factory=dict)
    components: dict[str, float] = Field(default_factory=dict)
    status: Literal["passed", "failed", "error"] | None = None
    reason: str | None = None
    task_id: str | None = None
    assigned_task_id: str | None = None
'''

CLIENT = '''"""OpenEnv client (WebSocket) for the synthenv bundle {ref}.

    async with {cls}Env(base_url="http://127.0.0.1:8000") as env:
        result = await env.reset(task_id=..., trainer_token=TOKEN)   # the trainer's call
        result = await env.step({cls}Action(tool="NAME", arguments={{}}))
        result = await env.step({cls}Action(answer="..."))            # result.observation.status
"""

from __future__ import annotations

from typing import Any

from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.types import State

from .models import {cls}Action, {cls}Observation


class {cls}Env(EnvClient[{cls}Action, {cls}Observation, State]):
    def _step_payload(self, action: {cls}Action) -> dict[str, Any]:
        if "answer" in action.model_fields_set:
            return {{"answer": action.answer}}
        return {{"tool": action.tool, "arguments": action.arguments}}

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[{cls}Observation]:
        observation = {cls}Observation(
            **payload.get("observation", {{}}), done=payload.get("done", False), reward=payload.get("reward")
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> State:
        return State(**payload)
'''

SERVER_INIT = '''"""OpenEnv server of the synthenv bundle {ref}: ``app`` in :mod:`.app`."""
'''

APP = '''"""OpenEnv server for the synthenv bundle {ref} ({digest}).

synthenv's runtime is vendored in ``vendor/`` (the exact source that wrote this directory) and
put first on ``sys.path`` of this process only; nothing is installed under its name.
Starting an episode needs the trainer token (``SYNTHENV_TRAINER_TOKEN``): without one a
token is generated and printed once on stderr.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "vendor"))

from pipeline.integrations.openenv import create_openenv_app  # noqa: E402

TOKEN = os.environ.get("SYNTHENV_TRAINER_TOKEN") or secrets.token_urlsafe(24)
if not os.environ.get("SYNTHENV_TRAINER_TOKEN"):
    print(f"trainer token (reset(..., trainer_token=...)): {{TOKEN}}", file=sys.stderr)
app = create_openenv_app(
    HERE / "bundle",
    max_sessions=int(os.environ.get("SYNTHENV_MAX_SESSIONS", "256")),
    session_ttl=float(os.environ.get("SYNTHENV_SESSION_TTL", "900")),
    trainer_token=TOKEN,
)


def main() -> None:
    # synthenv serve's uvicorn: a client must send its headers within the time-out (a plain
    # uvicorn.run waits on a slow client for ever).
    from pipeline.server.runner import make_server

    make_server(
        app,
        os.environ.get("HOST", "0.0.0.0"),
        int(os.environ.get("PORT", "8000")),
        header_timeout=float(os.environ.get("SYNTHENV_TIMEOUT", "10")),
        log_level="info",
    ).run()


if __name__ == "__main__":
    main()
'''

DOCKERFILE = """# OpenEnv Space for the synthenv bundle {ref}
# digest {digest}
FROM python:3.11-slim
WORKDIR /app/env
COPY . /app/env
RUN pip install --no-cache-dir /app/env
ENV SYNTHENV_BUNDLE_DIGEST={digest}
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \\
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health')"
CMD ["server"]
"""

README_BODY = """# {name} {version}

A synthenv environment served with OpenEnv: `{ref}`, digest `{digest}` ({tasks} tasks). The
server refuses to start if the bundle's files do not match that digest.

```
pip install .            # the client package {module} and its server; no synthenv install needed
server                   # HOST, PORT (0.0.0.0:8000), SYNTHENV_TIMEOUT (10 s for a client's headers)
```

Starting an episode is the trainer's: `reset` needs the token the server was started with
(`SYNTHENV_TRAINER_TOKEN`; printed on stderr when generated). Play over the WebSocket:

```python
from {module} import {cls}Action, {cls}Env   # or: AutoEnv.get_env_class("{key}")

async with {cls}Env(base_url="http://127.0.0.1:8000") as env:
    result = await env.reset(trainer_token=TOKEN)          # result.observation.text: the instruction
    result = await env.step({cls}Action(tool="NAME", arguments={{}}))
    result = await env.step({cls}Action(answer="..."))      # result.reward, result.observation.status
```

OpenEnv's `MCPToolClient` works in its default mode: `reset(trainer_token=TOKEN)`, then
`list_tools()` and `call_tool(name, arguments={{...}})`, ending with `submit_answer`. Plain
HTTP `/reset` and `/step` are stateless in OpenEnv and answer 409. Before `openenv push`:
`uv lock` (OpenEnv's validator asks for `uv.lock`), then `openenv validate .`.
Build: `docker build -t {name} .`
"""
