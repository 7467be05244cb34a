"""The trajectory log: a wrapper that records every episode as JSONL rows.

``RecordTrajectory`` wraps an ``Environment`` or a ``ProceduralEnvironment`` (a wrapper,
Gymnasium style, not a feature of the environment) and appends one row per reset and
per step:

``bundle`` (``name@version``), ``name``, ``version``, ``digest``, ``task_id``,
``episode`` (an id unique to the log), ``step`` (0 is the reset), ``action``,
``observation`` (what the agent saw), ``reward``, ``components``, ``terminated``,
``truncated``, ``status`` and ``seconds`` (time spent in the environment for this row);
and, where whoever drives the episode has them, ``model`` (the model's name), ``model_text``
(what the model wrote on that step), ``prompt_token_ids`` / ``completion_token_ids`` /
``logprobs`` (the step's tokens), ``rollout_id`` and ``training_step`` (the trainer's ids).
Those are null when nobody supplied them: logs written before they existed read back with
them null too. A trainer sets ``rollout_id`` / ``training_step`` / ``model`` on the wrapper
(they go on every row) and calls :meth:`RecordTrajectory.note` before a step for the step's
text and tokens (they go on that step's row only).

``status`` is set on the row that ends an episode: ``passed`` / ``failed`` from the
verifier, or ``error`` when the environment itself failed (the exception is recorded and
re-raised); such rows are infrastructure failures to mask, never to train on. Rows hold
no expected values: only what the agent saw and the trainer's reward.

Many wrapped environments may share one :class:`TrajectoryWriter` (one file, a lock), so
a server with concurrent sessions writes whole lines. Files are read back (and exported
to Parquet) through DuckDB; ``synthenv curriculum update --results`` takes them as they
are, using the final row of each episode.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from pathlib import Path
from typing import IO, Any

from pipeline.integrations.episode import verdict_status
from pipeline.runtime.wire import ResetInfo, Step, TaskObservation
from pipeline.runtime.wrappers import EpisodeEnv, Wrapper
from pipeline.world.sqlnames import quote_literal

COLUMNS: dict[str, str] = {
    "bundle": "VARCHAR",
    "name": "VARCHAR",
    "version": "VARCHAR",
    "digest": "VARCHAR",
    "task_id": "VARCHAR",
    "episode": "VARCHAR",
    "step": "INTEGER",
    "action": "JSON",
    "observation": "JSON",
    "reward": "DOUBLE",
    "components": "JSON",
    "terminated": "BOOLEAN",
    "truncated": "BOOLEAN",
    "status": "VARCHAR",
    "error": "VARCHAR",
    "seconds": "DOUBLE",
    "model": "VARCHAR",
    "model_text": "VARCHAR",
    "prompt_token_ids": "BIGINT[]",
    "completion_token_ids": "BIGINT[]",
    "logprobs": "DOUBLE[]",
    "rollout_id": "VARCHAR",
    "training_step": "BIGINT",
}
"""Every row has exactly these keys; the DuckDB types they are read back with (the last seven are
optional: null where nobody supplied them, and absent from logs written before they existed)."""

EPISODE_FIELDS = ("model", "rollout_id", "training_step")
"""Set on the wrapper, written on every row of its episodes."""
STEP_FIELDS = ("model_text", "prompt_token_ids", "completion_token_ids", "logprobs")
"""Given by :meth:`RecordTrajectory.note`, written on the next step's row only."""


