"""Rush Hour: slide the cars on a 6x6 lot until the red car A drives out on the right.

Cars move only along their own direction, never through each other. Tests planning with
blocking chains (to move A, move the truck in front of it, which needs room from another
car...). Puzzles are made backwards: A starts at the exit and random legal slides scatter the
lot; the reversed slides are a solution and their count is the stated move budget. Harder
levels park more cars and scatter longer. The walk keeps the lot as occupancy bits per row
and column (the same slides and draws as listing every option, see ``_walk``). The scorer
replays the answer and accepts any sequence of legal slides within the budget that brings A
to the exit.
"""

from __future__ import annotations

import random
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


def _blocked(cars: dict[str, Car], board: list[list[str]]) -> bool:
    """A is off the exit and some car stands between it and the exit."""
    a_end = cars["A"][1] + 1
    return a_end < SIZE - 1 and any(ch != EMPTY for ch in board[EXIT_ROW][a_end + 1 :])


def _closes(cars: dict[str, Car], letter: str, amount: int) -> bool:
    """Whether sliding ``letter`` by ``amount`` parks a vertical car across the exit row
    between A and the exit (once the walk is long enough, such slides are preferred)."""
    r, c, length, horizontal = cars[letter]
    a_end = cars["A"][1] + 1
    return not horizontal and c > a_end and r + amount <= EXIT_ROW < r + amount + length and a_end < SIZE - 1


def _options(cars: dict[str, Car], board: list[list[str]], last: str) -> list[tuple[str, int]]:
    """Every legal backward slide (car, amount), in letter order; A only leftwards, and not the
    car moved last (two slides in a row would be one). A's slides are listed three times:
    drawn more often, A leaves the exit early and the blockers have time to close in.
    The walk draws from this list without building it (:func:`_walk`); this plain form, with
    :func:`_closes`, :func:`_move` and :func:`_blocked`, is what the tests compare it with.
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
            while pos >= 0 and line[pos] == EMPTY:
                append((letter, pos - c))
                pos -= 1
            if letter == "A":
                free = c - 1 - pos
                if free:
                    out.extend(out[-free:] * 2)
                continue
            pos = c + length
            while pos < SIZE and line[pos] == EMPTY:
                append((letter, pos - c - length + 1))
                pos += 1
        else:
            pos = r - 1
            while pos >= 0 and board[pos][c] == EMPTY:
                append((letter, pos - r))
                pos -= 1
            if letter == "A":  # pragma: no cover - A is horizontal
                free = r - 1 - pos
                if free:
                    out.extend(out[-free:] * 2)
                continue
            pos = r + length
            while pos < SIZE and board[pos][c] == EMPTY:
                append((letter, pos - r - length + 1))
                pos += 1
    return out


def _move(cars: dict[str, Car], board: list[list[str]], letter: str, amount: int) -> None:
    """:func:`slide` for a slide already known to be legal (one of :func:`_options`): the
    car's old cells cleared and its new ones painted, without re-checking the path."""
    car = cars[letter]
    r, c, length, horizontal = car
    if horizontal:
        line = board[r]
        line[c : c + length] = [EMPTY] * length
        c += amount
        line[c : c + length] = [letter] * length
        car[1] = c
    else:
        for i in range(r, r + length):
            board[i][c] = EMPTY
        r += amount
        for i in range(r, r + length):
            board[i][c] = letter
        car[0] = r


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
    """The ``index``-th slide of cars' ``(letter, free behind, free ahead)`` in
    :func:`_options`' order: backwards -1, -2, ... then forwards +1, +2, ..."""
    for letter, back, ahead in runs:
        if index < back:
            return letter, -(index + 1)
        index -= back
        if index < ahead:
            return letter, index + 1
        index -= ahead
    raise ValueError(f"rush_hour: slide {index} past the listed slides")


def _walk(cars: dict[str, Car], walk: int, rng: random.Random) -> tuple[list[tuple[str, int]], bool]:
    """The backward walk of :func:`generate`: the same slides, the same draws, as choosing
    from :func:`_options` (and the :func:`_closes` ones among them) with ``rng.choice`` and
    moving with :func:`_move`, but on occupancy bits per row and per column. A car's free
    cells either way are two table lookups (:func:`_free_runs`), and the options are kept as
    runs ``(letter, first amount, step, count)`` in :func:`_options`' order, so the drawn
    index is mapped to its slide without listing every slide. Returns the slides and
    whether A ended off the exit with a car between it and the exit (``_blocked``)."""
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
_TOKENS = {
    (letter, amount): f"{letter}{-amount:+d}" for letter in LETTERS for amount in range(-SIZE, SIZE + 1) if amount
}
"""The answer's token undoing each backward slide, formatted once."""
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


def generate(config: Config, rng: random.Random) -> Problem:
    while True:
        cars = _place(rng, config.cars)
        # Backwards, A only ever moves left (moving it right again would undo progress). The
        # walk makes at least ``walk`` slides and goes on (up to twice as many, preferring
        # slides that park a car in A's way) until A is off the exit with a car between it and
        # the exit; the slides made are the budget.
        moves, done = _walk(cars, config.walk, rng)
        if done:
            break
    budget = len(moves)
    # Letters other than A are shuffled, so no letter is tied to a role (B is the upright car
    # placed first): a constant answer such as "B+2 A+3" cannot ride on the construction.
    others = sorted(letter for letter in cars if letter != "A")
    rename = dict(zip(others, rng.sample(others, len(others)), strict=True))
    rename["A"] = "A"
    named = {rename[letter]: car for letter, car in cars.items()}
    cars = {letter: named[letter] for letter in sorted(named)}
    cells = list(_EMPTY_DRAWING)
    for letter, (r, c, length, horizontal) in cars.items():
        for i in _DRAWN_CELLS[r, c, length, horizontal]:
            cells[i] = letter
    tokens = _TOKENS
    answer = " ".join([tokens[rename[letter], amount] for letter, amount in reversed(moves)])
    question = f"{_QUESTION_HEAD}{''.join(cells)}{_QUESTION_MIDDLE}{budget}{_QUESTION_TAIL}"
    return Problem(question, answer, {"cars": cars, "budget": budget})


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
