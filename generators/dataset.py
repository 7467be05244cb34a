"""Datasets of generated items: deterministic, deduplicated, and mixable by weight.

Item ``i`` of a family is generated from ``rng_for(family, knobs, seed, i)`` alone, so any
item can be regenerated from its metadata. Duplicates (same normalised question) are
skipped by drawing further indices; the share of draws that were new is recorded as
``uniqueness_ratio`` because a small item space is a property worth seeing, not hiding.
"""

from __future__ import annotations

import _random
import hashlib
import math
import random
import threading
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

from generators.base import GENERATOR_VERSION, PACKED_LIMIT, Family, Knobs, SeedStream, canonical_json, derive_seed
from generators.difficulty import check_difficulty, interpolate_knobs
from generators.fastrandom import FastRandom
from generators.registry import get_family
from generators.scoring import ScorerError, score_checked

__all__ = [
    "CompositeDataset",
    "Dataset",
    "InsufficientUniqueItems",
    "ScorerError",
    "create_composite",
    "create_dataset",
    "resolve_config",
    "score",
]

ATTEMPTS_PER_ITEM = 20
"""Draw at most this many indices per requested item before giving up on uniqueness."""


class InsufficientUniqueItems(ValueError):
    """The family/level cannot produce ``size`` distinct questions within the attempt budget."""


def canonical_question(question: str) -> str:
    """The dedup key: NFKC text with whitespace runs collapsed."""
    return " ".join(unicodedata.normalize("NFKC", question).split())


def _check_int(name: str, value: Any, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return value


def resolve_config(
    family: Family,
    level: int | None,
    config: Knobs | Mapping[str, Any] | None,
    difficulty: float | None = None,
) -> Knobs:
    """Knobs for a request: a level's (or a difficulty's) overrides, then explicit ``config``
    overrides on top.

    ``config`` may be a ready ``Knobs`` of the family (used as is) or a mapping of knob
    names; unknown names and bad values raise ``ValueError``. ``level`` and ``difficulty``
    exclude each other.
    """
    if level is not None:
        _check_int("level", level)
        if difficulty is not None:
            raise ValueError("give a level or a difficulty, not both")
    if isinstance(config, Knobs):
        if not isinstance(config, family.config):
            raise ValueError(
                f"{family.name}: config must be a {family.config.__qualname__}, got {type(config).__qualname__}"
            )
        return config
    base: dict[str, Any] = {}
    if level is not None:
        if not 0 <= level < len(family.levels):
            raise ValueError(f"{family.name}: level must be in 0..{len(family.levels) - 1}, got {level!r}")
        base = dict(family.levels[level])
    elif difficulty is not None:
        base = interpolate_knobs(family, difficulty)
    if config is not None:
        if not isinstance(config, Mapping):
            raise ValueError(
                f"config must be a mapping or {family.config.__qualname__}, got {type(config).__qualname__}"
            )
        fields = set(family.config.__dataclass_fields__)
        unknown = sorted(str(key) for key in config if key not in fields)
        if unknown:
            raise ValueError(
                f"{family.name}: unknown knob(s) {', '.join(unknown)}; knobs are {', '.join(sorted(fields))}"
            )
        base.update(config)
    try:
        return family.config(**base)
    except TypeError as error:  # e.g. a non-field passed through a level table
        raise ValueError(f"{family.name}: bad knobs {base!r}: {error}") from error


def _family(family: str | Family) -> Family:
    return family if isinstance(family, Family) else get_family(family)


def score(family: str | Family, answer_text: Any, item: Mapping[str, Any]) -> float:
    """Reward in [0, 1] for ``answer_text`` on ``item`` (:func:`generators.scoring.score_checked`).

    A wrong or unreadable answer scores 0.0; a scorer that cannot run (a malformed item, a
    bug) raises :class:`ScorerError` rather than passing for a failed answer.
    """
    return score_checked(family, answer_text, item)


@dataclass(frozen=True)
class Dataset(Sequence[dict[str, Any]]):
    """Generated items of one family and knob setting, in generation order."""

    family: str
    level: int | None
    seed: int
    config: Knobs
    items: tuple[dict[str, Any], ...]
    attempts: int
    """Indices drawn, duplicates included."""
    requested: int
    difficulty: float | None = None
    """The continuous difficulty the knobs came from (``None`` when a level or config did)."""

    @property
    def uniqueness_ratio(self) -> float:
        """Share of draws that produced a new question (1.0 when nothing was drawn)."""
        return len(self.items) / self.attempts if self.attempts else 1.0

    @property
    def duplicates(self) -> int:
        return self.attempts - len(self.items)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.items)

    def score(self, answer_text: Any, item: Mapping[str, Any] | int) -> float:
        """Score against an item or the item at an index."""
        target = self.items[item] if isinstance(item, int) else item
        return score(self.family, answer_text, target)

    def stats(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "level": self.level,
            "difficulty": self.difficulty,
            "size": len(self.items),
            "requested": self.requested,
            "attempts": self.attempts,
            "uniqueness_ratio": self.uniqueness_ratio,
        }


