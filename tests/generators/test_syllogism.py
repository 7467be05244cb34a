"""syllogism: validity agrees with a brute force over all set models, plus classic cases."""

from __future__ import annotations

import itertools
import random

import pytest

from generators.families.logic import syllogism as fam


def _holds(statement: tuple[str, int, int], nonempty: tuple[int, ...]) -> bool:
    """Evaluate on a model whose non-empty regions each hold one element."""
    form, s, p = statement
    members = [r for r in nonempty if r >> s & 1]
    inside = [r >> p & 1 for r in members]
    return {"A": all(inside), "E": not any(inside), "I": any(inside), "O": not all(inside)}[form]


def _brute_valid(premises, conclusion, num_terms: int, existential_import: bool) -> bool:
    regions = range(1 << num_terms)
    for size in range(len(regions) + 1):
        for nonempty in itertools.combinations(regions, size):
            if existential_import and not all(any(r >> t & 1 for r in nonempty) for t in range(num_terms)):
                continue
            if all(_holds(p, nonempty) for p in premises) and not _holds(conclusion, nonempty):
                return False
    return True


def test_classic_syllogisms() -> None:
    barbara = [("A", 1, 2), ("A", 0, 1)]  # all M are P, all S are M
    assert fam.valid(barbara, ("A", 0, 2), 3, False)
    darapti = [("A", 1, 2), ("A", 1, 0)]  # all M are P, all M are S => some S are P
    assert fam.valid(darapti, ("I", 0, 2), 3, True)
    assert not fam.valid(darapti, ("I", 0, 2), 3, False)
    undistributed = [("A", 2, 1), ("A", 0, 1)]  # all P are M, all S are M
    assert not fam.valid(undistributed, ("A", 0, 2), 3, True)
    ferio = [("E", 1, 2), ("I", 0, 1)]
    assert fam.valid(ferio, ("O", 0, 2), 3, False)


def test_random_statements_match_brute_force() -> None:
    rng = random.Random(11)
    for _ in range(150):
        premises = [(rng.choice("AEIO"), *rng.sample(range(3), 2)) for _ in range(2)]
        conclusion = (rng.choice("AEIO"), *rng.sample(range(3), 2))
        for imp in (True, False):
            assert fam.valid(premises, conclusion, 3, imp) == _brute_valid(premises, conclusion, 3, imp)


@pytest.mark.parametrize("level", [0, 1, 2])
def test_generated_answers_match_brute_force(level: int) -> None:
    config = fam.FAMILY.config_for_level(level)
    for index in range(12 if level < 2 else 4):
        problem = fam.generate(config, random.Random(index))
        terms: list[str] = []
        for _, s, p in problem.extra["premises"]:
            terms += [t for t in (s, p) if t not in terms]
        ids = {t: i for i, t in enumerate(terms)}
        premises = [(f, ids[s], ids[p]) for f, s, p in problem.extra["premises"]]
        follow = []
        for letter, (f, s, p) in zip("ABCDE", problem.extra["conclusions"], strict=False):
            for t in (s, p):
                if t not in ids:
                    ids[t] = len(ids)
            if _brute_valid(premises, (f, ids[s], ids[p]), len(ids), problem.extra["existential_import"]):
                follow.append(letter)
        assert problem.answer == (", ".join(follow) or "none")
        restated = {tuple(st) for st in problem.extra["premises"]}
        assert not restated & {tuple(c) for c in problem.extra["conclusions"]}


def test_hard_level_is_balanced() -> None:
    """Every set of letters is about equally likely (1 in 16), "none" included."""
    config = fam.FAMILY.config_for_level(5)
    answers = [fam.generate(config, random.Random(i)).answer for i in range(320)]
    assert max(answers.count(a) for a in set(answers)) <= 40
    assert 4 <= answers.count("none") <= 40


def test_question_lists_the_statements_in_plain_words() -> None:
    """The question's numbered premises and lettered conclusions are the stored statements
    in words (the lines are written inline from a table of words per form)."""
    words = {"A": "All {} are {}.", "E": "No {} are {}.", "I": "Some {} are {}.", "O": "Some {} are not {}."}
    for level in range(6):
        config = fam.FAMILY.config_for_level(level)
        for index in range(30):
            problem = fam.generate(config, random.Random(index))
            premises = [f"{i}. {words[f].format(s, p)}" for i, (f, s, p) in enumerate(problem.extra["premises"], 1)]
            options = [f"{x}. {words[f].format(s, p)}" for x, (f, s, p) in zip("ABCDE", problem.extra["conclusions"])]
            assert problem.question.startswith("\n".join(["Premises:", *premises, "Candidate conclusions:", *options]))
            assert [fam._phrase((f, 0, 1), [s, p]) for f, s, p in problem.extra["premises"]] == [
                line.split(". ", 1)[1] for line in premises
            ]
