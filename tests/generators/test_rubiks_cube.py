"""rubiks_cube: the simulation agrees with hand-checked facts (single turns, the
checkerboard pattern, the order of R U R' U'), asked faces are never one colour, and
block exploits (another face, the solved face, a turned reading) score 0."""

from __future__ import annotations

import itertools

from grid_checks import assert_grid_exploits

from generators.dataset import create_dataset, score
from generators.families.cognition.rubiks_cube import FACES, MOVES, apply, solved


def face(state: list[str], name: str) -> list[str]:
    k = FACES.index(name)
    return ["".join(state[9 * k + 3 * r : 9 * k + 3 * r + 3]) for r in range(3)]


def run(moves: str) -> list[str]:
    state = solved()
    for move in moves.split():
        state = apply(state, move)
    return state


def test_single_turns_match_hand_checked_faces() -> None:
    r = run("R")
    assert face(r, "F") == ["GGY"] * 3 and face(r, "U") == ["WWG"] * 3
    assert face(r, "B") == ["WBB"] * 3 and face(r, "D") == ["YYB"] * 3
    u = run("U")
    assert face(u, "F") == ["RRR", "GGG", "GGG"] and face(u, "L") == ["GGG", "OOO", "OOO"]
    f = run("F")
    assert face(f, "U")[2] == "OOO" and face(f, "R") == ["WRR"] * 3 and face(f, "D")[0] == "RRR"
    assert face(f, "L") == ["OOY"] * 3


def test_checkerboard_and_group_orders() -> None:
    board = run("R2 L2 U2 D2 F2 B2")
    assert face(board, "F") == ["GBG", "BGB", "GBG"] and face(board, "U") == ["WYW", "YWY", "WYW"]
    assert run(" ".join(["R U R' U'"] * 6)) == solved()
    assert run(" ".join(["R U R' U'"] * 3)) != solved()
    for move in MOVES:
        base = move[0]
        assert run(" ".join([base] * 4)) == solved()
        assert run(f"{base} {base}'") == solved() and run(f"{base}2") == run(f"{base} {base}")


def test_gold_is_the_asked_face_and_never_plain() -> None:
    for level in range(6):
        for item in create_dataset("rubiks_cube", level=level, seed=2, size=20):
            moves = item["metadata"]["moves"]
            assert " ".join(moves) in item["question"]
            gold = face(run(" ".join(moves)), item["metadata"]["face"])
            assert "\n".join(gold) == item["answer"] and len(set("".join(gold))) > 1
            assert all(a[0] != b[0] for a, b in itertools.pairwise(moves))


def test_answer_forms_and_exploits() -> None:
    for level in (0, 3, 5):
        for item in create_dataset("rubiks_cube", level=level, seed=9, size=5):
            assert_grid_exploits("rubiks_cube", item, cell_chars="WY", spaced=False)
            state = run(" ".join(item["metadata"]["moves"]))
            for other in FACES:
                block = "\n".join(face(state, other))
                if block != item["answer"]:
                    assert score("rubiks_cube", block, item) == 0.0
            rows = item["answer"].splitlines()
            turned = ["".join(rows[2 - j][i] for j in range(3)) for i in range(3)]
            if turned != rows:
                assert score("rubiks_cube", "\n".join(turned), item) == 0.0
