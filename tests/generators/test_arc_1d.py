"""arc_1d: each rule, written here cell by cell, maps every example and the test row to the
gold; rivals (all shifts, both slides and stretches, recolourings, mirror, fill, identity)
that fit the examples agree on the test; row exploits fail."""

from __future__ import annotations

from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset, score

Row = tuple[int, ...]


def apply(rule: str, parameter: int, row: Row) -> Row | None:
    n = len(row)
    coloured = [i for i in range(n) if row[i]]
    if rule == "identity":
        return row
    if rule == "shift":
        if any(not 0 <= i + parameter < n for i in coloured):
            return None
        out = [0] * n
        for i in coloured:
            out[i + parameter] = row[i]
        return tuple(out)
    if rule == "mirror":
        return tuple(row[n - 1 - i] for i in range(n))
    if rule == "slide":
        values = [row[i] for i in coloured]
        return tuple([0] * (n - len(values)) + values) if parameter > 0 else tuple(values + [0] * (n - len(values)))
    if rule == "recolour":
        return tuple(parameter if cell else 0 for cell in row)
    if not coloured:
        return None
    first, last = coloured[0], coloured[-1]
    if rule == "fill":
        if row[first] != row[last]:
            return None
        return tuple(row[first] if first <= i <= last else row[i] for i in range(n))
    if parameter > 0:  # stretch right from the first coloured cell
        return tuple(row[first] if i >= first else row[i] for i in range(n))
    return tuple(row[last] if i <= last else row[i] for i in range(n))


def rivals(max_shift: int) -> list[tuple[str, int]]:
    out = [("identity", 0), ("mirror", 0), ("fill", 0)]
    out += [("shift", k) for k in range(-max_shift, max_shift + 1) if k]
    out += [(rule, p) for rule in ("slide", "stretch") for p in (1, -1)]
    return out + [("recolour", c) for c in range(1, 10)]


def test_rule_gives_gold_and_rivals_agree() -> None:
    rules_seen = set()
    for level in range(6):
        for item in create_dataset("arc_1d", level=level, seed=4, size=40):
            pairs, test = examples_of(item["question"])
            rule, parameter = item["metadata"]["rule"], item["metadata"]["parameter"]
            rules_seen.add(rule)
            gold = grid_of(item["answer"])[0]
            assert all(apply(rule, parameter, i[0]) == o[0] for i, o in pairs)
            assert apply(rule, parameter, test[0]) == gold != test[0]
            max_shift = item["metadata"]["knobs"]["max_shift"]
            for other, p in rivals(max_shift):
                if all(apply(other, p, i[0]) == o[0] for i, o in pairs):
                    assert apply(other, p, test[0]) == gold, (other, p)
    assert rules_seen == {"shift", "mirror", "slide", "recolour", "fill", "stretch"}


def test_answer_forms_and_exploits() -> None:
    for level in (0, 2, 5):
        for item in create_dataset("arc_1d", level=level, seed=9, size=5):
            assert_grid_exploits("arc_1d", item)


def test_row_as_a_column_or_list_scores_zero() -> None:
    item = create_dataset("arc_1d", level=1, seed=2, size=1)[0]
    cells = item["answer"].split()
    assert score("arc_1d", "\n".join(cells), item) == 0.0
    assert score("arc_1d", f"[{', '.join(cells)}]", item) == 1.0
