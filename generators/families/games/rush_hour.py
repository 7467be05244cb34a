"""Rush Hour: slide the cars on a 6x6 lot until the red car A drives out on the right.

Cars move only along their own direction, never through each other. Tests planning with
blocking chains (to move A, move the truck in front of it, which needs room from another
car...). Puzzles are made backwards: A starts at the exit and random legal slides scatter the
lot; the reversed slides are a solution and their count is the stated move budget. Harder
levels park more cars and scatter longer. The walk keeps the lot as occupancy bits per row
and column (see ``_walk``). The scorer replays the answer and accepts any sequence of legal
slides within the budget that brings A to the exit.

Since 2.4.0 the walks are made once per config: a pool of 2,048 distinct puzzles (8,192 with at
most 5 cars besides A) from a seed fixed by the knobs (the same in every process; the last 8
configs kept), each with its lot and answer as templates whose car letters are filled in per
item. An item is one 64-bit draw: a puzzle and an order of the letters other than A (all
orders up to 6 cars, else one of 4,096 fixed ones), so a puzzle's roles carry no letter. A
walk costs up to a few hundred microseconds; a pick and the letters written in, a few.
Before 2.4.0 each item made its walk.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from generators.answers import ANSWER_ERRORS, extract_answer
from generators.base import Family, Knobs, Problem

NAME = "rush_hour"

SIZE = 6
EXIT_ROW = 2
EMPTY = "."
LETTERS = "ABCDEFGHIJKLMNOP"


@dataclass(frozen=True)
class Config(Knobs):
    cars: int = 4
    """Cars besides A."""
    walk: int = 4
    """Fewest random slides made backwards from the solved lot; the slides made are the budget."""

    RANGES: ClassVar[Mapping[str, tuple[float, float]]] = {"cars": (1, 14), "walk": (2, 60)}


LEVELS: tuple[dict[str, object], ...] = (
    {"cars": 4, "walk": 4},
    {"cars": 5, "walk": 6},
    {"cars": 7, "walk": 9},
    {"cars": 8, "walk": 12},
    {"cars": 9, "walk": 14},
    {"cars": 10, "walk": 16},
)

Car = list[int]
"""[row, column, length, horizontal (1/0)] of the car's top-left cell."""


def _cells(car: Car) -> list[tuple[int, int]]:
    r, c, length, horizontal = car
    return [(r, c + i) if horizontal else (r + i, c) for i in range(length)]


def _board(cars: dict[str, Car]) -> list[list[str]]:
    board = [[EMPTY] * SIZE for _ in range(SIZE)]
    for letter, car in cars.items():
        for r, c in _cells(car):
            board[r][c] = letter
    return board


def slide(cars: dict[str, Car], board: list[list[str]], letter: str, amount: int) -> bool:
    """Move car ``letter`` by ``amount`` cells (right/down positive) if the path is free;
    ``board`` (the drawing of ``cars``) is updated with it."""
    car = cars.get(letter)
    if car is None or amount == 0:
        return False
    r, c, length, horizontal = car
    step = 1 if amount > 0 else -1
    start = c if horizontal else r
    head = start + length - 1 if step > 0 else start
    for k in range(1, abs(amount) + 1):
        pos = head + step * k
        if not 0 <= pos < SIZE or (board[r][pos] if horizontal else board[pos][c]) != EMPTY:
            return False
    for cell_r, cell_c in _cells(car):
        board[cell_r][cell_c] = EMPTY
    car[1 if horizontal else 0] += amount
    for cell_r, cell_c in _cells(car):
        board[cell_r][cell_c] = letter
    return True


def _solved(cars: dict[str, Car]) -> bool:
    return cars["A"][1] + cars["A"][2] == SIZE


def _free_runs() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For a line's occupancy (bit ``i`` for cell ``i``) and a cell index ``p`` (entry
    ``occupancy * 8 + p``): how many free cells run down from ``p - 1`` and up from ``p``."""
    before, after = [0] * (64 * 8), [0] * (64 * 8)
    for occupancy in range(64):
        for pos in range(SIZE + 1):
            down = pos - 1
            while down >= 0 and not occupancy >> down & 1:
                down -= 1
            up = pos
            while up < SIZE and not occupancy >> up & 1:
                up += 1
            before[occupancy * 8 + pos], after[occupancy * 8 + pos] = pos - 1 - down, up - pos
    return tuple(before), tuple(after)


_BEFORE, _AFTER = _free_runs()


def _below(total: int, getrandbits: Callable[[int], int]) -> int:
    """``rng.choice``'s index into ``total`` options: the same ``getrandbits`` draws."""
    bits = total.bit_length()
    index = getrandbits(bits)
    while index >= total:
        index = getrandbits(bits)
    return index


