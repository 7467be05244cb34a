"""aiw: the gold equals a count over an explicitly built family (every sibling, friend and
child as a person), the perspective switch is what matters, and near misses score 0."""

from __future__ import annotations

import re
import time

from generators.dataset import create_dataset, score


def _people(item: dict) -> tuple[list[dict], dict]:
    """Everyone the question describes, as dicts with a sex and relations to the protagonist."""
    q = item["question"]
    me = {"sex": "m" if item["metadata"]["male"] else "f", "role": "me", "parent": None}
    people = [me]
    if m := re.search(r"has (\d+) brothers and (\d+) sisters", q):
        people += [{"sex": "m", "role": "sibling", "parent": None} for _ in range(int(m.group(1)))]
        people += [{"sex": "f", "role": "sibling", "parent": None} for _ in range(int(m.group(2)))]
    if m := re.search(r"has (\d+) male friends and (\d+) female friends", q):
        people += [{"sex": "m", "role": "friend", "parent": None} for _ in range(int(m.group(1)))]
        people += [{"sex": "f", "role": "friend", "parent": None} for _ in range(int(m.group(2)))]
    if m := re.search(r"brothers has (\d+) sons and (\d+) daughters", q):
        brothers = [p for p in people if p["role"] == "sibling" and p["sex"] == "m"]
        for brother in brothers:
            people += [{"sex": "m", "role": "child", "parent": brother} for _ in range(int(m.group(1)))]
            people += [{"sex": "f", "role": "child", "parent": brother} for _ in range(int(m.group(2)))]
    return people, me


def _count(item: dict) -> int:
    people, me = _people(item)
    q = item["question"]
    family = [p for p in people if p["role"] in ("me", "sibling")]
    circle = [p for p in people if p["role"] in ("me", "friend")]
    if "sisters does" in q or "brothers does" in q or "siblings does" in q:
        sex = "m" if "brother have" in q else "f"
        person = next(p for p in family if p is not me and p["sex"] == sex)
        others = [p for p in family if p is not person]
        if "siblings does" in q:
            return len(others)
        return sum(p["sex"] == ("f" if "sisters does" in q else "m") for p in others)
    if "daughters do" in q:
        return sum(p["sex"] == "f" for p in family)
    if "children do" in q:
        return len(family)
    if "friends does one of" in q:
        asker_sex = "m" if "male friends have" in q and "female friends have" not in q else "f"
        person = next(p for p in circle if p is not me and p["sex"] == asker_sex)
        wanted = "f" if "How many female friends" in q else "m"
        return sum(p["sex"] == wanted for p in circle if p is not person)
    if "nephews does" in q:
        return sum(p["sex"] == "m" and p["role"] == "child" for p in people)
    brother = next(p for p in family if p is not me and p["sex"] == "m")
    return sum(p["sex"] == "f" and p["role"] == "child" and p["parent"] is not brother for p in people)


def test_gold_is_a_count_over_the_built_family() -> None:
    templates = set()
    for level in range(6):
        for item in create_dataset("aiw", level=level, seed=2, size=40):
            assert _count(item) == int(item["answer"]), item["question"]
            templates.add(item["metadata"]["template"])
    assert len(templates) == 8


def test_perspective_slip_and_other_near_misses_score_zero() -> None:
    for item in create_dataset("aiw", level=0, seed=3, size=30):
        gold = int(item["answer"])
        stated = [int(n) for n in re.search(r"has (\d+) brothers and (\d+) sisters", item["question"]).groups()]
        asked_sisters = "sisters does" in item["question"]
        slip = stated[1] if asked_sisters else stated[0]  # the count as stated, without the protagonist
        if slip != gold:
            assert score("aiw", str(slip), item) == 0.0
        for form in (str(gold), f"Answer: {gold}", f"\\boxed{{{gold}}}"):
            assert score("aiw", form, item) == 1.0
        assert score("aiw", f"{gold} or {gold + 1}", item) == 0.0
        assert score("aiw", f"{gold}, {slip}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("aiw", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("1" * 1_000_000, (item["answer"] + " ") * 100_000):
        assert score("aiw", hostile, item) == 0.0
    assert time.perf_counter() - started < 0.5
