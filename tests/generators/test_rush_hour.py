"""rush_hour: the gold frees A within the budget, a breadth-first shortest solution (an
independent search over lots) also scores 1, and illegal or over-budget slides score 0."""

from __future__ import annotations

import math
import random
import time
from collections import deque
from typing import Any

from generators.dataset import create_dataset, score
from generators.families.games import rush_hour as rh


def _lot(cars: dict[str, list[int]]) -> dict[tuple[int, int], str]:
    out = {}
    for letter, (r, c, length, horizontal) in cars.items():
        for i in range(length):
            out[(r, c + i) if horizontal else (r + i, c)] = letter
    return out


def _shortest(cars: dict[str, list[int]]) -> list[str]:
    start = tuple(sorted((k, tuple(v)) for k, v in cars.items()))
    seen: dict[Any, list[str]] = {start: []}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        spec = {k: list(v) for k, v in state}
        if spec["A"][1] + spec["A"][2] == 6:
            return seen[state]
        taken = _lot(spec)
        for letter, (r, c, length, horizontal) in state:
            for step in (-1, 1):
                for amount in range(1, 6):
                    cells = [
                        (r, c + (length - 1 if step > 0 else 0) + step * k)
                        if horizontal
                        else (r + (length - 1 if step > 0 else 0) + step * k, c)
                        for k in range(1, amount + 1)
                    ]
                    if any(not (0 <= x < 6 and 0 <= y < 6) or (x, y) in taken for x, y in cells):
                        break
                    moved = dict(spec)
                    moved[letter] = (
                        [r, c + step * amount, length, horizontal]
                        if horizontal
                        else [r + step * amount, c, length, horizontal]
                    )
                    key = tuple(sorted((k, tuple(v)) for k, v in moved.items()))
                    if key not in seen:
                        seen[key] = [*seen[state], f"{letter}{step * amount:+d}"]
                        queue.append(key)
    raise AssertionError("no solution")


def test_gold_and_shortest_solutions_score_one() -> None:
    for level in range(3):
        for item in create_dataset("rush_hour", level=level, seed=4, size=6):
            meta = item["metadata"]
            assert len(item["answer"].split()) == meta["budget"] >= meta["knobs"]["walk"]
            assert score("rush_hour", item["answer"], item) == 1.0
            best = _shortest(meta["cars"])
            assert 1 < len(best) <= meta["budget"]  # never solved by driving A straight out
            assert score("rush_hour", " ".join(best), item) == 1.0


HANDMADE = {"A": [2, 0, 2, 1], "B": [1, 3, 2, 0]}
"""A at the left of row 3, a vertical car B across the exit row in column 4."""


