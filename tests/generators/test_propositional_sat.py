"""propositional_sat: satisfiability is exact and the scorer verifies assignments."""

from __future__ import annotations

import itertools
import random

import pytest

from generators.families.logic import propositional_sat as fam


def _brute_models(n: int, clauses: list[list[int]]) -> list[tuple[bool, ...]]:
    return [
        values
        for values in itertools.product((False, True), repeat=n)
        if all(any(values[abs(lit) - 1] == (lit > 0) for lit in clause) for clause in clauses)
    ]


def _text(values: tuple[bool, ...]) -> str:
    return ", ".join(f"x{i + 1}={'T' if v else 'F'}" for i, v in enumerate(values))


@pytest.mark.parametrize("level", range(6))
def test_satisfiability_and_scoring_match_brute_force(level: int) -> None:
    config = fam.FAMILY.config_for_level(level)
    for index in range(25):
        problem = fam.generate(config, random.Random(index))
        item = {"question": problem.question, "answer": problem.answer, "metadata": dict(problem.extra)}
        n, clauses = problem.extra["num_vars"], problem.extra["clauses"]
        found = _brute_models(n, clauses)
        assert problem.extra["num_models"] == len(found)
        assert problem.answer.startswith("UNSAT") == (not found)
        assert fam.score(problem.answer, item) == 1.0
        if found:
            assert fam.score("UNSAT", item) == 0.0
            for model in found[:5]:  # any model is accepted
                assert fam.score(f"Answer: {_text(model)}", item) == 1.0
            wrong = next(v for v in itertools.product((False, True), repeat=n) if v not in found)
            assert fam.score(_text(wrong), item) == 0.0
            assert fam.score(", ".join(problem.answer.split(", ")[:-1]), item) == 0.0  # missing var
            assert fam.score(problem.answer + ", " + _text(wrong), item) == 0.0  # stuffing
            assert fam.score("UNSAT or " + problem.answer, item) == 0.0
        else:
            core = [int(k) for k in problem.answer.split(":", 1)[1].split(",")]
            chosen = [clauses[k - 1] for k in core]
            assert not _brute_models(n, chosen)  # the named clauses contradict each other
            for i in range(len(chosen)):  # and every one of them is needed
                assert _brute_models(n, chosen[:i] + chosen[i + 1 :])
            assert fam.score(f"The formula is unsatisfiable.\nAnswer: {problem.answer}", item) == 1.0
            assert fam.score("UNSAT", item) == 0.0  # the bare word is a constant answer
            everything = "UNSAT: " + ", ".join(str(k) for k in range(1, len(clauses) + 1))
            assert fam.score(everything, item) == (1.0 if len(core) == len(clauses) else 0.0)
            assert fam.score(_text((True,) * n), item) == 0.0
            assert fam.score("UNSAT, " + _text((True,) * n), item) == 0.0


def test_both_outcomes_occur() -> None:
    config = fam.FAMILY.config_for_level(5)
    answers = [fam.generate(config, random.Random(i)).answer.startswith("UNSAT") for i in range(60)]
    assert 10 < sum(answers) < 50


def _reference_generate(config: fam.Config, rng: random.Random) -> tuple[list[list[int]], str]:
    """The plain form of ``generate``'s draws and answer: ``sorted(rng.sample(...))`` per
    clause, ``models`` over the whole list, ``minimal_core`` for an UNSAT answer."""
    n = config.num_vars
    want_sat = rng.random() < config.sat_rate
    for _ in range(fam._MAX_TRIES):
        clauses: list[list[int]] = []
        while len(clauses) < config.num_clauses:
            chosen = sorted(rng.sample(range(1, n + 1), config.clause_width))
            clause = [v if rng.random() < 0.5 else -v for v in chosen]
            if clause not in clauses:
                clauses.append(clause)
        found = fam.models(n, clauses)
        if (found != 0) == want_sat:
            break
    if found:
        return clauses, "SAT"
    return clauses, "UNSAT: " + ", ".join(map(str, fam.minimal_core(n, clauses)))


@pytest.mark.parametrize(
    "knobs",
    [
        {"num_vars": 4, "num_clauses": 9, "clause_width": 2},
        {"num_vars": 5, "num_clauses": 23, "clause_width": 3},
        {"num_vars": 8, "num_clauses": 40, "clause_width": 5},  # over the table size: the pool path
        {"num_vars": 3, "num_clauses": 6, "clause_width": 1},
    ],
)
def test_table_draws_and_bitset_core_equal_the_plain_form(knobs: dict[str, int]) -> None:
    config = fam.Config(**knobs)
    for seed in range(60):
        ours, theirs = random.Random(seed), random.Random(seed)
        problem = fam.generate(config, ours)
        clauses, answer = _reference_generate(config, theirs)
        assert problem.extra["clauses"] == clauses
        assert problem.answer == answer or (answer == "SAT" and not problem.answer.startswith("UNSAT"))
        assert ours.random() == theirs.random()  # the same draws were made
