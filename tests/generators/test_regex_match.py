"""regex_match: the family's NFA matcher agrees with Python's ``re`` on the dialect, gold
labels are exactly the full matches as the standard library parses the pattern, and label-set
exploits score 0."""

from __future__ import annotations

import random
import re
import time
from re import _constants as sre  # the standard library's own regex parser
from re import _parser as sre_parse

import pytest

from generators.dataset import create_dataset, score
from generators.families.code import regex_match as rm


def test_matcher_agrees_with_re_on_random_regexes() -> None:
    rng = random.Random(0)
    for _ in range(400):
        alphabet = "abc"
        pattern = rm.render(rm._random_tree(rng.randint(1, 4), alphabet, True, rng))
        if not pattern:
            continue
        matcher = rm.Matcher(rm.parse(pattern, alphabet), alphabet)
        compiled = re.compile(pattern.replace(".", "[abc]"))
        for _ in range(15):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 7)))
            assert matcher.fullmatch(text) == bool(compiled.fullmatch(text)), (pattern, text)


def test_rendering_round_trips_through_the_parser() -> None:
    rng = random.Random(1)
    for _ in range(300):
        pattern = rm.render(rm._random_tree(3, "abcd", True, rng))
        assert rm.render(rm.parse(pattern, "abcd")) == pattern
    for bad in ("(ab", "a)", "[ab", "*a", "a{2}", "a**", "a??"):
        with pytest.raises(ValueError):
            rm.parse(bad, "ab")


def _fullmatch(pattern: str, text: str) -> bool:
    """Whether ``text`` matches all of ``pattern``, as ``re`` parses it, by the set of positions each
    part can end at from each start (memoised): polynomial where ``re``'s backtracking is
    exponential on nested repeats such as ``((.*)*)+(c?)*`` (one level-5 item took 150 s)."""
    memo: dict[tuple[int, int, int], frozenset[int]] = {}

    def seq(items: list[tuple[object, object]], k: int, i: int) -> frozenset[int]:
        key = (id(items), k, i)
        if key not in memo:
            if k == len(items):
                memo[key] = frozenset({i})
            else:
                memo[key] = frozenset(e for j in one(items[k], i) for e in seq(items, k + 1, j))
        return memo[key]

    def char(av: list[tuple[object, object]], c: str) -> bool:
        found, negate = False, False
        for op, arg in av:
            if op is sre.NEGATE:
                negate = True
            elif op is sre.LITERAL:
                found |= ord(c) == arg
            elif op is sre.RANGE:
                low, high = arg
                found |= low <= ord(c) <= high
            else:
                raise AssertionError(f"unexpected class item {op}")
        return found != negate

    def one(item: tuple[object, object], i: int) -> frozenset[int]:
        op, av = item
        if op is sre.LITERAL:
            return frozenset({i + 1}) if i < len(text) and ord(text[i]) == av else frozenset()
        if op is sre.ANY:
            return frozenset({i + 1}) if i < len(text) else frozenset()
        if op is sre.IN:
            return frozenset({i + 1}) if i < len(text) and char(av, text[i]) else frozenset()
        if op is sre.SUBPATTERN:
            return seq(av[3].data, 0, i)
        if op is sre.BRANCH:
            return frozenset(e for branch in av[1] for e in seq(branch.data, 0, i))
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            low, high, body = av
            reach = frozenset({i})
            for _ in range(low):
                reach = frozenset(e for j in reach for e in seq(body.data, 0, j))
            out, frontier, count = set(reach), set(reach), low
            while frontier and (high is sre.MAXREPEAT or count < high):
                nxt = {e for j in frontier for e in seq(body.data, 0, j)}
                count += 1
                frontier = nxt - out  # seen with fewer repeats, so with more of them left
                out |= nxt
            return frozenset(out)
        raise AssertionError(f"unexpected regex node {op}")

    return len(text) in seq(sre_parse.parse(pattern).data, 0, 0)


def test_the_position_set_matcher_agrees_with_re() -> None:
    rng = random.Random(2)
    for _ in range(300):
        pattern = rm.render(rm._random_tree(rng.randint(1, 4), "abc", True, rng)).replace(".", "[abc]")
        if not pattern:
            continue
        compiled = re.compile(pattern)
        for _ in range(10):
            text = "".join(rng.choice("abc") for _ in range(rng.randint(0, 7)))
            assert _fullmatch(pattern, text) == bool(compiled.fullmatch(text)), (pattern, text)


def test_gold_labels_are_the_full_matches() -> None:
    for level in range(6):
        for item in create_dataset("regex_match", level=level, seed=4, size=30):
            meta = item["metadata"]
            letters = "".join(meta["alphabet"])
            pattern = meta["pattern"].replace(".", f"[{letters}]")
            labels = [rm.LABELS[i] for i, text in enumerate(meta["candidates"]) if _fullmatch(pattern, text)]
            assert item["answer"] == ", ".join(labels)
            assert 0 < len(labels) < len(meta["candidates"])
            assert len(set(meta["candidates"])) == len(meta["candidates"])


def test_label_set_exploits_fail() -> None:
    for item in create_dataset("regex_match", level=2, seed=8, size=20):
        gold = item["answer"]
        labels = [rm.LABELS[i] for i in range(len(item["metadata"]["candidates"]))]
        chosen = gold.split(", ")
        assert score("regex_match", ", ".join(reversed(chosen)), item) == 1.0  # order is free
        assert score("regex_match", f"[{gold}]", item) == 1.0
        assert score("regex_match", gold.lower(), item) == 1.0
        assert score("regex_match", ", ".join(labels), item) == 0.0
        assert score("regex_match", "none", item) == 0.0
        assert score("regex_match", ", ".join(chosen[1:]), item) == 0.0 or len(chosen) == 1
        extra = next(label for label in labels if label not in chosen)
        assert score("regex_match", f"{gold}, {extra}", item) == 0.0
        assert score("regex_match", f"{gold}, {gold}", item) == 0.0


def test_huge_answers_are_refused_fast() -> None:
    item = create_dataset("regex_match", level=5, seed=1, size=1)[0]
    started = time.perf_counter()
    for hostile in ("A, " * 350_000, (item["answer"] + " ") * 50_000):
        assert score("regex_match", hostile, item) == 0.0
    assert time.perf_counter() - started < 1.0