def _closing_slide(closing: list[tuple[str, int, int, int]], index: int) -> tuple[str, int]:
    """The ``index``-th parking slide of runs ``(letter, first amount, step, count)``."""
    for letter, first, step, count in closing:
        if index < count:
            return letter, first + step * index
        index -= count
    raise ValueError(f"rush_hour: slide {index} past the parking slides")


def _run_slide(runs: list[tuple[str, int, int]], index: int) -> tuple[str, int]:
    """The ``index``-th slide of cars' ``(letter, free behind, free ahead)`` in the listed
    order: backwards -1, -2, ... then forwards +1, +2, ..."""
    for letter, back, ahead in runs:
        if index < back:
            return letter, -(index + 1)
        index -= back
        if index < ahead:
            return letter, index + 1
        index -= ahead
    raise ValueError(f"rush_hour: slide {index} past the listed slides")


def _walk(cars: dict[str, Car], walk: int, rng: random.Random) -> tuple[list[tuple[str, int]], bool]:
    """The backward walk of a pooled puzzle (:func:`_puzzle`) on occupancy bits per row and
    per column. Each step lists, in letter order, every legal backward slide: A only
    leftwards (those listed three times, so A leaves the exit early and the blockers have
    time to close in), not the car moved last (two slides in a row would be one); once
    ``walk`` slides are made, only the slides that park a vertical car across the exit row
    between A and the exit, if any; and draws one as ``rng.choice`` would. A car's free
    cells either way are two table lookups (:func:`_free_runs`), and the options are kept as
    runs ``(letter, first amount, step, count)``, so the drawn index is mapped to its slide
    without listing every slide (the tests compare it with the listed form). Returns the
    slides and whether A ended off the exit with a car between it and the exit."""
    rows, cols = [0] * SIZE, [0] * SIZE
    for r, c, length, horizontal in cars.values():
        for i in range(length):
            if horizontal:
                rows[r] |= 1 << c + i
                cols[c + i] |= 1 << r
            else:
                rows[r + i] |= 1 << c
                cols[c] |= 1 << r + i
    before, after, getrandbits = _BEFORE, _AFTER, rng.getrandbits
    car_a = cars["A"]
    others = [(letter, car) for letter, car in cars.items() if letter != "A"]
    moves: list[tuple[str, int]] = []
    last = ""
    while True:
        a_end = car_a[1] + 1
        blocked = a_end < SIZE - 1 and rows[EXIT_ROW] >> a_end + 1 != 0
        made = len(moves)
        if made >= 2 * walk or (made >= walk and blocked):
            return moves, made >= walk and blocked
        # A first (it is first in letter order), its leftward slides listed three times.
        a_free = 0 if last == "A" else before[rows[EXIT_ROW] * 8 + car_a[1]]
        total = 3 * a_free
        runs: list[tuple[str, int, int]] = []  # (letter, back, ahead) of the cars that can move
        closing: list[tuple[str, int, int, int]] = []  # (letter, first amount, step, count)
        scan = made >= walk and a_end < SIZE - 1
        for letter, (r, c, length, horizontal) in others:
            if letter == last:
                continue
            if horizontal:
                key = rows[r] * 8 + c
                back, ahead = before[key], after[key + length]
            else:
                key = cols[c] * 8 + r
                back, ahead = before[key], after[key + length]
                if scan and c > a_end:
                    low, high = EXIT_ROW - length + 1 - r, EXIT_ROW - r  # amounts that park it across
                    first, final = min(-1, high), max(-back, low)
                    if first >= final:
                        closing.append((letter, first, -1, first - final + 1))
                    first, final = max(1, low), min(ahead, high)
                    if first <= final:
                        closing.append((letter, first, 1, final - first + 1))
            if back or ahead:
                runs.append((letter, back, ahead))
                total += back + ahead
        if closing:
            total = sum(run[3] for run in closing)
            letter, amount = _closing_slide(closing, _below(total, getrandbits))
        elif not total:
            return moves, made >= walk and blocked
        else:
            index = _below(total, getrandbits)
            if index < 3 * a_free:
                letter, amount = "A", -(index % a_free + 1)
            else:
                letter, amount = _run_slide(runs, index - 3 * a_free)
        car = cars[letter]
        r, c, length, horizontal = car
        if horizontal:
            span = (1 << length) - 1
            rows[r] = rows[r] & ~(span << c) | span << c + amount
            for i in range(c, c + length):
                cols[i] &= ~(1 << r)
            c += amount
            for i in range(c, c + length):
                cols[i] |= 1 << r
            car[1] = c
        else:
            span = (1 << length) - 1
            cols[c] = cols[c] & ~(span << r) | span << r + amount
            for i in range(r, r + length):
                rows[i] &= ~(1 << c)
            r += amount
            for i in range(r, r + length):
                rows[i] |= 1 << c
            car[0] = r
        moves.append((letter, amount))
        last = letter


