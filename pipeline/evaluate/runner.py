"""A resumable evaluation run: which episodes to play, which are done, where results go.

A run lives in one directory:

``run.json``          what is evaluated, by which policy, under which config (written first)
``episodes.jsonl``    one :class:`~pipeline.evaluate.episode.EpisodeResult` row per finished episode
``trajectories.jsonl`` the trajectory log: every reset and step of every episode
``report.json``, ``report.html``  written by :func:`pipeline.evaluate.report.write_report`

An episode is the pair (task id, trial). Starting again in the same directory plays only
the pairs without a row, and those whose last row is an infrastructure ``error`` (the
provider may be back); a directory started with another bundle, policy, config or trial
count is refused rather than mixed. Rows are appended whole under a lock, so a run
stopped at any moment loses at most the episodes in flight; a torn last line (a kill
mid-write) is dropped on the next start.
"""

from __future__ import annotations

import fnmatch
import json
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.evaluate import trajectory
from pipeline.evaluate.config import EvalConfig
from pipeline.evaluate.episode import EpisodeResult, is_procedural, run_episode

RUN_FORMAT = 1


def task_rows(env: Any) -> list[tuple[str, str, int]]:
    """(task id, family, level) of every task, in bundle order."""
    out = []
    for t in env.tasks:
        if isinstance(t, dict):
            out.append((str(t["id"]), str(t["metadata"]["family"]), int(t["metadata"]["level"])))
        else:
            out.append((t.id, t.family, int(t.level)))
    return out


def _levels(text: str) -> set[int]:
    low, _, high = text.partition("-")
    try:
        a, b = int(low), int(high or low)
    except ValueError:
        raise ValueError(f"a level is N or N-M, got {text!r}") from None
    return set(range(a, b + 1))


def select(tasks: list[tuple[str, str, int]], selection: str | None) -> list[str]:
    """Task ids matching ``selection``: comma-separated ids or id globs (``lookup-00*``), families
    (``lookup``), ``family:LEVELS`` or ``level:LEVELS`` (``LEVELS`` = ``N`` or ``N-M``); none = all.

    An item that matches nothing is an error (a typo must not silently shrink the run).
    """
    if not selection or not selection.strip():
        return [t[0] for t in tasks]
    families = {t[1] for t in tasks}
    chosen: set[str] = set()
    for item in (s.strip() for s in selection.split(",")):
        if not item:
            continue
        head, sep, tail = item.partition(":")
        if sep and head == "level":
            want = _levels(tail)
            hits = {t[0] for t in tasks if t[2] in want}
        elif sep and head in families:
            want = _levels(tail)
            hits = {t[0] for t in tasks if t[1] == head and t[2] in want}
        elif item in families:
            hits = {t[0] for t in tasks if t[1] == item}
        else:
            hits = {t[0] for t in tasks if fnmatch.fnmatchcase(t[0], item)}
        if not hits:
            raise ValueError(
                f"--tasks item {item!r} matches no task; families: {', '.join(sorted(families))}; "
                "items are ids, id globs, FAMILY, FAMILY:LEVELS or level:LEVELS"
            )
        chosen |= hits
    return [t[0] for t in tasks if t[0] in chosen]


@dataclass(frozen=True)
class RunInfo:
    """``run.json``: the identity of a run; a resume must match it."""

    bundle: str
    """What the run loaded: an absolute bundle directory or a registry reference."""
    ref: str
    digest: str
    kind: str
    policy: str
    config: dict[str, Any]
    config_id: str
    trials: int
    tasks: list[str]
    selection: str | None = None
    format: int = RUN_FORMAT

    def identity(self) -> dict[str, Any]:
        return {
            "digest": self.digest,
            "policy": self.policy,
            "config_id": self.config_id,
            "trials": self.trials,
            "tasks": self.tasks,
        }


def read_episodes(path: Path) -> list[dict[str, Any]]:
    """Rows of ``episodes.jsonl``; a torn last line is dropped (and cut from the file)."""
    if not path.is_file():
        return []
    raw = path.read_bytes()
    lines = raw.splitlines(keepends=True)
    rows, good = [], 0
    for number, line in enumerate(lines, start=1):
        try:
            if not line.endswith(b"\n"):
                raise ValueError("no newline: the write did not finish")
            rows.append(json.loads(line))
        except ValueError:
            if number == len(lines):
                break
            raise ValueError(f"{path}: row {number} is damaged (not the last one: not a torn write)") from None
        good += len(line)
    if good != len(raw):
        with path.open("r+b") as fh:
            fh.truncate(good)
    return rows


