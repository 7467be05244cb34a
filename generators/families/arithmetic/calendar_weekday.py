"""Weekday (or date) a number of days before or after a given date.

Uses ``datetime.date`` arithmetic on the proleptic Gregorian calendar from fixed,
generated dates (never today's date). Early levels state the start date's weekday; later
ones expect the solver to work it out, over wider year ranges and longer offsets.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import ClassVar

from generators.base import Family, Knobs, Problem

NAME = "calendar_weekday"

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@dataclass(frozen=True)
class Config(Knobs):
    RANGES: ClassVar = {
        "max_offset": (1, 1_000_000),
        "min_year": (1000, 8000),
        "max_year": (1000, 8000),
        "date_share": (0.0, 1.0),
    }

    max_offset: int = 14
    min_year: int = 2000
    max_year: int = 2030
    give_weekday: bool = True
    backwards: bool = False
    date_share: float = 0.0
    """Share of questions asking for the date (YYYY-MM-DD) instead of the weekday."""

    def check(self) -> None:
        if self.min_year > self.max_year:
            raise ValueError(f"Config.min_year ({self.min_year}) exceeds max_year ({self.max_year})")
        for name in ("give_weekday", "backwards"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"Config.{name} must be a bool, got {getattr(self, name)!r}")


LEVELS = (
    {"max_offset": 14, "give_weekday": True},
    {"max_offset": 100, "give_weekday": True, "backwards": True},
    {"max_offset": 1000, "give_weekday": True, "backwards": True, "date_share": 0.3},
    {"max_offset": 1000, "min_year": 1990, "max_year": 2030, "give_weekday": False, "backwards": True},
    {
        "max_offset": 10_000,
        "min_year": 1800,
        "max_year": 2200,
        "give_weekday": False,
        "backwards": True,
        "date_share": 0.3,
    },
    {
        "max_offset": 100_000,
        "min_year": 1583,
        "max_year": 2400,
        "give_weekday": False,
        "backwards": True,
        "date_share": 0.5,
    },
)


def _long(date: dt.date) -> str:
    return f"{date.day} {_MONTHS[date.month - 1]} {date.year}"


def generate(config: Config, rng: random.Random) -> Problem:
    first = dt.date(config.min_year, 1, 1).toordinal()
    last = dt.date(config.max_year, 12, 31).toordinal()
    start = dt.date.fromordinal(rng.randint(first, last - 7))
    offset = rng.randint(1, config.max_offset)
    direction = "before" if config.backwards and rng.random() < 0.5 else "after"
    end = start + dt.timedelta(days=offset if direction == "after" else -offset)
    # Shift the start so that the answer's weekday is drawn uniformly: balanced labels.
    shift = (rng.randrange(7) - end.weekday()) % 7
    start += dt.timedelta(days=shift)
    end += dt.timedelta(days=shift)
    context = f"{_long(start)} is a {_WEEKDAYS[start.weekday()]}. " if config.give_weekday else ""
    if rng.random() < config.date_share:
        question = f"{context}What is the date {offset} days {direction} {_long(start)}? Answer as YYYY-MM-DD."
        answer = end.isoformat()
    else:
        question = (
            f"{context}What day of the week is {offset} days {direction} {_long(start)} "
            "(Gregorian calendar)? Answer with the weekday name."
        )
        answer = _WEEKDAYS[end.weekday()]
    return Problem(question, answer, {"start": start.isoformat(), "offset": offset, "direction": direction})


FAMILY = Family(
    name=NAME,
    counterpart="reasoning_gym:calendar_arithmetic",
    description="Weekday or date a given number of days before or after a date.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    choices=7,
    answer_kind="text",
)
