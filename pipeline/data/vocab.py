"""Vocabularies (``templates/vocab/*.yaml``): drawn as whole columns, and recognised afterwards.

A vocabulary is data. Its values are a list (``values``, optional ``weights``), or
``patterns`` over named lists (``parts``), or ``groups`` of either picked by another field
of the row (product names per category). A pattern's slots are ``{part}`` (one of its
parts), ``{@name}`` (another vocabulary, or Faker's data: ``first_name``, ``last_name``,
``person_name``, ``city``, ``country``, ``company``) and ``{#lo-hi}`` (a whole number).

Drawing is vectorised like every other column: each slot is one numpy draw for all the
rows that use its pattern, then strings are joined per row. Each vocabulary also compiles
to a regular expression of exactly the values it can produce, which is how the realism
check proves a column's values came from its vocabulary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from pipeline.data import values as pv
from pipeline.world.vocab import vocab_dir, vocab_names
from pipeline.world.yamlfile import load_yaml

Array = np.ndarray
_SLOT = re.compile(r"\{([^{}]+)\}")
_RANGE = re.compile(r"^#(\d+)-(\d+)$")
BUILTINS = ("first_name", "last_name", "person_name", "city", "country", "company")
GROUP_DEFAULT = "default"
"""A group used for keys the vocabulary has no group for (else every group is used)."""


class VocabSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    values: tuple[str, ...] | None = None
    weights: tuple[float, ...] | None = None
    patterns: tuple[str, ...] | None = None
    pattern_weights: tuple[float, ...] | None = None
    parts: dict[str, tuple[str, ...]] = {}
    groups: dict[str, VocabSpec] | None = None

    @model_validator(mode="after")
    def _check(self) -> VocabSpec:
        kinds = [k for k in ("values", "patterns", "groups") if getattr(self, k)]
        if len(kinds) != 1:
            raise ValueError("a vocabulary has exactly one of values, patterns or groups")
        if self.values is not None and len(set(self.values)) != len(self.values):
            raise ValueError("values repeat")
        if self.weights is not None and (self.values is None or len(self.weights) != len(self.values)):
            raise ValueError("weights need values of the same length")
        if self.pattern_weights is not None and (
            self.patterns is None or len(self.pattern_weights) != len(self.patterns)
        ):
            raise ValueError("pattern_weights need patterns of the same length")
        for pattern in self.patterns or ():
            for slot in _SLOT.findall(pattern):
                if slot.startswith("@"):
                    if slot[1:] not in BUILTINS and slot[1:] not in vocab_names():
                        raise ValueError(f"pattern {pattern!r}: unknown vocabulary {slot!r}")
                elif not _RANGE.match(slot) and slot not in self.parts:
                    raise ValueError(f"pattern {pattern!r}: no part {slot!r}")
        for name, items in self.parts.items():
            if not items:
                raise ValueError(f"part {name!r} is empty")
        return self


@cache
def load_vocab(name: str) -> Vocabulary:
    path = vocab_dir() / f"{name}.yaml"
    if not path.is_file():
        raise ValueError(f"unknown vocabulary {name!r}")
    try:
        spec = VocabSpec.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    except ValueError as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    return Vocabulary(name, spec)


# -- drawing ------------------------------------------------------------------------------------


def _builtin(name: str, g: np.random.Generator, n: int) -> list[str]:
    v = pv.vocabularies()
    if name == "first_name":
        return v.first.draw(g, n).tolist()
    if name == "last_name":
        return v.last.draw(g, n).tolist()
    if name == "person_name":
        return pv.person_names(g, n)
    if name == "city":
        return pv.cities(g, n).tolist()
    if name == "country":
        return pv.countries(g, n).tolist()
    return pv.companies(g, n)


@dataclass(frozen=True)
class _Pattern:
    pieces: tuple[tuple[str, str], ...]
    """(kind, text): ('lit', text), ('part', name), ('vocab', name), ('range', 'lo-hi')."""


def _split(pattern: str) -> _Pattern:
    pieces: list[tuple[str, str]] = []
    pos = 0
    for m in _SLOT.finditer(pattern):
        if m.start() > pos:
            pieces.append(("lit", pattern[pos : m.start()]))
        slot = m.group(1)
        if slot.startswith("@"):
            pieces.append(("vocab", slot[1:]))
        elif _RANGE.match(slot):
            pieces.append(("range", slot[1:]))
        else:
            pieces.append(("part", slot))
        pos = m.end()
    if pos < len(pattern):
        pieces.append(("lit", pattern[pos:]))
    return _Pattern(tuple(pieces))


class Vocabulary:
    """One compiled vocabulary: draws columns, recognises values."""

    def __init__(self, name: str, spec: VocabSpec) -> None:
        self.name, self.spec = name, spec
        self.groups = {k: Vocabulary(f"{name}[{k}]", v) for k, v in (spec.groups or {}).items()}
        self.patterns = tuple(_split(p) for p in spec.patterns or ())
        self.parts = {k: pv.Vocab.of(list(v)) for k, v in spec.parts.items()}
        self.values = pv.Vocab.of(list(spec.values), spec.weights) if spec.values else None

    def draw(self, g: np.random.Generator, n: int, keys: Sequence[Any] | None = None) -> Array:
        """``n`` values; with ``keys`` (one per row), each row from the group its key names."""
        if self.groups:
            return self._draw_groups(g, n, keys)
        if self.values is not None:
            return self.values.draw(g, n)
        out = np.empty(n, dtype=object)
        weights = self.spec.pattern_weights or [1.0] * len(self.patterns)
        which = pv.weighted_indices(g, weights, n)
        for i, pattern in enumerate(self.patterns):
            rows = np.flatnonzero(which == i)
            if len(rows):
                out[rows] = pv.as_objects(self._fill(pattern, g, len(rows)))
        return out

    def _fill(self, pattern: _Pattern, g: np.random.Generator, n: int) -> list[str]:
        columns: list[Sequence[str]] = []
        for kind, text in pattern.pieces:
            if kind == "lit":
                columns.append([text] * n)
            elif kind == "part":
                columns.append(self.parts[text].draw(g, n).tolist())
            elif kind == "range":
                lo, hi = (int(x) for x in text.split("-"))
                columns.append([str(x) for x in g.integers(lo, hi + 1, n).tolist()])
            elif text in BUILTINS:
                columns.append(_builtin(text, g, n))
            else:
                columns.append(load_vocab(text).draw(g, n).tolist())
        return pv.cat(*columns)

    def _draw_groups(self, g: np.random.Generator, n: int, keys: Sequence[Any] | None) -> Array:
        names = sorted(self.groups)
        fallback = [GROUP_DEFAULT] if GROUP_DEFAULT in self.groups else [k for k in names if k != GROUP_DEFAULT]
        if keys is None:
            chosen = np.asarray(fallback, dtype=object)[g.integers(0, len(fallback), n)]
        else:
            texts = np.asarray([str(k) if k is not None else "" for k in keys])
            distinct, inverse = np.unique(texts, return_inverse=True)
            chosen = pv.as_objects([self.group_of(k) for k in distinct.tolist()])[inverse]
            unknown = chosen == ""
            if unknown.any():
                chosen[unknown] = np.asarray(fallback, dtype=object)[g.integers(0, len(fallback), int(unknown.sum()))]
        out = np.empty(n, dtype=object)
        for key in names:
            rows = np.flatnonzero(chosen == key)
            if len(rows):
                out[rows] = self.groups[key].draw(g, len(rows))
        return out

    @property
    def capacity(self) -> int:
        """About how many distinct values the vocabulary can produce (capped; Faker's pools count as large)."""
        cap = 10**7
        if self.groups:
            return min(cap, sum(g.capacity for g in self.groups.values()))
        if self.values is not None:
            return len(self.values.words)
        total = 0
        for pattern in self.patterns:
            size = 1
            for kind, text in pattern.pieces:
                if kind == "part":
                    size *= len(self.parts[text].words)
                elif kind == "range":
                    lo, hi = (int(x) for x in text.split("-"))
                    size *= hi - lo + 1
                elif kind == "vocab":
                    size *= 1000 if text in BUILTINS else load_vocab(text).capacity
                size = min(size, cap)
            total = min(cap, total + size)
        return total

    def group_of(self, key: Any, default: str = "") -> str:
        """The group a row's key picks: the key itself, or the key without a uniqueness number, or an
        enum value's lookup row named as people write it ("Guinea pig" for ``guinea_pig``)."""
        text = str(key) if key is not None else ""
        if text in self.groups:
            return text
        base = re.sub(r" \d+$", "", text)
        if base in self.groups:
            return base
        value = base.lower().replace(" ", "_")
        return value if value in self.groups else ""

    # -- recognising ------------------------------------------------------------------------

    @property
    def finite(self) -> frozenset[str] | None:
        if self.values is not None:
            return frozenset(self.values.words)
        return None

    def regex(self) -> str:
        if self.groups:
            return "(?:" + "|".join(g.regex() for _, g in sorted(self.groups.items())) + ")"
        if self.values is not None:
            return _alternation(self.values.words)
        return "(?:" + "|".join(self._pattern_regex(p) for p in self.patterns) + ")"

    def _pattern_regex(self, pattern: _Pattern) -> str:
        out = []
        for kind, text in pattern.pieces:
            if kind == "lit":
                out.append(re.escape(text))
            elif kind == "part":
                out.append(_alternation(self.parts[text].words))
            elif kind == "range":
                out.append(r"\d+")
            else:
                out.append(_builtin_regex(text) if text in BUILTINS else load_vocab(text).regex())
        return "".join(out)

    @cache  # noqa: B019 - vocabularies live for the process, like their compiled patterns
    def matcher(self, numbered: bool = False) -> re.Pattern[str]:
        """Full-match pattern of every value; ``numbered`` also accepts a uniqueness number (" 2")."""
        return re.compile(self.regex() + (r"(?: [0-9]+)?" if numbered else ""))


def _alternation(words: Sequence[str]) -> str:
    return "(?:" + "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w))) + ")"


@cache
def _builtin_regex(name: str) -> str:
    v = pv.vocabularies()
    first, last = _alternation(v.first.words), _alternation(v.last.words)
    if name == "first_name":
        return first
    if name == "last_name":
        return last
    if name == "person_name":
        return f"{first} {last}"
    if name == "city":
        return _alternation(pv.cities_list())
    if name == "country":
        return _alternation(v.countries.words)
    suffix = _alternation(v.company_suffix.words)
    return f"(?:{last} {suffix}|{last}-{last}|{last}, {last} and {last})"


def outside(vocab: Vocabulary, values: Sequence[str], numbered: bool = False) -> list[str]:
    """The distinct values the vocabulary cannot produce (empty when every value fits)."""
    finite = vocab.finite
    distinct = set(values)
    if finite is not None and not numbered:
        return sorted(distinct - finite)
    match = vocab.matcher(numbered).fullmatch
    return sorted(v for v in distinct if (finite is None or v not in finite) and not match(v))