class TrajectoryWriter:
    """Appends JSON lines to one file; safe to share between threads and sessions."""

    def __init__(self, path: str | Path | IO[str]) -> None:
        if isinstance(path, (str, Path)):
            self.path: Path | None = Path(path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh: IO[str] = self.path.open("a", encoding="utf-8")
            self._owns = True
        else:
            self.path, self._fh, self._owns = None, path, False
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._prefix = f"{time.time_ns():x}"

    def next_episode(self) -> str:
        """An episode id unique within this writer (and, by its time prefix, across runs)."""
        with self._lock:
            return f"{self._prefix}-{next(self._ids)}"

    def write(self, row: dict[str, Any]) -> None:
        line = json.dumps(row, sort_keys=True, ensure_ascii=False, default=str) + "\n"
        with self._lock:
            self._fh.write(line)
            self._fh.flush()

    def close(self) -> None:
        if self._owns:
            self._fh.close()


class RecordTrajectory(Wrapper):
    """Wraps an environment; every reset and step becomes a row in ``writer``'s file.

    Attributes the wrapper does not define (``tool_specs``, ``tasks``, ``bundle``, …)
    come from the wrapped environment (:class:`pipeline.runtime.wrappers.Wrapper`). An episode
    that ends outside the environment (a step budget spent on turns that reached no step, the
    model's provider failing) is ended in the log with :meth:`cut`.
    """

    def __init__(
        self,
        env: EpisodeEnv,
        writer: TrajectoryWriter | str | Path,
        *,
        model: str | None = None,
        rollout_id: str | None = None,
        training_step: int | None = None,
    ) -> None:
        super().__init__(env)
        self.model, self.rollout_id, self.training_step = model, rollout_id, training_step
        self._note: dict[str, Any] = {}
        self._own_writer = not isinstance(writer, TrajectoryWriter)
        self.writer = writer if isinstance(writer, TrajectoryWriter) else TrajectoryWriter(writer)
        bundle = env.bundle
        self._static = {"bundle": bundle.ref, "name": bundle.name, "version": bundle.version, "digest": bundle.digest}
        self._episode: str | None = None
        self._task_id: str | None = None
        self._step = 0
        self._over = False

    def note(
        self,
        *,
        model_text: str | None = None,
        prompt_token_ids: list[int] | None = None,
        completion_token_ids: list[int] | None = None,
        logprobs: list[float] | None = None,
    ) -> None:
        """The model's text and tokens for the next step: written on that step's row, then forgotten."""
        given = {
            "model_text": model_text,
            "prompt_token_ids": prompt_token_ids,
            "completion_token_ids": completion_token_ids,
            "logprobs": logprobs,
        }
        for name in ("prompt_token_ids", "completion_token_ids"):
            ids = given[name]
            if ids is not None and not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
                raise ValueError(f"{name} must be a list of integers")
        self._note = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in given.items() if v is not None}

    def _row(self, **values: Any) -> dict[str, Any]:
        row: dict[str, Any] = dict.fromkeys(COLUMNS)
        row.update(self._static)
        row.update(episode=self._episode, task_id=self._task_id, step=self._step, components={})
        row.update(model=self.model, rollout_id=self.rollout_id, training_step=self.training_step)
        row.update(values)
        return row

    def reset(self, task_id: str | None = None, seed: int | None = None) -> tuple[TaskObservation, ResetInfo]:
        start = time.perf_counter()
        obs, info = self.env.reset(task_id=task_id, seed=seed)
        self._episode = self.writer.next_episode()
        self._note = {}
        self._task_id = str(info.get("task_id"))
        self._step = 0
        self._over = False
        self.writer.write(
            self._row(
                observation=obs, reward=0.0, terminated=False, truncated=False, seconds=time.perf_counter() - start
            )
        )
        return obs, info

    def step(self, action: Any) -> Step:
        if self._episode is None or self._over:
            return self.env.step(action)  # the environment's own invalid_state error; nothing to log
        self._step += 1
        noted, self._note = self._note, {}
        start = time.perf_counter()
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except Exception as exc:
            self._over = True
            self.writer.write(
                self._row(
                    **noted,
                    action=action,
                    reward=0.0,
                    terminated=False,
                    truncated=True,
                    status="error",
                    error=f"{type(exc).__name__}: {exc}"[:2000],
                    seconds=time.perf_counter() - start,
                )
            )
            raise
        seconds = time.perf_counter() - start
        ended = bool(terminated or truncated)
        self._over = ended
        self.writer.write(
            self._row(
                **noted,
                action=action,
                observation=obs,
                reward=float(reward),
                components=dict(info.get("components") or {}),
                terminated=bool(terminated),
                truncated=bool(truncated),
                status=verdict_status(float(reward), info, self._task_id) if ended else None,
                seconds=seconds,
            )
        )
        return obs, reward, terminated, truncated, info

    def cut(self, status: str, reason: str) -> None:
        """End the current episode in the log from outside the environment: one row after the last step.

        ``failed`` when the step budget ran out (the agent never answered), ``error`` when the
        model's provider failed (the episode is masked); ``reason`` goes in the row's ``error``.
        Later steps of the episode are not logged.
        """
        if status not in ("failed", "error"):
            raise ValueError(f"a cut episode is 'failed' or 'error', got {status!r}")
        self._over = True
        self.writer.write(
            self._row(
                reward=0.0,
                terminated=False,
                truncated=True,
                status=status,
                error=reason[:2000],
                seconds=0.0,
            )
        )

    def close(self) -> None:
        self.env.close()
        if self._own_writer:
            self.writer.close()


def _sources(paths: list[Path]) -> str:
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ValueError(f"no such trajectory file: {', '.join(missing)}")
    if not paths:
        raise ValueError("no trajectory files given")
    return "[" + ", ".join(quote_literal(str(p)) for p in paths) + "]"


def _relation(con: Any, paths: list[Path]) -> str:
    columns = "{" + ", ".join(f"'{k}': '{v}'" for k, v in COLUMNS.items()) + "}"
    return f"read_json({_sources(paths)}, format='newline_delimited', columns={columns})"


def export_trajectories(paths: list[str | Path], out: str | Path, fmt: str = "parquet") -> dict[str, Any]:
    """Write trajectory files as one Parquet (or JSONL) file through DuckDB; returns counts.

    Rows keep their order (file order, then line order); ``action``, ``observation`` and
    ``components`` stay JSON text so any consumer can parse them.
    """
    import duckdb

    if fmt not in ("parquet", "jsonl"):
        raise ValueError(f"--format must be parquet or jsonl, got {fmt!r}")
    files = [Path(p) for p in paths]
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(config={"autoinstall_known_extensions": "false"})
    try:
        source = _relation(con, files)
        options = "FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else "FORMAT json"
        target = quote_literal(str(out))
        try:
            con.execute(f"COPY (SELECT * FROM {source}) TO {target} ({options})")
            counted = con.execute(
                f"SELECT count(*), count(DISTINCT episode), count(*) FILTER (WHERE status IS NOT NULL), "
                f"count(*) FILTER (WHERE status = 'error') FROM {source}"
            ).fetchone()
        except duckdb.Error as exc:
            raise ValueError(f"cannot read trajectories ({exc})") from None
    finally:
        con.close()
    if counted is None:  # an aggregate always yields one row; this only narrows the type
        raise ValueError("cannot read trajectories (no counts)")
    rows, episodes, finals, errors = counted
    return {
        "out": str(out),
        "format": fmt,
        "rows": rows,
        "episodes": episodes,
        "finished": finals,
        "errors": errors,
    }