def test_handmade_rules() -> None:
    item = {"answer": "B-1 A+4", "metadata": {"cars": HANDMADE, "budget": 3}}
    assert score("rush_hour", "B-1 A+4", item) == 1.0
    assert score("rush_hour", "B+2 A+4", item) == 1.0  # B can also move down out of the way
    assert score("rush_hour", "B+1 A+4", item) == 0.0  # one down still blocks row 3
    assert score("rush_hour", "A+4", item) == 0.0  # through B
    assert score("rush_hour", "B-1 A+3", item) == 0.0  # short of the exit
    assert score("rush_hour", "B-2 A+4", item) == 0.0  # B off the lot
    assert score("rush_hour", "B-1, A+1, A+1, A+2", item) == 0.0  # over the budget
    assert score("rush_hour", "b-1 a+4", item) == 1.0
    assert score("rush_hour", "B-1 A+4 or B+1 A+4", item) == 0.0
    assert score("rush_hour", "A+5", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("rush_hour", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("B+1 B-1 " * 130_000, item["answer"] + " " * 1_048_576 + "A+1"):
        assert score("rush_hour", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0


def _blocked(cars: dict[str, list[int]], board: list[list[str]]) -> bool:
    """A is off the exit and some car stands between it and the exit."""
    a_end = cars["A"][1] + 1
    return a_end < rh.SIZE - 1 and any(ch != rh.EMPTY for ch in board[rh.EXIT_ROW][a_end + 1 :])


def _closes(cars: dict[str, list[int]], letter: str, amount: int) -> bool:
    """Whether sliding ``letter`` by ``amount`` parks a vertical car across the exit row
    between A and the exit (once the walk is long enough, such slides are preferred)."""
    r, c, length, horizontal = cars[letter]
    a_end = cars["A"][1] + 1
    return not horizontal and c > a_end and r + amount <= rh.EXIT_ROW < r + amount + length and a_end < rh.SIZE - 1


def _options(cars: dict[str, list[int]], board: list[list[str]], last: str) -> list[tuple[str, int]]:
    """Every legal backward slide (car, amount), in letter order; A only leftwards, and not the
    car moved last (two slides in a row would be one). A's slides are listed three times:
    drawn more often, A leaves the exit early and the blockers have time to close in.
    ``rh._walk`` draws from this list without building it; this plain form, with
    :func:`_closes`, :func:`_move` and :func:`_blocked`, is what it is compared with.
    Cells are read from the board directly (a vertical car's column without transposing
    the board per step)."""
    out: list[tuple[str, int]] = []
    append = out.append
    for letter, (r, c, length, horizontal) in cars.items():
        if letter == last:
            continue
        if horizontal:
            line = board[r]
            pos = c - 1
            while pos >= 0 and line[pos] == rh.EMPTY:
                append((letter, pos - c))
                pos -= 1
            if letter == "A":
                free = c - 1 - pos
                if free:
                    out.extend(out[-free:] * 2)
                continue
            pos = c + length
            while pos < rh.SIZE and line[pos] == rh.EMPTY:
                append((letter, pos - c - length + 1))
                pos += 1
        else:
            pos = r - 1
            while pos >= 0 and board[pos][c] == rh.EMPTY:
                append((letter, pos - r))
                pos -= 1
            if letter == "A":  # pragma: no cover - A is horizontal
                free = r - 1 - pos
                if free:
                    out.extend(out[-free:] * 2)
                continue
            pos = r + length
            while pos < rh.SIZE and board[pos][c] == rh.EMPTY:
                append((letter, pos - r - length + 1))
                pos += 1
    return out


def _move(cars: dict[str, list[int]], board: list[list[str]], letter: str, amount: int) -> None:
    """``rh.slide`` for a slide already known to be legal (one of :func:`_options`): the
    car's old cells cleared and its new ones painted, without re-checking the path."""
    car = cars[letter]
    r, c, length, horizontal = car
    if horizontal:
        line = board[r]
        line[c : c + length] = [rh.EMPTY] * length
        c += amount
        line[c : c + length] = [letter] * length
        car[1] = c
    else:
        for i in range(r, r + length):
            board[i][c] = rh.EMPTY
        r += amount
        for i in range(r, r + length):
            board[i][c] = letter
        car[0] = r


def _reference_options(cars: dict[str, list[int]], board: list[list[str]], last: str) -> list[tuple[str, int]]:
    """The slides as first written: every car's line read from the board or its transpose."""
    out: list[tuple[str, int]] = []
    columns = list(zip(*board, strict=True))
    for letter, (r, c, length, horizontal) in cars.items():
        if letter == last:
            continue
        line = board[r] if horizontal else columns[c]
        start = c if horizontal else r
        pos = start - 1
        while pos >= 0 and line[pos] == rh.EMPTY:
            out.append((letter, pos - start))
            pos -= 1
        if letter == "A":
            out.extend(out[-(start - 1 - pos) :] * 2 if start - 1 - pos else [])
            continue
        pos = start + length
        while pos < rh.SIZE and line[pos] == rh.EMPTY:
            out.append((letter, pos - start - length + 1))
            pos += 1
    return out


def _reference_place(rng: random.Random, count: int) -> dict[str, list[int]]:
    cars: dict[str, list[int]] = {"A": [rh.EXIT_ROW, rh.SIZE - 2, 2, 1]}
    taken = {*rh._cells(cars["A"]), (rh.EXIT_ROW, rh.SIZE - 3)}
    for index, letter in enumerate(rh.LETTERS[1 : count + 1]):
        for _ in range(50):
            length = 3 if rng.random() < 0.25 else 2
            horizontal = 0 if index == 0 else int(rng.random() < 0.5)
            if horizontal:
                r, c = int(rng.random() * rh.SIZE), int(rng.random() * (rh.SIZE - length + 1))
                if r == rh.EXIT_ROW:
                    continue
            else:
                r, c = int(rng.random() * (rh.SIZE - length + 1)), int(rng.random() * rh.SIZE)
                if index == 0:
                    c = rng.choice((rh.SIZE - 2, rh.SIZE - 1))
            car = [r, c, length, horizontal]
            cells = rh._cells(car)
            if not taken.intersection(cells):
                cars[letter] = car
                taken.update(cells)
                break
    return cars


def test_direct_options_bitmask_placement_and_unchecked_moves_equal_the_first_forms() -> None:
    """Placement (cells as one bit mask), the slides read off the board, and a slide made
    without re-checking its path give what the set-based placement, the transposed-board
    listing and the checking ``slide`` give, over long random walks."""
    for seed in range(150):
        ours_rng, ref_rng = random.Random(seed), random.Random(seed)
        count = 1 + seed % 14
        cars = rh._place(ours_rng, count)
        assert cars == _reference_place(ref_rng, count)
        assert ours_rng.getstate() == ref_rng.getstate()
        twin = {k: list(v) for k, v in cars.items()}
        board, twin_board = rh._board(cars), rh._board(twin)
        last = ""
        for _ in range(40):
            options = _options(cars, board, last)
            assert options == _reference_options(twin, twin_board, last)
            if not options:
                break
            letter, amount = ours_rng.choice(options)
            _move(cars, board, letter, amount)
            assert rh.slide(twin, twin_board, letter, amount)
            assert cars == twin and board == twin_board == rh._board(cars)
            last = letter


def _listed_walk(cars: dict[str, list[int]], walk: int, rng: random.Random) -> tuple[list[tuple[str, int]], bool]:
    """The backward walk as generate made it before the bit boards: every option listed
    (``_options``), the parking ones preferred once ``walk`` slides are made, ``rng.choice``."""
    board = rh._board(cars)
    moves: list[tuple[str, int]] = []
    while len(moves) < 2 * walk:
        if len(moves) >= walk and _blocked(cars, board):
            break
        options = _options(cars, board, moves[-1][0] if moves else "")
        if len(moves) >= walk:
            closing = [option for option in options if _closes(cars, *option)]
            options = closing or options
        if not options:
            break
        letter, amount = rng.choice(options)
        _move(cars, board, letter, amount)
        moves.append((letter, amount))
    return moves, len(moves) >= walk and _blocked(cars, board)


def test_bit_board_walk_equals_the_listed_walk() -> None:
    """Slides, outcome, final lot and generator state match the listed walk's, from random
    lots of every car count and walks short and long (2,000 walks)."""
    for seed in range(2000):
        ours_rng, ref_rng = random.Random(seed), random.Random(seed)
        count, walk = 1 + seed % 14, 2 + seed % 23
        cars = rh._place(ours_rng, count)
        assert cars == rh._place(ref_rng, count)
        twin = {k: list(v) for k, v in cars.items()}
        assert rh._walk(cars, walk, ours_rng) == _listed_walk(twin, walk, ref_rng)
        assert cars == twin
        assert ours_rng.getstate() == ref_rng.getstate()


def test_free_run_tables_match_a_scan() -> None:
    for occupancy in range(64):
        free = [not occupancy >> i & 1 for i in range(rh.SIZE)]
        for pos in range(rh.SIZE + 1):
            back = next((k for k in range(pos) if not free[pos - 1 - k]), pos)
            ahead = next((k for k in range(rh.SIZE - pos) if not free[pos + k]), rh.SIZE - pos)
            assert (rh._BEFORE[occupancy * 8 + pos], rh._AFTER[occupancy * 8 + pos]) == (back, ahead)


def test_question_and_answer_equal_the_board_drawing() -> None:
    """The drawing from per-placement character tables and the pre-formatted tokens equal
    ``_board``'s rows and the formatted reversed slides."""
    for level in range(len(rh.LEVELS)):
        config = rh.Config(**rh.LEVELS[level])
        for seed in range(30):
            problem = rh.generate(config, random.Random(seed))
            cars = problem.extra["cars"]
            drawing = "\n".join("".join(line) for line in rh._board(cars))
            assert f"\n\n{drawing}\n\n" in problem.question
            assert f"using at most {problem.extra['budget']} slides;" in problem.question
            assert len(problem.answer.split()) == problem.extra["budget"]
            assert rh.score(problem.answer, {"answer": problem.answer, "metadata": problem.extra}) == 1.0


def _filled(pooled: rh.Pooled, letters: tuple[str, ...]) -> tuple[str, str]:
    drawing, answer, _, _ = pooled
    return drawing.format(*letters), answer.format(*letters)


def test_pools_are_the_plain_construction() -> None:
    """A pool is the placed-and-walked puzzles from the pool's fixed seed, in order, repeats
    skipped, cars numbered in letter order; the same after the pool is dropped and built."""
    for knobs in rh.LEVELS:
        config = rh.Config(**knobs)
        pool = rh._pool(config)
        assert len(pool) == rh.POOL_SIZE * (4 if config.cars <= 5 else 1)
        rng = random.Random(rh._seed("pool", (config.cars, config.walk)))
        expected: list[tuple[str, str, int]] = []
        seen: set[tuple[str, int]] = set()
        while len(expected) < 30:
            while True:
                cars = _reference_place(rng, config.cars)
                moves, done = _listed_walk(cars, config.walk, rng)
                if done:
                    break
            letters = rh.LETTERS[1 : len(cars)]
            rename = dict(zip(cars, "A" + letters, strict=True))
            lot = {rename[letter]: car for letter, car in cars.items()}
            drawing = "".join("".join(line) for line in zip(*[iter("\n".join("".join(r) for r in rh._board(lot)))]))
            answer = " ".join(f"{rename[letter]}{-amount:+d}" for letter, amount in reversed(moves))
            if (drawing, len(moves)) not in seen:
                seen.add((drawing, len(moves)))
                expected.append((drawing, answer, len(moves)))
        assert [(*_filled(p, tuple(rh.LETTERS[1:])), p[2]) for p in pool[:30]] == expected
        rh._POOLS.clear()
        rh._LAST[:] = [(None, None)]
        assert rh._pool(config) == pool


def test_pooled_puzzles_are_sound_distinct_and_bounded() -> None:
    """Every pooled answer replays to A at the exit within the budget, from a lot with no
    overlapping cars where A cannot drive straight out; no two pooled puzzles are alike."""
    for knobs in rh.LEVELS:
        config = rh.Config(**knobs)
        pool = rh._pool(config)
        assert len({(p[0], p[2]) for p in pool}) == len(pool)
        for pooled in pool:
            letters = tuple(rh.LETTERS[1:])
            cars = {letter: list(car) for letter, car in zip(rh.LETTERS, pooled[3], strict=False)}
            drawing, answer = _filled(pooled, letters)
            assert drawing == "\n".join("".join(line) for line in rh._board(cars))
            item = {"answer": answer, "metadata": {"cars": cars, "budget": pooled[2]}}
            assert len(answer.split()) == pooled[2] >= config.walk
            assert rh.score(answer, item) == 1.0
            a_end = cars["A"][1] + 1
            assert a_end < rh.SIZE - 1 and any(ch != rh.EMPTY for ch in drawing.split("\n")[rh.EXIT_ROW][a_end + 1 :])
    for cars in range(1, 15):
        rh._pool(rh.Config(cars=cars, walk=2))
    assert len(rh._POOLS) == rh._MAX_POOLS


def test_orders_are_permutations_with_their_inverses() -> None:
    for count in range(1, 15):
        orders = rh._orders(count)
        assert len(orders) == min(math.factorial(count), rh.ORDERS)
        assert len(set(orders)) == len(orders)
        for letters, inverse in orders[:50]:
            assert sorted(letters) == list(rh.LETTERS[1 : count + 1])
            assert [letters[i] for i in inverse] == list(rh.LETTERS[1 : count + 1])


def test_generate_picks_a_puzzle_and_an_order() -> None:
    """An item is one 64-bit draw: the puzzle (low 32 bits) and the order of its letters."""
    for knobs in rh.LEVELS:
        config = rh.Config(**knobs)
        pool = rh._pool(config)
        for seed in range(40):
            ours, theirs = random.Random(seed), random.Random(seed)
            problem = rh.generate(config, ours)
            r = theirs.getrandbits(64)
            pooled = pool[(r & 0xFFFFFFFF) * len(pool) >> 32]
            orders = rh._orders(len(pooled[3]) - 1)
            letters, _ = orders[(r >> 32) * len(orders) >> 32]
            drawing, answer = _filled(pooled, letters)
            assert problem.answer == answer and problem.extra["budget"] == pooled[2]
            assert f"\n\n{drawing}\n\n" in problem.question
            named = dict(zip(("A", *letters), pooled[3], strict=True))
            assert problem.extra["cars"] == {letter: list(named[letter]) for letter in sorted(named)}
            assert list(problem.extra["cars"]) == sorted(named)
            assert ours.getstate() == theirs.getstate()
