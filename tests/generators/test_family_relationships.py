"""family_relationships: the fast structural pair table agrees with the pairwise definition,
the question's family (parsed back from its sentences) gives the gold relation, answers are
spread, and wrong or stuffed relationship words score 0."""

from __future__ import annotations

import random
import re
from collections import Counter

from generators import priors
from generators.dataset import create_dataset, score
from generators.families.graphs import family_relationships as fr

NAME = "family_relationships"


def test_structural_pairs_match_pairwise_definition() -> None:
    for level in range(6):
        config = fr.FAMILY.config_for_level(level)
        for seed in range(60):
            people = fr._family(config, random.Random(seed))
            want: dict[str, set[tuple[str, str]]] = {}
            for a in people:
                for b in people:
                    kind = fr.relation(a, b) if a is not b else None
                    if kind:
                        want.setdefault(kind, set()).add((a.name, b.name))
            got = {k: {(a.name, b.name) for a, b in v} for k, v in fr.pairs_by_kind(people).items()}
            assert got == want


def _walk_pairs(people: list[fr.Person]) -> dict[str, list[tuple[str, str]]]:
    """The pair table as one walk that files each pair (and its inverse) as it finds it:
    the order generate draws a pair from."""
    inverse = {"parent": "child", "grandparent": "grandchild", "pibling": "nibling", "parent_in_law": "child_in_law"}
    out: dict[str, list[tuple[str, str]]] = {}

    def add(kind: str, a: fr.Person, b: fr.Person) -> None:
        out.setdefault(kind, []).append((a.name, b.name))
        if kind in inverse:
            out.setdefault(inverse[kind], []).append((b.name, a.name))

    for p in people:
        if p.spouse is not None:
            add("spouse", p, p.spouse)
        for parent in p.parents:
            add("parent", parent, p)
            for grandparent in parent.parents:
                add("grandparent", grandparent, p)
            for aunt in fr._siblings(parent):
                add("pibling", aunt, p)
                if aunt.spouse is not None:
                    add("pibling", aunt.spouse, p)
        for sibling in fr._siblings(p):
            add("sibling", sibling, p)
            if sibling.spouse is not None:
                add("sibling_in_law", sibling.spouse, p)
            for cousin in sibling.children:
                for own in p.children:
                    add("cousin", cousin, own)
        if p.spouse is not None:
            for parent in p.spouse.parents:
                add("parent_in_law", parent, p)
            for sibling in fr._siblings(p.spouse):
                add("sibling_in_law", sibling, p)
    return out


def test_pair_lists_keep_the_walk_order() -> None:
    """Each kind's list is in the order of the walk (what ``rng.choice`` indexes), and only
    kinds that occur are keys (what the sorted kind list holds)."""
    for level in range(6):
        config = fr.FAMILY.config_for_level(level)
        for seed in range(60):
            people = fr._family(config, random.Random(seed))
            got = {k: [(a.name, b.name) for a, b in v] for k, v in fr.pairs_by_kind(people).items()}
            assert got == _walk_pairs(people)


def _parse(question: str) -> tuple[dict[str, str], dict[str, tuple[str, str]], dict[str, bool]]:
    spouse: dict[str, str] = {}
    parents: dict[str, tuple[str, str]] = {}
    male: dict[str, bool] = {}
    for a, b in re.findall(r"(\w+) is married to (\w+)\.", question):
        spouse[a], spouse[b] = b, a
        male[a], male[b] = True, False
    for mother, father, kids in re.findall(r"(\w+) and (\w+) have ((?:a (?:son|daughter), \w+(?:, )?)+)\.", question):
        for kind, child in re.findall(r"a (son|daughter), (\w+)", kids):
            parents[child] = (mother, father)
            male[child] = kind == "son"
    return spouse, parents, male


