"""The records that cross the episode contract, written once: the action, the observations, the step info.

Every environment (:class:`~pipeline.runtime.environment.Environment`,
:class:`~pipeline.runtime.procedural.ProceduralEnvironment`), every wrapper
(:mod:`pipeline.runtime.wrappers`), the server and every adapter pass these records; each is
declared here once, with what each field means, and read by key everywhere else.

They are :class:`typing.TypedDict` s, not models: at run time an action, an observation and an
info are the plain dicts Gymnasium's ``reset`` / ``step`` hand over, serialised as they are (by
the server, the trajectory log, every adapter), so the declarations below change no value and
no byte on the wire. ``tests/test_wire_types.py`` checks them against what the environments
return. This module imports nothing but :mod:`typing`.

* An **action** is a :class:`ToolAction` or an :class:`AnswerAction`. ``step`` takes any value
  (an agent's action is untrusted) and answers anything else with an error observation.
* An **observation** is one of five kinds told apart by ``type``: :class:`TaskObservation`
  (``reset``), :class:`ToolResultObservation`, :class:`ToolErrorObservation`,
  :class:`ErrorObservation` and :class:`DoneObservation`.
* ``reset``'s info is a :class:`ResetInfo` (trainer-side: its ``knobs`` can reveal the answer);
  ``step``'s is a :class:`StepInfo`, with the final step's :class:`PublicVerdict` (safe to show an
  agent) under ``verification``.
"""

# No ``from __future__ import annotations``: on Python 3.11 ``TypedDict`` reads ``Required`` /
# ``NotRequired`` only from evaluated annotations, and ``__required_keys__`` must be right at run time.
from typing import Any, Literal, NotRequired, Required, TypedDict

__all__ = [
    "Action",
    "AnswerAction",
    "Components",
    "DoneObservation",
    "ErrorDetail",
    "ErrorObservation",
    "Observation",
    "PublicCheck",
    "PublicVerdict",
    "ResetInfo",
    "Step",
    "StepInfo",
    "TaskObservation",
    "ToolAction",
    "ToolErrorObservation",
    "ToolResultObservation",
    "VerdictStatus",
]

VerdictStatus = Literal["passed", "failed", "error"]
"""A verdict's outcome: ``passed``, ``failed``, or ``error`` (the verification could not run, or
scored another task than the one assigned: reward 0.0, to be masked, never learned from)."""


# -- actions ----------------------------------------------------------------------------------


class ToolAction(TypedDict, total=False):
    """A tool call: ``{"tool": name, "arguments": {...}}``."""

    tool: Required[str]
    """The name of one of the bundle's tools (``Environment.tool_specs()``)."""
    arguments: dict[str, Any]
    """The call's arguments, a JSON object checked against the tool's ``parameters`` (JSON Schema);
    absent means ``{}``. Arguments the tool does not take come back as a ``tool_error``."""


class AnswerAction(TypedDict):
    """The final answer: ``{"answer": value}``; it ends the episode and is scored."""

    answer: Any
    """A string, a number, a list, a refusal or report object, or null (tool-use); text or a number
    (procedural). Anything else is an ``invalid_action`` error that ends nothing."""


Action = ToolAction | AnswerAction
"""What ``step`` expects: a tool call or the answer, nothing else."""


# -- observations -----------------------------------------------------------------------------


class ErrorDetail(TypedDict):
    """What went wrong, in words an agent can act on."""

    code: str
    """A stable error code: ``invalid_action``, ``invalid_argument``, ``invalid_state``, ``not_found``,
    ``conflict``, ``episode_over``, ``step_limit``, ``limit_exceeded``, ..."""
    message: str
    """The problem in words (names the argument or value at fault; never an expected value)."""


class TaskObservation(TypedDict):
    """``reset``'s observation: the task."""

    type: Literal["task"]
    """The kind tag: ``task``."""
    instruction: str
    """The request the agent carries out (tool-use) or the question it answers (procedural)."""
    tools: list[str]
    """The names of the tools the agent may call (empty for a procedural bundle)."""
    policy: NotRequired[str]
    """The world's rules the request is judged against (tool-use bundles that carry a policy)."""


class ToolResultObservation(TypedDict):
    """A tool call that ran."""

    type: Literal["tool_result"]
    """The kind tag: ``tool_result``."""
    tool: str
    """The tool that was called."""
    result: Any
    """What the tool returned (JSON: a record, a list page with ``items`` and ``next_offset``, ...)."""


class ToolErrorObservation(TypedDict):
    """A tool call the executor refused (bad arguments, a missing record, a conflict): the state is unchanged."""

    type: Literal["tool_error"]
    """The kind tag: ``tool_error``."""
    tool: str
    """The tool that was called."""
    error: ErrorDetail
    """Why it was refused."""