_CELL_MASKS = {
    (r, c, length, horizontal): sum(1 << (cr * SIZE + cc) for cr, cc in _cells([r, c, length, horizontal]))
    for r in range(SIZE)
    for c in range(SIZE)
    for length in (2, 3)
    for horizontal in (0, 1)
}
"""A car's cells as a bit mask of the lot (bit ``row * SIZE + column``), per placement."""


_EMPTY_DRAWING = "\n".join([EMPTY * SIZE] * SIZE)
"""The empty lot as drawn in the question; cell (r, c) is character ``r * (SIZE + 1) + c``."""
_DRAWN_CELLS = {placement: tuple(r * (SIZE + 1) + c for r, c in _cells(list(placement))) for placement in _CELL_MASKS}
"""A car's characters in the drawing, per placement (the lot drawn without a board of lists)."""
_QUESTION_HEAD = (
    f"Rush Hour on a {SIZE}x{SIZE} parking lot ('.' is empty; each letter is one car, two or three cells "
    f"long). The red car A sits in row {EXIT_ROW + 1}, and the exit is at the right end of that row.\n\n"
)
_QUESTION_MIDDLE = (
    "\n\nA car slides any number of free cells along its own direction (horizontal cars left/right, vertical "
    "cars up/down), never through another car or off the lot. Write a slide as the car's letter, + or -, "
    "and the number of cells: + is right (horizontal) or down (vertical), - is left or up; e.g. B+2, C-1. "
    f"Give slides that bring car A to the right edge of row {EXIT_ROW + 1}, using at most "
)
_QUESTION_TAIL = " slides; any such sequence is accepted. Answer with the slides in order, separated by spaces."


def _place(rng: random.Random, count: int) -> dict[str, Car]:
    """A at the exit, then up to ``count`` cars at random free spots. The cell left of A
    starts free (so A can leave the exit), and B stands upright in one of the two columns A
    covers (so some car can come between A and the exit once A has moved). Occupied cells
    are one bit mask (a placement's cells read from a table)."""
    cars: dict[str, Car] = {"A": [EXIT_ROW, SIZE - 2, 2, 1]}
    taken = _CELL_MASKS[(EXIT_ROW, SIZE - 2, 2, 1)] | 1 << (EXIT_ROW * SIZE + SIZE - 3)
    uniform, getrandbits, masks = rng.random, rng.getrandbits, _CELL_MASKS
    for index, letter in enumerate(LETTERS[1 : count + 1]):
        for _ in range(50):
            length = 3 if uniform() < 0.25 else 2
            horizontal = 0 if index == 0 else int(uniform() < 0.5)
            # int(random() * k) rather than randrange(k): the same uniform draw, fewer calls.
            if horizontal:
                r, c = int(uniform() * SIZE), int(uniform() * (SIZE - length + 1))
                if r == EXIT_ROW:
                    continue  # only A drives along the exit row, so A can always leave
            else:
                r, c = int(uniform() * (SIZE - length + 1)), int(uniform() * SIZE)
                if index == 0:  # rng.choice((SIZE - 2, SIZE - 1)), inline
                    j = getrandbits(2)
                    while j >= 2:
                        j = getrandbits(2)
                    c = SIZE - 2 + j
            mask = masks[(r, c, length, horizontal)]
            if not taken & mask:
                cars[letter] = [r, c, length, horizontal]
                taken |= mask
                break
    return cars