def _what(a: str, b: str, spouse: dict[str, str], parents: dict[str, tuple[str, str]]) -> str | None:
    """An independent reading of the same definitions over names."""

    def sibs(x: str) -> set[str]:
        return {c for c, ps in parents.items() if x in parents and ps == parents[x] and c != x}

    def grand(x: str) -> set[str]:
        return {g for p in parents.get(x, ()) for g in parents.get(p, ())}

    aunts = {s for p in parents.get(b, ()) for s in sibs(p)}
    aunts |= {spouse[s] for s in aunts if s in spouse}
    table = [
        ("spouse", spouse.get(b) == a),
        ("parent", a in parents.get(b, ())),
        ("child", b in parents.get(a, ())),
        ("sibling", a in sibs(b)),
        ("grandparent", a in grand(b)),
        ("grandchild", b in grand(a)),
        ("pibling", a in aunts),
        (
            "nibling",
            b
            in {s for p in parents.get(a, ()) for s in sibs(p)}
            | {spouse.get(s) for p in parents.get(a, ()) for s in sibs(p)},
        ),
        ("cousin", any(x in sibs(y) for x in parents.get(a, ()) for y in parents.get(b, ()))),
        ("parent_in_law", b in spouse and a in parents.get(spouse[b], ())),
        ("child_in_law", a in spouse and b in parents.get(spouse[a], ())),
        ("sibling_in_law", (b in spouse and a in sibs(spouse[b])) or (a in spouse and b in sibs(spouse[a]))),
    ]
    return next((kind for kind, holds in table if holds), None)


def test_gold_matches_family_parsed_from_question() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=5, size=40):
            spouse, parents, male = _parse(item["question"])
            a, b = re.search(r"What is (\w+) to (\w+)\?", item["question"]).groups()  # type: ignore[union-attr]
            kind = _what(a, b, spouse, parents)
            assert kind == item["metadata"]["relation"]
            assert item["answer"] == fr._WORDS[kind][0 if male[a] else 1]


def test_answers_are_spread_and_forms_score() -> None:
    counts = Counter(item["answer"] for item in create_dataset(NAME, level=3, seed=1, size=400))
    assert len(counts) >= 15 and max(counts.values()) / 400 < 0.1
    assert priors.measure(NAME, 0, size=300, seed=3).reward < 0.1
    item = {"answer": "mother-in-law", "metadata": {"relation": "parent_in_law"}}
    for right in ("mother-in-law", "Mother in law", "<answer>mother-in-law</answer>", "Answer: mother-in-law."):
        assert score(NAME, right, item) == 1.0, right
    for wrong in (
        "mother",
        "father-in-law",
        "mother-in-law, mother",
        "mother-in-law or aunt",
        "she is the mother-in-law",
        "mother-in-law" * 100_000,
    ):
        assert score(NAME, wrong, item) == 0.0, wrong[:40]


def test_counts_and_one_kinds_pairs_equal_the_whole_table() -> None:
    """generate draws the kind from ``kind_counts`` and the pair from ``pairs_of``: the same
    kinds, lengths and ordered pairs as ``pairs_by_kind`` (every kind, every level)."""
    for level in range(6):
        config = fr.FAMILY.config_for_level(level)
        for seed in range(80):
            people = fr._family(config, random.Random(seed))
            table = fr.pairs_by_kind(people)
            assert fr.kind_counts(people) == {kind: len(pairs) for kind, pairs in table.items()}
            assert fr.kinds_present(people) == tuple(sorted(table))
            for kind in fr._WORDS:
                assert fr.pairs_of(people, kind) == table.get(kind, [])


def test_generate_draws_as_from_the_whole_table() -> None:
    """The question, answer and generator state equal drawing the kind and the pair from
    ``pairs_by_kind``, as generate did before."""
    for level in range(6):
        config = fr.FAMILY.config_for_level(level)
        for seed in range(60):
            ours, theirs = random.Random(seed), random.Random(seed)
            problem = fr.generate(config, ours)
            people = fr._family(config, theirs)
            table = fr.pairs_by_kind(people)
            kind = theirs.choice(sorted(table))
            a, b = theirs.choice(table[kind])
            assert problem.answer == fr._WORDS[kind][0 if a.male else 1]
            assert problem.extra == {"relation": kind}
            assert problem.question.startswith(fr._describe(people, theirs))
            assert f"What is {a.name} to {b.name}?" in problem.question
            assert ours.getstate() == theirs.getstate()


def test_kinds_present_at_the_knobs_extremes() -> None:
    """The kinds read off the family's shape equal the counted ones for every corner of the
    knob ranges (one child cap, nobody or everybody married, one or four grandchildren)."""
    for max_children in (1, 2, 5):
        for married_share in (0.0, 0.3, 1.0):
            for max_grandchildren in (1, 4):
                config = fr.Config(
                    max_children=max_children, married_share=married_share, max_grandchildren=max_grandchildren
                )
                for seed in range(40):
                    people = fr._family(config, random.Random(seed))
                    assert fr.kinds_present(people) == tuple(sorted(fr.kind_counts(people)))