class ErrorObservation(TypedDict):
    """An action refused before any tool ran (not an action, a step before ``reset`` or after the end,
    a spent step budget): the state is unchanged."""

    type: Literal["error"]
    """The kind tag: ``error``."""
    error: ErrorDetail
    """Why it was refused."""


class DoneObservation(TypedDict):
    """The final answer was scored: the episode is over."""

    type: Literal["done"]
    """The kind tag: ``done``."""
    reward: float
    """The verdict's reward (as ``step`` returns it)."""


Observation = TaskObservation | ToolResultObservation | ToolErrorObservation | ErrorObservation | DoneObservation
"""One observation; its ``type`` says which kind."""


# -- infos ------------------------------------------------------------------------------------


class ResetInfo(TypedDict):
    """``reset``'s info: which task the episode runs. Trainer-side: ``knobs`` can reveal the answer."""

    task_id: str
    """The task ``reset`` assigned (every verdict of the episode is checked against it)."""
    family: str
    """The task's family (its generator)."""
    level: int
    """The task's difficulty level."""
    knobs: dict[str, Any] | None
    """The generator's choices for this task; they can reveal the answer (never show them to an agent)."""
    bundle: str
    """The bundle's ref (``name@version``)."""
    digest: str
    """The bundle's content digest."""
    reward_weights: NotRequired[dict[str, float]]
    """How a shaping wrapper may combine :class:`Components` (tool-use bundles; from the manifest)."""
    seed: NotRequired[int]
    """The seed the episode was reset with (sessions of ``synthenv serve``: drawn by the server when not given)."""


class Components(TypedDict):
    """A step's reward signals, each 0.0 or 1.0 (``ResetInfo.reward_weights`` weighs them)."""

    call_valid: float
    """The action was well formed and named a tool with valid arguments (or was an answer)."""
    call_succeeded: float
    """The call ran (or the answer was scored)."""
    outcome: NotRequired[float]
    """The final step only: the verdict's reward."""


class PublicCheck(TypedDict):
    """One check of a verdict as an agent may see it: its name and whether it passed, never its values."""

    name: str
    """What the check checks (``answer``, a table's expected changes, ...)."""
    passed: bool
    """Whether it passed."""


class PublicVerdict(TypedDict):
    """The final step's ``info["verification"]``: the outcome an agent may see (``Verdict.public()``, or a
    procedural scorer's), never an expected value."""

    status: VerdictStatus
    """The outcome (:data:`VerdictStatus`)."""
    reward: float
    """1.0 or 0.0 (tool-use); the family's score, partial credit included (procedural); 0.0 on ``error``."""
    checks: NotRequired[list[PublicCheck]]
    """Each check's name and pass/fail (tool-use only)."""
    error: NotRequired[str]
    """Why the verification could not run (status ``error`` only)."""
    task_id: NotRequired[str | None]
    """The task whose verifier produced the verdict."""
    assigned_task_id: NotRequired[str | None]
    """The task ``reset`` assigned; when it differs from ``task_id`` the status is ``error``."""


class StepInfo(TypedDict, total=False):
    """``step``'s info: the step's signals, and the verdict on the final step. Which keys are present
    depends on the environment and the step (a step before ``reset`` carries ``call_valid`` alone, or
    nothing in a procedural environment)."""

    step: int
    """The number of this step in the episode, from 1 (tool-use environments)."""
    call_valid: bool
    """The action was well formed and named a tool with valid arguments (or was a readable answer)."""
    call_succeeded: bool
    """The call ran (or the answer was scored)."""
    error: str
    """The error code of a refused action (:attr:`ErrorDetail.code`)."""
    components: Components
    """The step's reward signals (tool-use environments)."""
    verification: PublicVerdict
    """The final step only: the verdict, as an agent may see it. Absent on every step after it."""
    truncated_by: str
    """Set by :class:`~pipeline.runtime.wrappers.StepLimit`: the limit that truncated the episode."""
    # Set by adapters (pipeline.integrations), never by an environment:
    episode_over: bool
    """An adapter's call after the episode ended (:class:`pipeline.integrations.episode.Episode`)."""
    status: VerdictStatus | None
    """With ``episode_over``: the status the episode ended with."""
    masked: bool
    """Gymnasium adapter, final step: whether the verdict is ``error`` (its reward must not be learned from)."""


Step = tuple[Observation, float, bool, bool, StepInfo]
"""What ``step`` returns: observation, reward, terminated, truncated, info (Gymnasium's order)."""