def _puzzle(config: Config, rng: random.Random) -> tuple[dict[str, Car], list[tuple[str, int]]]:
    """A lot and the backward slides that scattered it: cars placed, then the walk, again
    until A ends off the exit with a car between it and the exit. Backwards, A only ever
    moves left (moving it right again would undo progress). The walk makes at least
    ``walk`` slides and goes on (up to twice as many, preferring slides that park a car in
    A's way) until A is blocked; the slides made are the budget."""
    while True:
        cars = _place(rng, config.cars)
        moves, done = _walk(cars, config.walk, rng)
        if done:
            return cars, moves


POOL_SIZE = 2048
"""Distinct puzzles kept per config; four times as many with at most 5 cars besides A (at
most 120 orders of their letters), so that a level still has over 100,000 questions."""
ORDERS = 4096
"""Orders of the letters other than A an item picks from (all of them when fewer)."""
_MAX_POOLS = 8
"""Configs whose pools are kept at once; the least recently used is dropped beyond that."""
Pooled = tuple[str, str, int, tuple[tuple[int, int, int, int], ...]]
"""A pooled puzzle: the lot drawn and the answer with car ``i`` (after A) written ``{i}``,
the budget, and the cars' placements (A first)."""
_POOLS: OrderedDict[tuple[int, int], tuple[Pooled, ...]] = OrderedDict()
_ORDERS: dict[int, tuple[tuple[tuple[str, ...], tuple[int, ...]], ...]] = {}
_LAST: list[Any] = [(None, None)]
"""The last config and its pool, one pair (swapped whole, so a thread never sees one
config with another's pool): consecutive items of one config skip the key lookup."""


def _seed(*parts: object) -> int:
    """A fixed seed from a pool's name and knobs (SHA-256, the same in every process)."""
    return int.from_bytes(hashlib.sha256(repr((NAME, *parts)).encode()).digest()[:16], "big")


def _pooled(cars: dict[str, Car], moves: list[tuple[str, int]]) -> Pooled:
    """A puzzle with its cars numbered in letter order (0 is A, then 1, 2, ...; a car that
    found no room leaves no gap) and its letters left as ``{i - 1}`` fields, A's written
    out."""
    slot = {letter: i for i, letter in enumerate(cars)}
    fields = ["A", *(f"{{{i}}}" for i in range(len(cars) - 1))]
    cells = list(_EMPTY_DRAWING)
    for letter, (r, c, length, horizontal) in cars.items():
        for i in _DRAWN_CELLS[r, c, length, horizontal]:
            cells[i] = fields[slot[letter]]
    answer = " ".join(f"{fields[slot[letter]]}{-amount:+d}" for letter, amount in reversed(moves))
    placements = tuple((r, c, length, horizontal) for r, c, length, horizontal in cars.values())
    return "".join(cells), answer, len(moves), placements


def _pool(config: Config) -> tuple[Pooled, ...]:
    """``POOL_SIZE`` distinct puzzles for ``config`` (or 4x, fewer if eight times as many draws
    find no more), made once from a seed fixed by the knobs, the same in every process,
    and kept for the last ``_MAX_POOLS`` configs. The walk costs a few hundred
    microseconds at the top level; an item picks a puzzle and an order of its letters."""
    key = (config.cars, config.walk)
    pool = _POOLS.get(key)
    if pool is not None:
        _POOLS.move_to_end(key)
        return pool
    rng = random.Random(_seed("pool", key))
    seen: set[tuple[str, int]] = set()
    made: list[Pooled] = []
    size = POOL_SIZE * (4 if config.cars <= 5 else 1)
    for _ in range(8 * size):
        puzzle = _pooled(*_puzzle(config, rng))
        if (puzzle[0], puzzle[2]) not in seen:
            seen.add((puzzle[0], puzzle[2]))
            made.append(puzzle)
            if len(made) == size:
                break
    pool = _POOLS[key] = tuple(made)
    if len(_POOLS) > _MAX_POOLS:
        _POOLS.popitem(last=False)
    return pool


