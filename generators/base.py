"""The contract every procedural family module fulfils.

A family module under ``generators/families/<category>/`` defines, in this order:

``NAME``          the registry name (module name, snake_case)
``Config``        a frozen dataclass subclassing :class:`Knobs`; every knob has a default
                  and a range declared in ``RANGES``; ``validate()`` raises ``ValueError``
``LEVELS``        a tuple of dicts, level 0 (easiest) .. 5 (hardest): knob overrides; a
                  continuous ``difficulty`` in [0, 5] interpolates between neighbouring
                  levels (``generators.difficulty``), so no level may be easier than the
                  one before
``generate``      ``generate(config, rng) -> Problem``: pure, uses only ``rng``
``score``         optional ``score(answer_text, item) -> float``; default compares the
                  extracted answer with ``item["answer"]`` according to ``ANSWER_KIND``
``FAMILY``        ``Family(...)`` tying the above together

Item seeds pack (seed, index) beside a stable hash of (family, config) (``derive_seed``) so
that streams of different seeds never overlap and nothing depends on ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

GENERATOR_VERSION = "2.3.0"
"""Goes up when any family's items for a given seed change (1.1.0: n_queens and graph_coloring;
1.2.0: count_bits and family_relationships; 1.3.0: gcd_lcm, tower_of_hanoi level 2,
quantum_lock level 0; 2.0.0: every family, item seeds packed instead of hashed per item, see
``derive_seed``; 2.1.0: letter_counting, passages from fixed word streams; 2.2.0: acre, the
query drawn for the wanted label instead of redrawing trial sets; 2.3.0: rush_hour, puzzles picked
from pools made once per config), so a manifest tells which
items a seed meant."""

AnswerKind = Literal["int", "number", "text", "exact", "list", "set"]
"""How the default scorer compares an extracted answer with the gold one.

``int``    integers, formatting tolerant ("1,000", "1000.0", "+3")
``number`` floats/fractions within a relative tolerance of 1e-6 ("3/4" == "0.75")
``text``   case-, whitespace- and surrounding-punctuation-insensitive string equality
``exact``  whitespace-trimmed exact string equality (ciphers, sequences of moves)
``list``   ordered comma/space separated tokens, each compared as ``text``
``set``    unordered comma separated tokens, each compared as ``text``
"""


@dataclass(frozen=True)
class Knobs:
    """Base for a family's difficulty knobs.

    Subclasses declare ``RANGES = {"knob": (low, high)}`` for numeric knobs; ``validate``
    checks them and any extra rule a subclass adds by overriding ``check``.
    """

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {}

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        for name, (low, high) in self.RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{type(self).__qualname__}.{name} must be a number, got {value!r}")
            if not low <= value <= high:
                raise ValueError(f"{type(self).__qualname__}.{name}={value!r} is outside its range [{low}, {high}]")
        self.check()

    def check(self) -> None:
        """Cross-knob rules (e.g. ``min <= max``); raise ``ValueError`` with a clear message."""

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_NO_EXTRA: Mapping[str, Any] = {}


@dataclass(frozen=True, init=False)
class Problem:
    """What ``generate`` returns: the question, the gold answer as text, extra metadata.

    Built once per item: ``__init__`` fills the instance dict directly instead of the
    frozen dataclass's three ``object.__setattr__`` calls (half the cost); the instance
    stays frozen, compared and printed field by field.
    """

    question: str
    answer: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __init__(self, question: str, answer: str, extra: Mapping[str, Any] = _NO_EXTRA) -> None:
        fields = self.__dict__
        fields["question"] = question
        fields["answer"] = answer
        fields["extra"] = {} if extra is _NO_EXTRA else extra


@dataclass(frozen=True)
class Family:
    """A registered procedural task family."""

    name: str
    description: str
    config: type[Knobs]
    levels: tuple[Mapping[str, Any], ...]
    generate: Callable[[Any, random.Random], Problem]
    answer_kind: AnswerKind = "exact"
    score: Callable[[str, Mapping[str, Any]], float] | None = None
    notes: str = ""
    """Docs, e.g. where a level's item space is too small to stay unique."""
    choices: int | None = None
    """``k`` when the answer is by nature one of ``k`` labels (weekdays: 7). Such a family
    keeps its labels balanced and a constant answer may earn up to ``1/k + 0.05``;
    every other family stays at 0.10 (see ``generators.priors``)."""
    counterpart: str = ""
    """The peer dataset this family matches, ``"reasoning_gym:<name>"`` or ``"rlve:<name>"``
    (empty when it has none): the README table and the side-by-side benchmark read it."""

    def config_for_level(self, level: int) -> Knobs:
        if not 0 <= level < len(self.levels):
            raise ValueError(f"{self.name}: level must be in 0..{len(self.levels) - 1}, got {level!r}")
        return self.config(**dict(self.levels[level]))

    def level_numbers(self) -> tuple[int, ...]:
        """The levels it has: 0 to the hardest (``pipeline.families.TaskFamily``)."""
        return tuple(range(len(self.levels)))

    def knobs_at(self, level: int) -> dict[str, Any]:
        """Every knob ``level`` sets, defaults included (``ValueError`` outside the levels)."""
        return self.config_for_level(level).as_dict()

    def config_for_difficulty(self, difficulty: float) -> Knobs:
        """Knobs for a continuous ``difficulty`` in ``[0, len(levels) - 1]`` (see ``generators.difficulty``).

        An integer difficulty gives exactly :meth:`config_for_level`'s knobs.
        """
        from generators.difficulty import interpolate_knobs

        return self.config(**interpolate_knobs(self, difficulty))


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: the stable form hashed everywhere."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def stable_seed(*parts: object) -> int:
    """A 64-bit seed from ``parts`` joined by ``/`` and hashed: the same on every machine and
    Python (``hash()`` is salted per process), so worlds, variants, tasks and scripted episodes
    drawn from it repeat byte for byte. The one such helper the project has."""
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode("utf-8")).digest()[:8], "big")