def latest(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    """The last row per (task, trial)."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for row in rows:
        out[(str(row["task_id"]), int(row["trial"]))] = row
    return out


@dataclass
class Evaluation:
    """One run over a loaded bundle; :meth:`play` may be called from many threads."""

    bundle: Any
    source: str
    policy: Any
    config: EvalConfig
    trials: int
    out: Path
    selection: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _local: threading.local = field(default_factory=threading.local)

    def __post_init__(self) -> None:
        if not 1 <= self.trials <= 1000:
            raise ValueError(f"trials must be in 1..1000, got {self.trials}")
        self.out = Path(self.out)
        probe = self._env()
        self.tasks = {t[0]: t for t in task_rows(probe)}
        self.selected = select(list(self.tasks.values()), self.selection)
        self.info = RunInfo(
            bundle=self.source,
            ref=self.bundle.ref,
            digest=self.bundle.digest,
            kind=self.bundle.manifest.kind,
            policy=self.policy.name,
            config=self.config.as_dict(),
            config_id=self.config.config_id(),
            trials=self.trials,
            tasks=self.selected,
            selection=self.selection,
        )
        self._open_dir()
        self.writer = trajectory.open_log(self.out / "trajectories.jsonl")

    @property
    def episodes_path(self) -> Path:
        return self.out / "episodes.jsonl"

    def _open_dir(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        path = self.out / "run.json"
        if path.is_file():
            before = json.loads(path.read_text(encoding="utf-8"))
            mine = self.info.identity()
            theirs = {k: before.get(k) for k in mine}
            if theirs != mine:
                diff = sorted(k for k in mine if mine[k] != theirs[k])
                raise ValueError(
                    f"{self.out} holds a run with another {', '.join(diff)}; give another --out to start a new run"
                )
            return
        path.write_text(json.dumps(self.info.__dict__, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    def _env(self) -> Any:
        """This thread's environment (environments run one episode at a time)."""
        env = getattr(self._local, "env", None)
        if env is None:
            if self.bundle.manifest.kind == "procedural":
                from pipeline.runtime.procedural import ProceduralEnvironment

                env = ProceduralEnvironment(self.bundle)
            else:
                from pipeline.runtime.environment import Environment

                env = Environment(self.bundle)
            self._local.env = env
        return env

    def pending(self) -> list[tuple[str, list[int]]]:
        """(task id, trials still to play) for every selected task that has any, in bundle order."""
        done = {key for key, row in latest(read_episodes(self.episodes_path)).items() if row.get("status") != "error"}
        out = []
        for tid in self.selected:
            trials = [k for k in range(self.trials) if (tid, k) not in done]
            if trials:
                out.append((tid, trials))
        return out

    def play(self, task_id: str, trials: list[int]) -> list[dict[str, Any]]:
        """Play the given trials of one task in order, appending each result as it finishes."""
        env = self._env()
        rows = []
        for trial in trials:
            result: EpisodeResult = run_episode(env, self.writer, self.policy, self.config, task_id, trial)
            row = {
                "bundle": self.source,
                "ref": self.bundle.ref,
                "digest": self.bundle.digest,
                "policy": self.policy.name,
                "config_id": self.info.config_id,
                **result.as_dict(),
            }
            line = json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n"
            with self._lock, self.episodes_path.open("a", encoding="utf-8") as fh:
                fh.write(line)
            rows.append(row)
        return rows

    def results(self) -> list[dict[str, Any]]:
        """The last row of every selected (task, trial), sorted: what the report is computed from."""
        rows = latest(read_episodes(self.episodes_path))
        wanted = set(self.selected)
        return [rows[key] for key in sorted(rows) if key[0] in wanted and key[1] < self.trials]

    def close(self) -> None:
        self.writer.close()

    @property
    def procedural(self) -> bool:
        return is_procedural(self._env())
