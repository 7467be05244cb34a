"""The system text, the answer tool and how a model's answer is read.

The answer forms and the refusal form here are the ones the verifier scores
(:class:`pipeline.runtime.verify.AnswerCheck`, :func:`pipeline.runtime.answers.as_refusal`):
a model told to "explain why the request cannot be carried out" would write prose that
scores 0 on every infeasible task, so the text names the one structured refusal that
scores 1 and nothing else.
"""

from __future__ import annotations

import json
from typing import Any

from pipeline.bundle.manifest import ToolUseManifest
from pipeline.surface.tools import CONVENTIONS

ANSWER_TOOL = "submit_answer"
"""The tool an agent ends an episode with, in every surface whose actions are tool calls."""

REFUSAL_FORM = (
    'If the request cannot be done, change nothing and answer only with the JSON object {"cannot": REASON, '
    '"id": ID, "value": VALUE}, where ID is a record\'s "id" number as the tools show it (never its code or '
    'name): REASON "missing" when what is named does not exist (ID: the record it should '
    'belong to), "status" when a status forbids it (ID: that record, VALUE: its status), "limit" when a '
    'value would leave its allowed range (ID: that record, VALUE: its current value) or "policy" when a rule '
    'of the policy forbids it (ID: that record, VALUE: the rule\'s number, such as "P4"). If only part of it '
    "can be done, do that part and answer with one such object per record that cannot (a JSON list of them "
    "when there are several; where a status and a policy rule both forbid it, the status)."
)
"""The refusal the verifier scores 1 (``cannot`` one of missing/status/limit/policy, an integer ``id``)."""

ANSWER_FORMS = (
    "Answer with the value asked for and nothing else: one number (digits, no units), one text value "
    "(yes or no for a yes/no question), one date as YYYY-MM-DD, or several items, one per line or as a "
    'JSON list (["a", "b"]), in the order asked when an order is asked. When the request asks for a JSON '
    'object (a total, {"total": ...}, or a total with the parts refused, {"total": ..., "refused": [...]}), '
    "answer with that object. "
    "When the request only asks for changes, answer with a short confirmation such as done."
)

TOOL_USE_TEXT = (
    "You are working in a software system through its tools. Call tools to look things up and make the "
    f"changes the request needs, then call {ANSWER_TOOL} exactly once with your final answer; the episode "
    "ends with that call and nothing after it counts. Change nothing the request does not ask for. "
)

PROCEDURAL_TEXT = (
    "Solve the problem. End your reply with the final answer inside <answer></answer> tags; only the last "
    "answer counts."
)

POLICY_HEADING = "Policy of this system:"
"""Where a per-world policy text goes (see :func:`system_text`)."""


def system_text(procedural: bool, policy: str | None = None) -> str:
    """How to act: for a tool-use bundle the loop, the answer forms, the refusal form and the tool
    conventions; for a procedural one the answer tags.

    ``policy`` is the hook for a per-world policy text (rules of the business the agent
    works in, carried by a bundle): it is placed after the how-to-act text, under
    :data:`POLICY_HEADING`, and before the conventions, the same in every adapter.
    """
    if procedural:
        return PROCEDURAL_TEXT
    parts = [TOOL_USE_TEXT + ANSWER_FORMS, REFUSAL_FORM]
    if policy and policy.strip():
        lines = [" ".join(line.split()) for line in policy.strip().splitlines() if line.strip()]
        parts.append("\n".join([POLICY_HEADING, *lines]))
    parts.append(CONVENTIONS)
    return "\n\n".join(parts)


def policy_of(env: Any) -> str | None:
    """The bundle's policy text, if it carries one (``manifest.policy``, written by the tasks step)."""
    bundle = getattr(env, "bundle", None)
    manifest = getattr(bundle, "manifest", None)
    # A bundle's typed manifest, or the summary dict a Harbor task container stands in with.
    if isinstance(manifest, ToolUseManifest):
        policy = manifest.policy
    else:
        policy = manifest.get("policy") if isinstance(manifest, dict) else None
    return str(policy) if isinstance(policy, str) and policy.strip() else None


ANSWER_DESCRIPTION = (
    "The final answer: the value asked for (several items one per line, or a JSON list as text), the JSON "
    "object as text where the request asks for one, or the refusal object as text when the request cannot "
    "be done."
)


def answer_schema() -> dict[str, Any]:
    """JSON Schema of the answer tool's arguments (in the same plain form as every rendered tool)."""
    return {
        "type": "object",
        "properties": {"answer": {"type": "string", "description": ANSWER_DESCRIPTION}},
        "required": ["answer"],
    }


def answer_tool() -> dict[str, Any]:
    return {
        "name": ANSWER_TOOL,
        "description": "Give the final answer and end the episode.",
        "parameters": answer_schema(),
    }


def decode_answer(answer: Any) -> Any:
    """A string holding a JSON list becomes the list (list answers travel as text through tool calls).

    A refusal object stays text: the verifier reads the object out of the text itself. Text
    that is not a JSON list stays text too, including lists nested too deep for the parser
    (``RecursionError``) and integers too long to convert (``ValueError``): an answer is
    read, never raised on, and a nested list that does parse is left for the step's own
    depth limit (``pipeline.tools.jsonvalues``) to refuse.
    """
    if isinstance(answer, str) and answer.lstrip().startswith("["):
        try:
            value = json.loads(answer)
        except (ValueError, RecursionError):
            return answer
        return value if isinstance(value, list) else answer
    return answer