PACKED_LIMIT = 1 << 64
"""Seeds and indices below this are packed into the item seed as they are."""
_HASHED = 1 << 192
"""Item seeds at or above this come from a hash of the whole payload (a seed or index out of
the packed range, a bool): they cannot meet a packed seed, which stays below it."""


def stream_key(family: str, config: Mapping[str, Any]) -> int:
    """64 bits of SHA-256 over the canonical JSON of (config, family): the stream's own part
    of every item seed, hashed once per (family, config) rather than once per item."""
    payload = canonical_json({"config": dict(config), "family": family})
    return int.from_bytes(hashlib.sha256(payload.encode()).digest()[:8], "big")


def _hashed_seed(family: str, config: Mapping[str, Any], seed: Any, index: Any) -> int:
    payload = canonical_json({"family": family, "config": dict(config), "seed": seed, "index": index})
    return _HASHED | int.from_bytes(hashlib.sha256(payload.encode()).digest(), "big") << 193


def derive_seed(family: str, config: Mapping[str, Any], seed: int, index: int) -> int:
    """The item seed: ``stream_key | seed << 64 | index << 128``, one to one in (stream, seed,
    index), so ``(s, i + 1)`` never equals ``(s + 1, i)`` and two streams meet only if their
    64-bit keys do.

    Packing rather than hashing each item is what makes it cheap: the Mersenne Twister takes
    an int seed of any size in the same time (``init_by_array`` runs over its 624 words
    whatever the key's length), and a SHA-256 per item cost more than the rest of the seeding
    besides. ``random.Random(n)`` is defined on ``abs(n)``'s 32-bit words, so the same int
    gives the same stream on every platform and Python; nothing here uses the salted
    ``hash()``. Seeds or indices outside ``[0, 2**64)`` and non-int ones (bools) are hashed
    whole instead, above every packed value.
    """
    if type(seed) is int and type(index) is int and 0 <= seed < PACKED_LIMIT and 0 <= index < PACKED_LIMIT:
        return stream_key(family, config) | seed << 64 | index << 128
    return _hashed_seed(family, config, seed, index)


def rng_for(family: str, config: Mapping[str, Any], seed: int, index: int) -> random.Random:
    return random.Random(derive_seed(family, config, seed, index))


class SeedStream:
    """``derive_seed`` for one (family, config), with the stream key hashed once, not per item."""

    __slots__ = ("config", "family", "key")

    def __init__(self, family: str, config: Mapping[str, Any]) -> None:
        self.family = family
        self.config = dict(config)
        self.key = stream_key(family, self.config)

    def seed(self, seed: int, index: int) -> int:
        if type(seed) is int and type(index) is int and 0 <= seed < PACKED_LIMIT and 0 <= index < PACKED_LIMIT:
            return self.key | seed << 64 | index << 128
        return _hashed_seed(self.family, self.config, seed, index)
