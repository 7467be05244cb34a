"""Trajectory logs as ATIF documents (Agent Trajectory Interchange Format, Harbor RFC 0001, v1.4).

One episode of the trajectory log (:mod:`pipeline.integrations.trajectory`) becomes one ATIF
``Trajectory``, so debugging, SFT and RL tools that read ATIF read our episodes:

* the reset row is a ``user`` step: ``message`` is the instruction, the observation it
  returned is the step's observation;
* each action row is an ``agent`` step: ``message`` the model's text (empty when none was
  recorded), the action as one ``tool_call`` (an answer is a call of the answer tool, the
  same name every surface shows), the environment's observation as that call's result, the
  step's token ids and log-probabilities in ``metrics``;
* a row that ends an episode from outside (a step budget, a provider failure) is a
  ``system`` step whose message is the reason;
* ``extra`` of every step holds the log's own fields (step number, reward, components,
  terminated, truncated, status, error, seconds); the trajectory's ``extra`` holds the
  bundle (ref, name, version, digest), task id, episode, model, rollout and training-step
  ids, and the episode's reward with its components and status (also in ``final_metrics``).

:func:`rows_of` reads a document back into the log's rows, the same rows (a recorded empty
model text reads back as null). Harbor's own models (``harbor.models.trajectories``)
validate what :func:`to_atif` writes (``tests/test_atif.py``); nothing here imports Harbor.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.integrations.trajectory import COLUMNS

SCHEMA_VERSION = "ATIF-v1.4"
ANSWER_CALL = "submit_answer"
"""The function name an answer action is written as (the answer tool of :mod:`pipeline.surface`)."""
EPISODE_KEYS = ("bundle", "name", "version", "digest", "task_id", "episode", "model", "rollout_id", "training_step")
STEP_KEYS = ("step", "reward", "components", "terminated", "truncated", "status", "error", "seconds")
TOKEN_KEYS = ("prompt_token_ids", "completion_token_ids", "logprobs")


def read_rows(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Every row of the trajectory logs, in file then line order, each with every column (null when absent)."""
    rows: list[dict[str, Any]] = []
    for path in paths:
        with Path(path).open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rows.append({**dict.fromkeys(COLUMNS), **json.loads(line)})
    return rows


def episodes(rows: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """The rows grouped by episode, episodes in order of first appearance, rows in log order."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault(str(row["episode"]), []).append(row)
    yield from grouped.values()


def _call_of(action: Any, call_id: str) -> dict[str, Any] | None:
    """An action as an ATIF tool call, or None when it is no call (then ``extra.action`` keeps it)."""
    if isinstance(action, dict) and set(action) == {"answer"}:
        return {"tool_call_id": call_id, "function_name": ANSWER_CALL, "arguments": {"answer": action["answer"]}}
    if isinstance(action, dict) and isinstance(action.get("tool"), str) and set(action) <= {"tool", "arguments"}:
        arguments = action.get("arguments", {})
        if isinstance(arguments, dict):
            return {"tool_call_id": call_id, "function_name": action["tool"], "arguments": arguments}
    return None


def _action_of(call: dict[str, Any]) -> dict[str, Any]:
    if call["function_name"] == ANSWER_CALL and set(call["arguments"]) == {"answer"}:
        return {"answer": call["arguments"]["answer"]}
    return {"tool": call["function_name"], "arguments": call["arguments"]}


def _step(row: dict[str, Any], step_id: int) -> dict[str, Any]:
    extra = {k: row[k] for k in STEP_KEYS if row.get(k) is not None}
    out: dict[str, Any] = {"step_id": step_id}
    observation = row.get("observation")
    if row["step"] == 0 and row.get("action") is None:
        instruction = observation.get("instruction") if isinstance(observation, dict) else None
        out.update(source="user", message=str(instruction) if instruction is not None else "")
        call = None
    elif row.get("action") is None and observation is None:  # ended from outside the environment
        out.update(source="system", message=str(row.get("error") or row.get("status") or ""))
        call = None
    else:
        out.update(source="agent", message=row.get("model_text") or "")
        if row.get("model"):
            out["model_name"] = row["model"]
        call = _call_of(row["action"], f"{row['episode']}-{step_id}")
        if call is not None:
            out["tool_calls"] = [call]
            if _action_of(call) != row["action"]:  # e.g. a tool call written without its arguments
                extra["action"] = row["action"]
        else:
            extra["action"] = row["action"]
        tokens = {k: row[k] for k in TOKEN_KEYS if row.get(k) is not None}
        if tokens:
            out["metrics"] = tokens
    if observation is not None:
        content = json.dumps(observation, sort_keys=True, ensure_ascii=False)
        source = call["tool_call_id"] if call is not None else None
        out["observation"] = {"results": [{"source_call_id": source, "content": content}]}
    out["extra"] = extra
    return out


def to_atif(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One episode's rows (in log order) as an ATIF v1.4 trajectory document (plain JSON)."""
    if not rows:
        raise ValueError("an episode has at least one row")
    first, last = rows[0], rows[-1]
    if len({str(r["episode"]) for r in rows}) != 1:
        raise ValueError("the rows belong to more than one episode")
    outcome = {"reward": last.get("reward"), "components": last.get("components") or {}, "status": last.get("status")}
    agent: dict[str, Any] = {"name": "synthenv", "version": __version__}
    if first.get("model"):
        agent["model_name"] = first["model"]
    return {
        "schema_version": SCHEMA_VERSION,
        "session_id": str(first["episode"]),
        "agent": agent,
        "steps": [_step(row, i) for i, row in enumerate(rows, start=1)],
        "final_metrics": {"total_steps": len(rows), "extra": outcome},
        "extra": {**{k: first.get(k) for k in EPISODE_KEYS if first.get(k) is not None}, **outcome},
    }


def rows_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The trajectory-log rows an ATIF document written by :func:`to_atif` holds."""
    head = {k: document.get("extra", {}).get(k) for k in EPISODE_KEYS}
    rows = []
    for step in document["steps"]:
        extra = dict(step.get("extra") or {})
        row: dict[str, Any] = {**dict.fromkeys(COLUMNS), **head}
        row.update({k: extra.get(k) for k in STEP_KEYS})
        results = (step.get("observation") or {}).get("results") or []
        row["observation"] = json.loads(results[0]["content"]) if results else None
        if step["source"] == "agent":
            calls = step.get("tool_calls") or []
            row["action"] = extra["action"] if "action" in extra else _action_of(calls[0]) if calls else None
            row["model_text"] = step.get("message") or None
            row.update({k: (step.get("metrics") or {}).get(k) for k in TOKEN_KEYS})
        rows.append(row)
    return rows


def export_atif(paths: list[str | Path], out: str | Path) -> dict[str, Any]:
    """Write every episode of the logs as one ATIF document per line of ``out`` (JSONL); the counts."""
    documents = [to_atif(rows) for rows in episodes(read_rows(paths))]
    if not documents:
        raise ValueError("no trajectory rows to export")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    with partial.open("w", encoding="utf-8") as fh:
        for doc in documents:
            fh.write(json.dumps(doc, sort_keys=True, ensure_ascii=False) + "\n")
    partial.replace(out)
    statuses = [d["extra"].get("status") for d in documents]
    return {
        "out": str(out),
        "format": "atif",
        "schema_version": SCHEMA_VERSION,
        "rows": sum(len(d["steps"]) for d in documents),
        "episodes": len(documents),
        "finished": sum(s is not None for s in statuses),
        "errors": sum(s == "error" for s in statuses),
    }
