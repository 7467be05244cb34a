"""Every evaluation episode in the trajectory log (:mod:`pipeline.integrations.trajectory`).

The evaluation writes the same rows a trainer's log holds, so the same readers (export,
``synthenv curriculum update``) take an evaluation's log as they take a trainer's.
``status`` is set on the row that ends an episode: ``passed`` / ``failed`` from the
verifier, or ``error`` for an infrastructure failure (to be masked). The agent loop reaches
the log through the three functions below only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.integrations.episode import status_of
from pipeline.integrations.trajectory import COLUMNS, RecordTrajectory, TrajectoryWriter

__all__ = ["COLUMNS", "cut", "note", "open_log", "record", "status_of"]


def open_log(path: str | Path) -> TrajectoryWriter:
    """The run's trajectory file (appended to, so a resumed run keeps the first part's rows)."""
    return TrajectoryWriter(path)


def record(
    env: Any,
    writer: TrajectoryWriter,
    *,
    model: str | None = None,
    rollout_id: str | None = None,
    training_step: int | None = None,
) -> Any:
    """``env`` with every reset and step logged to ``writer``; ``model`` and the ids go on every row
    (the evaluated model's name; an evaluation has no training step, a trainer's loop does)."""
    return RecordTrajectory(env, writer, model=model, rollout_id=rollout_id, training_step=training_step)


def note(wrapped: Any, model_text: str | None = None, **tokens: Any) -> None:
    """The model's text (and token ids, where the provider returns them) for the next step's row."""
    wrapped.note(model_text=model_text, **tokens)


def cut(wrapped: Any, status: str, reason: str) -> None:
    """End the current episode in the log from outside the environment (:meth:`RecordTrajectory.cut`).

    ``failed`` when the step budget ran out (the agent never answered), ``error`` when the
    model's provider failed (the episode is masked). One row, after the last step.
    """
    wrapped.cut(status, reason)
