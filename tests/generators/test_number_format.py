"""number_format: the gold is the extreme of the printed options (each parsed with Decimal),
any format of that value scores 1, and the option number, neighbours or roundings score 0."""

from __future__ import annotations

import re
from decimal import Decimal

from generators.dataset import create_dataset, score

NAME = "number_format"


def test_gold_is_extreme_of_printed_options() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=3, size=30):
            options = [
                Decimal(v.replace(",", "")) for v in re.findall(r"^\d+\) (\S+)$", item["question"], re.MULTILINE)
            ]
            assert len(set(options)) == len(options)
            extreme = max(options) if "largest" in item["question"] else min(options)
            assert Decimal(item["answer"]) == extreme


def test_forms_and_exploits() -> None:
    item = create_dataset(NAME, level=4, seed=2, size=1)[0]
    gold = Decimal(item["answer"])
    whole, _, frac = item["answer"].partition(".")
    commas = f"{int(whole):,}" + (f".{frac}" if frac else "")
    for right in (item["answer"], commas, f"{gold:e}".replace("e+0", "e+"), f"Answer: {gold}"):
        assert score(NAME, right, item) == 1.0, right
    options = re.findall(r"^(\d+)\) (\S+)$", item["question"], re.MULTILINE)
    position = next(i for i, v in options if Decimal(v.replace(",", "")) == gold)
    others = [v for _, v in options if Decimal(v.replace(",", "")) != gold]
    for wrong in (
        position,
        f"option {position}",
        others[0],
        f"{item['answer']}, {others[0]}",
        str(round(gold)) if gold != round(gold) else str(gold + 1),
        "9" * 1_000_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]
