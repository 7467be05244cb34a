"""arc_1d: each rule, written here cell by cell, maps every example and the test row to the
gold; rivals (all shifts, both slides and stretches, recolourings, mirror, fill, identity)
that fit the examples agree on the test; row exploits fail."""

from __future__ import annotations

import random
from typing import Any

import pytest
from grid_checks import assert_grid_exploits, examples_of, grid_of

from generators.dataset import create_dataset, score
from generators.families.arc import arc_1d

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


def _reference_row(
    rng: random.Random, length: int, blocks: int, max_block: int, margin: int, colour: int | None
) -> Row:
    cells = [0] * length
    sizes = [rng.randint(1, max_block) for _ in range(blocks)]
    free = length - 2 * margin - sum(sizes) - (blocks - 1)
    gaps = sorted(rng.randint(0, free) for _ in range(blocks))
    position, previous = margin, 0
    for size, gap in zip(sizes, gaps, strict=True):
        position += gap - previous
        previous = gap
        paint = colour if colour is not None else rng.randint(1, 9)
        cells[position : position + size] = [paint] * size
        position += size + 1
    return tuple(cells)


def _reference_draw(rng: random.Random, config: Any, rule: str, parameter: int) -> Row:
    length = rng.randint(config.min_length, config.max_length)
    if rule == "fill":
        return arc_1d._pair_row(rng, length, config.max_block)
    blocks = 1 if rule == "stretch" else rng.randint(1, config.blocks)
    margin = abs(parameter) if rule == "shift" else 0
    colour = None if rule in ("mirror", "slide", "shift") else rng.randint(1, 9)
    return _reference_row(rng, length, blocks, config.max_block, margin, colour)


@pytest.mark.parametrize("level", range(6))
def test_inline_row_draws_equal_randint(level: int) -> None:
    """Rows drawn with the randint draws inline equal rows drawn with ``rng.randint`` for
    every rule and parameter sign, and leave the generator in the same state."""
    config = arc_1d.FAMILY.config_for_level(level)
    ours, theirs = random.Random(level), random.Random(level)
    for index in range(300):
        rule = arc_1d.RULES[index % len(arc_1d.RULES)]
        parameter = (-1) ** index * (1 + index % config.max_shift)
        assert arc_1d._draw(ours, config, rule, parameter) == _reference_draw(theirs, config, rule, parameter)
    assert ours.getstate() == theirs.getstate()
    assert arc_1d.recoloured((0, 3, 3, 0, 5), 7) == (0, 7, 7, 0, 7)
    assert arc_1d.slid((0, 3, 0, 5, 0), True) == (0, 0, 0, 3, 5)
    assert arc_1d.slid((0, 3, 0, 5, 0), False) == (3, 5, 0, 0, 0)


def _all_candidates_agree(max_shift: int, rows: list[Row], outputs: list[Row], test: Row, answer: Row) -> bool:
    """``_identifiable`` by trying every candidate, the nine recolourings included."""
    for rival in arc_1d.candidates(max_shift):
        if all(rival(row) == out for row, out in zip(rows, outputs)) and rival(test) != answer:
            return False
    return True


def test_identifiable_equals_trying_every_candidate() -> None:
    """Skipping the recolourings the first output's colour rules out changes no verdict:
    outputs of every rule (recolourings most), random rows and all-0 rows."""
    rng = random.Random(11)
    cells = (0, 0, 0, 1, 2, 7)
    checked = 0
    for _ in range(1500):
        max_shift = rng.randint(1, 4)
        length = rng.randint(10, 14)
        rows = [tuple(rng.choice(cells) for _ in range(length)) for _ in range(rng.randint(1, 3))]
        test = tuple(rng.choice(cells) for _ in range(length))
        if rng.random() < 0.1:
            rows = [(0,) * length] * len(rows)
        rival = rng.choice(arc_1d.candidates(max_shift)[-9:] * 3 + arc_1d.candidates(max_shift))
        outputs = [rival(row) or (0,) * length for row in rows]
        answer = rival(test) or test
        if rng.random() < 0.3:
            answer = tuple(rng.choice(cells) for _ in range(length))
        rivals = arc_1d._rivals(max_shift)
        verdict = arc_1d._identifiable(rivals, rows, outputs, test, answer)
        assert verdict == _all_candidates_agree(max_shift, rows, outputs, test, answer)
        checked += verdict
    assert 100 < checked < 1400


def test_question_equals_the_grid_layout() -> None:
    from generators.families._grids import ARC_INTRO, examples_question, render

    rng = random.Random(2)
    for _ in range(50):
        rows = [tuple(rng.randint(0, 9) for _ in range(rng.randint(6, 30))) for _ in range(4)]
        outputs = [row[::-1] for row in rows]
        pairs = [((row,), (out,)) for row, out in zip(rows[:-1], outputs[:-1])]
        assert arc_1d._question(rows[:-1], outputs[:-1], rows[-1]) == examples_question(ARC_INTRO, pairs, (rows[-1],))
        assert arc_1d._render_row(rows[0]) == render((rows[0],))


def test_fill_and_stretch_read_the_ends_as_a_list_of_marks_would() -> None:
    """``filled`` / ``stretched`` find the first and last coloured cell from the row's bytes;
    the same rows as from the list of every coloured index (all-0, one cell, a cell > 255)."""

    def by_marks(row: Row) -> tuple[Row | None, Row | None, Row | None]:
        marks = [i for i, cell in enumerate(row) if cell]
        if not marks:
            return None, None, None
        first, last = marks[0], marks[-1]
        fill = None if row[first] != row[last] else row[:first] + (row[first],) * (last - first + 1) + row[last + 1 :]
        return fill, row[:first] + (row[first],) * (len(row) - first), (row[last],) * (last + 1) + row[last + 1 :]

    rng = random.Random(3)
    rows = [(0,) * 7, (0, 0, 4, 0), (5,), (0, 300, 0, 300, 0)]
    rows += [tuple(rng.choice((0, 0, 0, 2, 9)) for _ in range(rng.randint(1, 12))) for _ in range(400)]
    for row in rows:
        assert (arc_1d.filled(row), arc_1d.stretched(row, True), arc_1d.stretched(row, False)) == by_marks(row)