_STREAMS: dict[tuple[str, Knobs], tuple[dict[str, Any], SeedStream]] = {}
"""Per (family, knobs): the knob dict and stream key, built once rather than per item."""
_MAX_STREAMS = 1024


_LAST: tuple[str, Knobs | None, tuple[dict[str, Any], SeedStream]] = ("", None, ({}, SeedStream("", {})))
"""The last (family, knobs object) looked up: a run of items of one config skips hashing the knobs."""


def _stream(family: Family, config: Knobs) -> tuple[dict[str, Any], SeedStream | None]:
    global _LAST
    last = _LAST
    if last[1] is config and last[0] == family.name:
        return last[2]
    try:
        cached = _STREAMS.get((family.name, config))
    except TypeError:  # a knob value that cannot be hashed: no cache
        return config.as_dict(), None
    if cached is None:
        knobs = config.as_dict()
        cached = (knobs, SeedStream(family.name, knobs))
        if len(_STREAMS) >= _MAX_STREAMS:
            _STREAMS.clear()
        _STREAMS[family.name, config] = cached
    _LAST = (family.name, config, cached)
    return cached


_LOCAL = threading.local()
_C_SEED = _random.Random.seed


def _seeded(seed: int) -> random.Random:
    """This thread's Random, in exactly the state ``random.Random(seed)`` starts in.

    Re-seeding one instance through the C ``seed`` skips an allocation and two Python
    wrappers per item; ``gauss_next`` is what ``random.Random.seed`` also resets. A family
    must not keep its ``rng`` past ``generate`` (none does).
    """
    rng: random.Random | None = getattr(_LOCAL, "rng", None)
    if rng is None:
        rng = _LOCAL.rng = FastRandom()
    _C_SEED(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined]  # not in typeshed; random.Random.seed resets it too
    return rng


def make_item(
    family: Family, config: Knobs, level: int | None, seed: int, index: int, difficulty: float | None = None
) -> dict[str, Any]:
    """Item ``index`` of the stream ``(family, config, seed)``; pure and reproducible.

    ``difficulty`` (when the knobs came from one) goes into the metadata; the item itself
    depends on the knobs only, so difficulty 2.0 and level 2 give the same question.
    """
    knobs, stream = _stream(family, config)
    if (
        stream is not None
        and type(seed) is int
        and type(index) is int
        and 0 <= seed < PACKED_LIMIT
        and 0 <= index < PACKED_LIMIT
    ):
        item_seed = stream.key | seed << 64 | index << 128  # SeedStream.seed inline: once per item
    else:  # bools, int subclasses, out-of-range ints, unhashable knobs: the general path
        item_seed = derive_seed(family.name, knobs, seed, index)
    rng = _LOCAL.__dict__.get("rng")
    if rng is None:
        rng = _seeded(item_seed)
    else:  # _seeded inline
        _C_SEED(rng, item_seed)
        rng.gauss_next = None
    problem = family.generate(config, rng)
    metadata: dict[str, Any] = {
        "family": family.name,
        "level": level,
        "knobs": knobs.copy(),
        "seed": seed,
        "index": index,
        "generator_version": GENERATOR_VERSION,
    }
    if difficulty is not None:
        metadata["difficulty"] = difficulty
    extra = problem.extra
    if extra:
        for key, value in extra.items():
            metadata.setdefault(key, value)
    return {"question": problem.question, "answer": problem.answer, "metadata": metadata}


def create_dataset(
    family: str | Family,
    level: int | None = None,
    seed: int = 0,
    size: int = 100,
    config: Knobs | Mapping[str, Any] | None = None,
    *,
    on_shortfall: Literal["raise", "truncate"] = "raise",
    max_attempts: int | None = None,
    difficulty: float | None = None,
) -> Dataset:
    """``size`` distinct items of ``family`` at ``level`` (default 0) or at a continuous
    ``difficulty`` in ``[0, 5]`` (``generators.difficulty``) from ``seed``.

    An integral difficulty is that level (same knobs and items; the metadata records
    ``difficulty`` and ``level``); any other sets ``level`` to ``None`` in the metadata.

    Raises :class:`InsufficientUniqueItems` (a ``ValueError``) when fewer than ``size``
    distinct questions turn up within ``max_attempts`` draws (default 20 per item), unless
    ``on_shortfall="truncate"``, which returns the shorter dataset.
    """
    fam = _family(family)
    _check_int("seed", seed)
    _check_int("size", size)
    if on_shortfall not in ("raise", "truncate"):
        raise ValueError(f"on_shortfall must be 'raise' or 'truncate', got {on_shortfall!r}")
    if difficulty is not None:
        if level is not None:
            raise ValueError("give a level or a difficulty, not both")
        difficulty = check_difficulty(fam, difficulty)
        level = int(difficulty) if difficulty.is_integer() else None
        cfg = resolve_config(fam, None, config, difficulty)
    else:
        if level is None and config is None:
            level = 0
        cfg = resolve_config(fam, level, config)
    budget = ATTEMPTS_PER_ITEM * size if max_attempts is None else _check_int("max_attempts", max_attempts)
    seen: set[bytes] = set()
    items: list[dict[str, Any]] = []
    index = 0
    while len(items) < size and index < budget:
        item = make_item(fam, cfg, level, seed, index, difficulty)
        index += 1
        key = hashlib.sha256(canonical_question(item["question"]).encode()).digest()
        if key in seen:
            continue
        seen.add(key)
        items.append(item)
    if len(items) < size and on_shortfall == "raise":
        raise InsufficientUniqueItems(
            f"{fam.name} (level={level}, knobs={canonical_json(cfg.as_dict())}): only {len(items)} distinct "
            f"items of {size} requested after {index} draws; lower size or use harder knobs"
        )
    return Dataset(fam.name, level, seed, cfg, tuple(items), index, size, difficulty)