def _orders(count: int) -> tuple[tuple[tuple[str, ...], tuple[int, ...]], ...]:
    """For ``count`` cars besides A: orders of the letters B, C, ... (every one when there
    are at most ``ORDERS``, else that many distinct ones drawn from a fixed seed), each with
    the car each letter names (its inverse): letter ``j`` goes to the car at ``inverse[j]``."""
    orders = _ORDERS.get(count)
    if orders is None:
        letters = LETTERS[1 : count + 1]
        if math.factorial(count) <= ORDERS:
            picked = list(itertools.permutations(range(count)))
        else:
            rng = random.Random(_seed("orders", count))
            distinct: dict[tuple[int, ...], None] = {}
            while len(distinct) < ORDERS:
                distinct[tuple(rng.sample(range(count), count))] = None
            picked = list(distinct)
        made = []
        for order in picked:
            inverse = [0] * count
            for i, j in enumerate(order):
                inverse[j] = i
            made.append((tuple(letters[j] for j in order), tuple(inverse)))
        orders = _ORDERS[count] = tuple(made)
    return orders


def generate(config: Config, rng: random.Random) -> Problem:
    """One 64-bit draw: a puzzle from :func:`_pool` (the low 32 bits) and an order of its
    letters other than A (the high ones), so no letter is tied to a role (B is the upright
    car placed first) and a constant answer such as "B+2 A+3" cannot ride on the
    construction."""
    last = _LAST[0]
    if last[0] is config:
        pool = last[1]
    else:
        pool = _pool(config)
        _LAST[0] = (config, pool)
    r = rng.getrandbits(64)
    drawing, answer, budget, placements = pool[(r & 0xFFFFFFFF) * len(pool) >> 32]
    orders = _ORDERS.get(len(placements) - 1) or _orders(len(placements) - 1)
    letters, inverse = orders[(r >> 32) * len(orders) >> 32]
    cars = {"A": list(placements[0])}
    for letter, i in zip(LETTERS[1:], inverse):
        cars[letter] = list(placements[i + 1])
    question = f"{_QUESTION_HEAD}{drawing.format(*letters)}{_QUESTION_MIDDLE}{budget}{_QUESTION_TAIL}"
    return Problem(question, answer.format(*letters), {"cars": cars, "budget": budget})


def _parse(token: str) -> tuple[str, int] | None:
    if len(token) < 3 or token[1] not in "+-" or not token[2:].isdigit() or len(token) > 4:
        return None
    amount = int(token[2:])
    return token[0].upper(), amount if token[1] == "+" else -amount


def score(answer_text: str, item: Mapping[str, Any]) -> float:
    """1.0 iff every slide is legal, there are at most budget of them and A ends at the exit."""
    try:
        meta = item["metadata"]
        budget = int(meta["budget"])
        text = extract_answer(answer_text)
        if not text or len(text) > 8 * budget + 32:
            return 0.0
        tokens = text.replace(",", " ").split()
        if not tokens or len(tokens) > budget:
            return 0.0
        cars = {str(k): [int(v) for v in car] for k, car in meta["cars"].items()}
        board = _board(cars)
        if sum(len(_cells(car)) for car in cars.values()) != sum(ch != EMPTY for line in board for ch in line):
            return 0.0  # overlapping cars: a broken item
        for token in tokens:
            move = _parse(token)
            if move is None or not slide(cars, board, *move):
                return 0.0
        return 1.0 if _solved(cars) else 0.0
    except ANSWER_ERRORS:
        return 0.0


def wrong_answers(item: Mapping[str, Any]) -> list[str]:
    """The gold without A's last slide (A stops short of the exit)."""
    tokens = str(item["answer"]).split()
    last_a = max(i for i, token in enumerate(tokens) if token.startswith("A"))
    return [" ".join(tokens[:last_a] + tokens[last_a + 1 :]) or "A-1"]


FAMILY = Family(
    name=NAME,
    description="Rush Hour on 6x6: car slides (e.g. B+2) that free the red car within a budget (any solution).",
    config=Config,
    levels=LEVELS,
    generate=generate,
    answer_kind="exact",
    score=score,
    counterpart="reasoning_gym:rush_hour",
)
