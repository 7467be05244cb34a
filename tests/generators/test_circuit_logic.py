"""circuit_logic: the gold is what a separate reading of the shown netlist gives row by row,
output bits are balanced, and flipped, partial or stuffed bit lists score 0."""

from __future__ import annotations

import re
import time

from generators.dataset import create_dataset, score

_OPS = {
    "AND": lambda a, b: a and b,
    "OR": lambda a, b: a or b,
    "XOR": lambda a, b: a != b,
    "NAND": lambda a, b: not (a and b),
    "NOR": lambda a, b: not (a or b),
}


def _reference(item: dict) -> list[int]:
    text = item["question"]
    netlist = re.findall(r"^(\w+) = (?:NOT (\w+)|(\w+) (AND|OR|XOR|NAND|NOR) (\w+))$", text, flags=re.MULTILINE)
    rows = re.findall(r"^\d+\. (.+)$", text, flags=re.MULTILINE)
    out = []
    for row in rows:
        values: dict[str, bool] = {k: v == "1" for k, v in (pair.split("=") for pair in row.split(", "))}
        for name, negated, a, op, b in netlist:
            values[name] = (not values[negated]) if negated else bool(_OPS[op](values[a], values[b]))
        out.append(int(values["OUT"]))
    return out


def test_gold_is_the_row_by_row_reading_of_the_netlist() -> None:
    ones = total = 0
    for level in range(6):
        for item in create_dataset("circuit_logic", level=level, seed=3, size=30):
            bits = _reference(item)
            assert item["answer"] == ", ".join(map(str, bits))
            assert len(bits) == item["metadata"]["knobs"]["rows"]
            ones += sum(bits)
            total += len(bits)
    assert 0.42 < ones / total < 0.58


def test_answer_forms_and_exploits() -> None:
    for item in create_dataset("circuit_logic", level=3, seed=7, size=20):
        gold = item["answer"]
        bits = gold.split(", ")
        for form in (gold, " ".join(bits), ",".join(bits), f"[{gold}]", f"Answer: {gold}"):
            assert score("circuit_logic", form, item) == 1.0, form
        flipped = ["1" if b == "0" else "0" for b in bits]
        assert score("circuit_logic", ", ".join(flipped), item) == 0.0
        assert score("circuit_logic", ", ".join(bits[:-1]), item) == 0.0
        assert score("circuit_logic", f"{gold}, 1", item) == 0.0
        assert score("circuit_logic", "".join(bits), item) == 0.0 or len(bits) == 1
        for constant in ("0", "1"):
            assert score("circuit_logic", ", ".join([constant] * len(bits)), item) == (
                1.0 if set(bits) == {constant} else 0.0
            )


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("circuit_logic", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1, " * 350_000, (item["answer"] + ", ") * 40_000):
        assert score("circuit_logic", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
