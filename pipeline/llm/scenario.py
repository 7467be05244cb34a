"""A scenario: the one line a user writes ("Amazon: an e-commerce platform where…").

A scenario is untrusted text. It only ever reaches a prompt; the one thing derived from
it that names anything on disk is :attr:`Scenario.slug`, built here from a whitelist of
characters, so a name like ``../../etc`` or ``x'); DROP TABLE y`` becomes a harmless
identifier. Files of scenarios use Agent World Model's seed format: one JSON object per
line with ``name`` and ``description``.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

MAX_NAME = 80
MAX_DESCRIPTION = 4000
MAX_SCENARIOS = 10_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_NON_WORD = re.compile(r"[^a-z0-9]+")


class Scenario(BaseModel):
    """What the world is about; everything else is designed from it."""

    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=MAX_NAME)
    description: str = Field(min_length=1, max_length=MAX_DESCRIPTION)

    @field_validator("name", "description")
    @classmethod
    def _printable(cls, value: str) -> str:
        if _CONTROL.search(value):
            raise ValueError("must not contain control characters")
        return value

    @property
    def slug(self) -> str:
        """A snake_case identifier for the blueprint and bundle name (never taken from a response)."""
        ascii_name = unicodedata.normalize("NFKD", self.name).encode("ascii", "ignore").decode().lower()
        words = [w for w in _NON_WORD.split(ascii_name) if w][:6]
        slug = "_".join(words)[:32].strip("_")
        if not slug or not slug[0].isalpha():
            digest = hashlib.sha256(self.name.encode()).hexdigest()[:8]
            slug = f"scenario_{slug}" if slug else f"scenario_{digest}"
        return slug[:40]

    def line(self) -> str:
        return f"{self.name}: {self.description}"


def parse_scenario(text: str) -> Scenario:
    """``"NAME: description"`` as the command line takes it."""
    name, sep, description = text.partition(":")
    if not sep or not name.strip() or not description.strip():
        raise ValueError('a scenario reads "NAME: description" (a name, a colon, then what the world is about)')
    return _validated({"name": name, "description": description})


def _validated(data: object) -> Scenario:
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'scenario'}: {e['msg']}" for e in exc.errors())
        raise ValueError(f"invalid scenario: {problems}") from None


def load_scenarios(path: Path) -> tuple[list[Scenario], list[tuple[int, str]]]:
    """The valid scenarios of a JSONL file, and (line number, reason) for each line refused."""
    good: list[Scenario] = []
    bad: list[tuple[int, str]] = []
    with Path(path).open(encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            if len(good) + len(bad) >= MAX_SCENARIOS:
                raise ValueError(f"{path}: more than {MAX_SCENARIOS} scenarios")
            try:
                data = json.loads(raw)
                if not isinstance(data, dict):
                    raise ValueError('each line must be a JSON object with "name" and "description"')
                good.append(_validated(data))
            except ValueError as exc:  # json.JSONDecodeError is a ValueError
                bad.append((number, str(exc)))
    return good, bad
