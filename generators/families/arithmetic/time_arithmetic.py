"""Clock and duration arithmetic, including crossing midnight.

Question types: when does something end (start + duration), when did it start (end -
duration), and how many minutes pass between two clock times. Later levels chain several
durations, use the 12-hour clock, and add seconds. Scoring reads any clock spelling of the
same time of day ("2:05", "02:05", "2:05 AM" for 02:05) and refuses lists.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, compare, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "time_arithmetic"

_KINDS = ("end", "start", "between")
_DAY = 24 * 3600
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([ap])\.?\s*m\.?)?$", re.IGNORECASE)


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {"max_duration_minutes": (1, 100_000), "legs": (1, 6)}

    max_duration_minutes: int = 120
    legs: int = 1
    kinds: str = "end"
    twelve_hour: bool = False
    seconds: bool = False

    def check(self) -> None:
        kinds = self.kinds.split(",") if isinstance(self.kinds, str) else []
        if not kinds or any(kind not in _KINDS for kind in kinds) or len(set(kinds)) != len(kinds):
            raise ValueError(f"Config.kinds must be distinct names from {', '.join(_KINDS)}, got {self.kinds!r}")
        for name in ("twelve_hour", "seconds"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"Config.{name} must be a bool, got {getattr(self, name)!r}")


LEVELS = (
    {"max_duration_minutes": 180, "kinds": "end"},
    {"max_duration_minutes": 600, "kinds": "end,start"},
    {"max_duration_minutes": 900, "kinds": "end,start,between"},
    {"max_duration_minutes": 900, "legs": 2, "kinds": "end,start,between", "twelve_hour": True},
    {"max_duration_minutes": 2000, "legs": 3, "kinds": "end,start,between", "twelve_hour": True},
    {"max_duration_minutes": 3000, "legs": 4, "kinds": "end,start,between", "twelve_hour": True, "seconds": True},
)


def parse_clock(text: str) -> int | None:
    """Seconds after midnight for ``14:05``, ``2:05 pm``, ``02:05:09``; ``None`` otherwise."""
    match = _CLOCK.match(text.strip())
    if not match:
        return None
    hours, minutes, seconds = int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)
    half = (match.group(4) or "").lower()
    if minutes > 59 or seconds > 59:
        return None
    if half:
        if not 1 <= hours <= 12:
            return None
        hours = hours % 12 + (12 if half == "p" else 0)
    elif hours > 23:
        return None
    return hours * 3600 + minutes * 60 + seconds


def format_clock(seconds: int, twelve_hour: bool, with_seconds: bool) -> str:
    seconds %= _DAY
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    tail = f":{secs:02d}" if with_seconds else ""
    if twelve_hour:
        half = "AM" if hours < 12 else "PM"
        return f"{hours % 12 or 12}:{minutes:02d}{tail} {half}"
    return f"{hours:02d}:{minutes:02d}{tail}"


def format_duration(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = []
    if hours:
        parts.append(f"{hours} hour{'s' if hours != 1 else ''}")
    if minutes:
        parts.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    if secs:
        parts.append(f"{secs} second{'s' if secs != 1 else ''}")
    return " ".join(parts) or "0 minutes"


def _duration(config: Config, rng: random.Random) -> int:
    seconds = rng.randint(1, config.max_duration_minutes) * 60
    if config.seconds:
        seconds += rng.randint(0, 59)
    return seconds


def generate(config: Config, rng: random.Random) -> Problem:
    kind = rng.choice(config.kinds.split(","))
    step = 1 if config.seconds else 60
    clock = rng.randrange(0, _DAY, step)
    fmt = {"twelve_hour": config.twelve_hour, "with_seconds": config.seconds}
    style = "12-hour format like 3:07 PM" if config.twelve_hour else "24-hour format HH:MM"
    if config.seconds:
        style = style.replace("3:07 PM", "3:07:09 PM").replace("HH:MM", "HH:MM:SS")
    if kind == "between":
        other = rng.randrange(0, _DAY, step)
        gap = (other - clock) % _DAY or _DAY
        unit = "seconds" if config.seconds else "minutes"
        question = (
            f"A clock shows {format_clock(clock, **fmt)}. How many {unit} pass until it next shows "
            f"{format_clock(other, **fmt)}? Give a single integer."
        )
        return Problem(question, str(gap // (1 if config.seconds else 60)), {"kind": kind})
    legs = [_duration(config, rng) for _ in range(config.legs)]
    described = ", then ".join(format_duration(leg) for leg in legs)
    if kind == "end":
        answer = clock + sum(legs)
        question = (
            f"A journey starts at {format_clock(clock, **fmt)} and takes {described}. "
            f"At what clock time does it end? Answer in {style}."
        )
    else:
        answer = clock - sum(legs)
        question = (
            f"A job finished at {format_clock(clock, **fmt)} after running {described}. "
            f"At what clock time did it start? Answer in {style}."
        )
    return Problem(question, format_clock(answer, **fmt), {"kind": kind})


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    try:
        gold = str(item["answer"])
        extracted = extract_answer(answer_text)
        if gold.isdigit():
            return compare("int", extracted, gold)
        got, want = parse_clock(extracted), parse_clock(gold)
        return 1.0 if got is not None and got == want else 0.0
    except ANSWER_ERRORS:
        return 0.0


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:time_intervals",
    description="Clock times and durations across midnight, 24- and 12-hour clocks.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="text",
    score=score,
)
