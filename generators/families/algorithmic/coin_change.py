"""Fewest coins to make an amount (unlimited coins of each denomination).

Tests dynamic programming against the tempting "largest coin first" greedy rule. Harder
levels use larger amounts and more denominations, keep only non-canonical coin systems
where greedy uses strictly more coins than needed (or fails although a solution exists),
and may ask for amounts that cannot be made at all (answer -1, kept rare). The answer is
the coins themselves (any smallest set is verified), not their count: counts cluster on a
few values that one constant answer would often hit.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS
from generators.base import Family, Knobs, Problem

NAME = "coin_change"

_MAX_TRIES = 300


@dataclass(frozen=True)
class Config(Knobs):
    num_coins: int = 3
    max_coin: int = 10
    max_amount: int = 30
    greedy_trap: bool = False
    """Only keep instances where the largest-coin-first greedy rule gives a wrong answer."""
    impossible_rate: float = 0.0
    """Share of items whose amount cannot be made (needs coins without a 1)."""

    RANGES: ClassVar = {
        "num_coins": (1, 8),
        "max_coin": (2, 200),
        "max_amount": (5, 5000),
        "impossible_rate": (0.0, 0.5),
    }

    def check(self) -> None:
        if self.num_coins > self.max_coin:
            raise ValueError("num_coins cannot exceed max_coin (denominations are distinct)")
        if self.greedy_trap and self.num_coins < 3:
            raise ValueError("greedy_trap needs at least 3 coins (1 plus two others)")


LEVELS = (
    {"num_coins": 3, "max_coin": 12, "max_amount": 40},
    {"num_coins": 3, "max_coin": 20, "max_amount": 60},
    {"num_coins": 3, "max_coin": 25, "max_amount": 80, "greedy_trap": True},
    {"num_coins": 4, "max_coin": 30, "max_amount": 120, "greedy_trap": True, "impossible_rate": 0.06},
    {"num_coins": 5, "max_coin": 50, "max_amount": 250, "greedy_trap": True, "impossible_rate": 0.06},
    {"num_coins": 6, "max_coin": 90, "max_amount": 600, "greedy_trap": True, "impossible_rate": 0.06},
)


@functools.lru_cache(maxsize=16)
def _table(coins: tuple[int, ...], amount: int) -> tuple[list[int], list[int]]:
    """Fewest coins for every value up to ``amount`` and the coin that last improved it.

    Coins are tried in the given order and only a strictly smaller count replaces the
    best, so ties keep the first coin (what the answer's multiset is built from). Cached:
    ``generate`` asks for the same table twice (the count, then the coins).
    """
    inf = amount + 1
    best = [0] + [inf] * amount
    last = [0] * (amount + 1)
    for value in range(1, amount + 1):
        count, pick = inf, 0
        for c in coins:
            if c <= value:
                candidate = best[value - c] + 1
                if candidate < count:
                    count, pick = candidate, c
        best[value], last[value] = count, pick
    return best, last


def min_coins(coins: list[int], amount: int) -> int:
    """Unbounded coin change by DP; -1 when the amount cannot be made."""
    best = _table(tuple(coins), amount)[0]
    return best[amount] if best[amount] <= amount else -1


def fewest_coins(coins: list[int], amount: int) -> list[int] | None:
    """One smallest multiset of coins (largest first) making ``amount``, or None."""
    best, last = _table(tuple(coins), amount)
    if best[amount] > amount:
        return None
    out: list[int] = []
    while amount:
        out.append(last[amount])
        amount -= last[amount]
    return sorted(out, reverse=True)


def greedy_coins(coins: list[int], amount: int) -> int:
    """Largest coin first; -1 when greedy gets stuck."""
    count = 0
    for c in sorted(coins, reverse=True):
        count += amount // c
        amount %= c
    return count if amount == 0 else -1


def _draw(config: Config, rng: random.Random, impossible: bool) -> tuple[list[int], int]:
    if impossible:
        # No coin of 1 and a shared factor > 1 make many amounts unreachable.
        factor = rng.choice([f for f in (2, 3, 5) if f * config.num_coins <= config.max_coin] or [2])
        pool = range(factor, config.max_coin + 1, factor)
        coins = rng.sample(pool, min(config.num_coins, len(pool)))
        amount = rng.randint(config.max_amount // 2, config.max_amount)
        if amount % factor == 0:
            amount += 1
        return sorted(coins), amount
    coins = sorted([1, *rng.sample(range(2, config.max_coin + 1), config.num_coins - 1)])
    return coins, rng.randint(config.max_amount // 2, config.max_amount)


def generate(config: Config, rng: random.Random) -> Problem:
    impossible = config.impossible_rate > 0 and rng.random() < config.impossible_rate
    for _ in range(_MAX_TRIES):
        coins, amount = _draw(config, rng, impossible)
        best = min_coins(coins, amount)
        if impossible or not config.greedy_trap or greedy_coins(coins, amount) != best:
            break
    question = (
        f"Coins come in denominations {', '.join(map(str, coins))}, with an unlimited supply "
        f"of each. Which smallest set of coins adds up to exactly {amount}? "
        "Answer with the coins' values separated by commas (repeat a coin used twice, e.g. "
        "10, 10, 3), or -1 if the amount cannot be made."
    )
    chosen = fewest_coins(coins, amount)
    return Problem(
        question=question,
        answer="-1" if chosen is None else ", ".join(map(str, chosen)),
        extra={"coins": coins, "amount": amount, "fewest": best, "greedy": greedy_coins(coins, amount)},
    )


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """Any multiset of the given coins summing to the amount with the fewest coins scores 1."""
    try:
        from generators.answers import extract_answer

        meta = item.get("metadata") or item.get("extra") or {}
        coins, amount, fewest = set(meta["coins"]), int(meta["amount"]), int(meta["fewest"])
        text = extract_answer(answer_text)
        if len(text) > 12 * max(fewest, 1) + 16 or text.count(",") > max(fewest, 1):  # too long to be right
            return 0.0
        tokens = text.strip().strip("[]()").replace(",", " ").split()
        if not tokens or not all(token.lstrip("+-").isdigit() and len(token) < 12 for token in tokens):
            return 0.0
        values = [int(token) for token in tokens]
        if fewest == -1:
            return 1.0 if values == [-1] else 0.0
        ok = len(values) == fewest and sum(values) == amount and all(v in coins for v in values)
        return 1.0 if ok else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The greedy set where it differs, the count alone, and -1 for a makeable amount."""
    meta = item["metadata"]
    out = ["-1"] if meta["fewest"] != -1 else [str(min(meta["coins"]))]
    if meta["fewest"] > 1:
        out.append(str(meta["fewest"]))
    return out


FAMILY = Family(
    name=NAME,
    description="A smallest set of coins for an amount (verified), with non-canonical coin systems.",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="list",
    score=score,
)