def _unit_interval(*parts: Any) -> float:
    digest = hashlib.sha256(canonical_json(list(parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class CompositeDataset(Sequence[dict[str, Any]]):
    """Several families interleaved by weight; each family's items come from its own dataset."""

    weights: Mapping[str, float]
    seed: int
    datasets: Mapping[str, Dataset]
    order: tuple[tuple[str, int], ...]
    """For each position: (family, index into that family's dataset)."""
    items: tuple[dict[str, Any], ...] = field(repr=False, default=())

    def __getitem__(self, index: Any) -> Any:
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.items)

    def score(self, answer_text: Any, item: Mapping[str, Any] | int) -> float:
        target = self.items[item] if isinstance(item, int) else item
        return score(target["metadata"]["family"], answer_text, target)

    @property
    def uniqueness_ratio(self) -> dict[str, float]:
        return {name: ds.uniqueness_ratio for name, ds in self.datasets.items()}


def create_composite(
    specs: Mapping[str, float],
    level: int | Mapping[str, int] | None = None,
    seed: int = 0,
    size: int = 100,
    configs: Mapping[str, Knobs | Mapping[str, Any]] | None = None,
    *,
    on_shortfall: Literal["raise", "truncate"] = "raise",
    difficulty: float | Mapping[str, float] | None = None,
) -> CompositeDataset:
    """Mix families by weight: position ``j`` picks a family from a SHA-256 of (specs, seed, j).

    ``level`` is one level for all families or a per-family mapping; so is ``difficulty``
    (they exclude each other; a family missing from a difficulty mapping gets level 0). The choice depends
    only on the sorted specs, the seed and the position, never on ``PYTHONHASHSEED``.
    """
    if not isinstance(specs, Mapping) or not specs:
        raise ValueError("specs must be a non-empty mapping {family: weight}")
    _check_int("seed", seed)
    _check_int("size", size)
    names = sorted(specs)
    for name in names:
        weight = specs[name]
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight < 0:
            raise ValueError(f"weight of {name!r} must be a finite number >= 0, got {weight!r}")
        get_family(name)
    total = float(sum(specs[name] for name in names))
    if total <= 0:
        raise ValueError("at least one weight must be > 0")
    levels = dict(level) if isinstance(level, Mapping) else dict.fromkeys(names, level)
    unknown = sorted(set(levels) - set(names))
    if unknown:
        raise ValueError(f"levels given for families not in specs: {', '.join(unknown)}")
    if difficulty is not None and level is not None:
        raise ValueError("give a level or a difficulty, not both")
    difficulties = dict(difficulty) if isinstance(difficulty, Mapping) else dict.fromkeys(names, difficulty)
    unknown = sorted(set(difficulties) - set(names))
    if unknown:
        raise ValueError(f"difficulties given for families not in specs: {', '.join(unknown)}")
    for name, value in difficulties.items():
        if value is not None:
            check_difficulty(get_family(name), value)
    configs = dict(configs or {})
    spec_key = [[name, float(specs[name])] for name in names]
    order: list[tuple[str, int]] = []
    counts = dict.fromkeys(names, 0)
    for position in range(size):
        point = _unit_interval("composite", spec_key, seed, position) * total
        chosen = names[-1]
        running = 0.0
        for name in names:
            running += specs[name]
            if point < running and specs[name] > 0:
                chosen = name
                break
        order.append((chosen, counts[chosen]))
        counts[chosen] += 1
    datasets = {
        name: create_dataset(
            name,
            level=levels.get(name),
            seed=seed,
            size=counts[name],
            config=configs.get(name),
            on_shortfall=on_shortfall,
            difficulty=difficulties.get(name),
        )
        for name in names
        if counts[name] > 0
    }
    items: list[dict[str, Any]] = []
    kept_order: list[tuple[str, int]] = []
    for name, k in order:
        if k < len(datasets[name]):
            items.append(datasets[name][k])
            kept_order.append((name, k))
    return CompositeDataset(dict(specs), seed, datasets, tuple(kept_order), tuple(items))
