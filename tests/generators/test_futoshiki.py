"""futoshiki: the drawing says what the metadata says, the gold meets every rule, and over
all 576 4x4 Latin squares exactly the valid fillings score 1."""

from __future__ import annotations

import itertools
import time

from generators.dataset import create_dataset, score


def _latin_squares(n: int) -> list[list[tuple[int, ...]]]:
    perms = list(itertools.permutations(range(1, n + 1)))
    out: list[list[tuple[int, ...]]] = []

    def extend(rows: list[tuple[int, ...]]) -> None:
        if len(rows) == n:
            out.append(rows)
            return
        for perm in perms:
            if all(perm[c] != row[c] for row in rows for c in range(n)):
                extend([*rows, perm])

    extend([])
    return out


def _show(rows: list[tuple[int, ...]]) -> str:
    return "\n".join(" ".join(map(str, row)) for row in rows)


def _by_rules(rows: list[tuple[int, ...]], meta: dict) -> bool:
    """The rules written out directly from the metadata (givens and signs)."""
    givens = [[int(v) for v in line.split()] for line in meta["givens"]]
    n = len(rows)
    for r in range(n):
        for c in range(n):
            if givens[r][c] and givens[r][c] != rows[r][c]:
                return False
            if (
                c < n - 1
                and meta["across"][r][c] != "."
                and (rows[r][c] < rows[r][c + 1]) != (meta["across"][r][c] == "<")
            ):
                return False
            if r < n - 1 and meta["down"][r][c] != "." and (rows[r][c] < rows[r + 1][c]) != (meta["down"][r][c] == "<"):
                return False
    return True


def test_exactly_the_valid_fillings_score_one() -> None:
    squares = _latin_squares(4)
    assert len(squares) == 576
    for item in create_dataset("futoshiki", level=1, seed=2, size=4):
        valid = 0
        for rows in squares:
            ok = _by_rules(rows, item["metadata"])
            valid += ok
            assert score("futoshiki", _show(rows), item) == float(ok)
        assert valid >= 1


def test_gold_meets_the_drawn_rules() -> None:
    for level in range(6):
        for item in create_dataset("futoshiki", level=level, seed=3, size=8):
            rows = [tuple(int(v) for v in line.split()) for line in item["answer"].splitlines()]
            assert _by_rules(rows, item["metadata"])
            drawing = item["question"].split("is larger.\n\n")[1].split("\n\nAny filling")[0]
            signs = sum(s != "." for line in item["metadata"]["across"] + item["metadata"]["down"] for s in line)
            assert sum(drawing.count(mark) for mark in "<>∧∨") == signs
            assert score("futoshiki", item["answer"], item) == 1.0


def test_forms_and_exploits() -> None:
    item = create_dataset("futoshiki", level=3, seed=1, size=1)[0]
    gold = item["answer"]
    rows = gold.splitlines()
    assert score("futoshiki", gold.replace(" ", ""), item) == 1.0
    assert score("futoshiki", f"Answer:\n{gold}", item) == 1.0
    n = len(rows)
    cyclic = "\n".join(" ".join(str((r + c) % n + 1) for c in range(n)) for r in range(n))
    for wrong in (
        "\n".join(rows[:-1]),
        gold + "\n" + gold,
        "\n".join([" ".join(["1"] * n)] * n),  # every row 1s: not Latin
        gold.replace("1", "0"),
    ):
        assert score("futoshiki", wrong, item) == 0.0, wrong
    cyclic_rows = [tuple(int(v) for v in line.split()) for line in cyclic.splitlines()]
    assert score("futoshiki", cyclic, item) == float(_by_rules(cyclic_rows, item["metadata"]))


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("futoshiki", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1 2 3 4 5 6 7\n" * 80_000, item["answer"] + "\n" + "7" * 1_048_576):
        assert score("futoshiki", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
