"""Each faster routine a family now uses gives what the routine it replaced gave.

The replaced forms stay beside the new ones as references (``*_table``, ``*_loop``); random
inputs well beyond the families' sizes, including the edge cases, are compared here. The
items themselves are pinned by the digest tests (`test_generators_families.py`) and the
procedural bundle digest.
"""

from __future__ import annotations

import itertools
import random

from generators.families.algorithmic import caesar_cipher, edit_distance, knapsack
from generators.families.arithmetic import base_conversion
from generators.families.graphs import graph_coloring
from generators.families.induction import pattern_match


def test_bit_parallel_levenshtein_equals_the_table() -> None:
    rng = random.Random(0)
    for _ in range(2000):
        alphabet = "abcdefghijklmnopqrstuvwxyz"[: rng.randint(1, 26)]
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 70)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 70)))
        assert edit_distance.levenshtein(a, b) == edit_distance.levenshtein_table(a, b), (a, b)


def test_vectorised_knapsack_equals_the_loop() -> None:
    rng = random.Random(1)
    for _ in range(3000):
        n = rng.randint(0, 25)
        weights = [rng.randint(1, 90) for _ in range(n)]
        values = [rng.randint(1, 1000) for _ in range(n)]
        capacity = rng.randint(1, 400)
        assert knapsack.best_value(weights, values, capacity) == knapsack.best_value_loop(weights, values, capacity)


def test_regex_glob_equals_the_token_table_on_awkward_patterns() -> None:
    rng = random.Random(2)
    for _ in range(10000):
        pattern = "".join(rng.choice("ab*?[]!-^\\\nc") for _ in range(rng.randint(0, 9)))
        text = "".join(rng.choice("abc-^]\\[!\n*?") for _ in range(rng.randint(0, 9)))
        assert pattern_match.matches(pattern, text) == pattern_match.matches_table(pattern, text), (pattern, text)


def test_to_base_equals_digit_by_digit() -> None:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"

    def slow(value: int, base: int) -> str:
        out = ""
        while value:
            value, rest = divmod(value, base)
            out = digits[rest] + out
        return out or "0"

    rng = random.Random(3)
    for _ in range(10000):
        base = rng.randint(2, 36)
        value = rng.choice((rng.randint(0, 2 * base * base), rng.randint(0, 10**9), rng.randint(0, 10**30)))
        assert base_conversion.to_base(value, base) == slow(value, base), (value, base)


def test_bitmask_colouring_search_equals_brute_force() -> None:
    rng = random.Random(4)
    for _ in range(1500):
        n, k, p = rng.randint(1, 7), rng.randint(0, 4), rng.random()
        edges = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < p]
        brute = any(all(c[a] != c[b] for a, b in edges) for c in itertools.product(range(k), repeat=n)) if k else n == 0
        assert graph_coloring.colorable(n, edges, k) == brute, (n, edges, k)


def test_word_by_word_caesar_ambiguity_equals_decoding_everything() -> None:
    def slow(cipher: str, shift: int, crib: str | None) -> bool:
        for other in range(1, 26):
            if other == shift:
                continue
            words = caesar_cipher.shift_text(cipher, -other).lower().split()
            if crib is not None and crib in words:
                return True
            if crib is None and all(w in caesar_cipher.WORD_SET for w in words):
                return True
        return False

    rng = random.Random(5)
    pool = sorted(caesar_cipher.WORD_SET)
    for _ in range(3000):
        words = [rng.choice(pool) for _ in range(rng.randint(1, 4))]
        shift = rng.randint(1, 25)
        cipher = caesar_cipher.shift_text(" ".join(words), shift).upper()
        for crib in (None, rng.choice(words), "zzq"):
            assert caesar_cipher._ambiguous(cipher, shift, crib) == slow(cipher, shift, crib)


def test_list_function_rules_built_from_the_first_example_equal_trying_every_rule() -> None:
    from generators.families.induction import list_functions

    rng = random.Random(6)
    for _ in range(400):
        length = rng.randint(0, 9)
        examples = []
        for _ in range(rng.randint(1, 4)):
            given = tuple(rng.randint(-5, 30) for _ in range(length))
            wanted = given if rng.random() < 0.3 else tuple(sorted(given))[::-1]
            examples.append((given, wanted))
        query = tuple(rng.randint(-5, 30) for _ in range(length))
        for tiers, depth in ((1, 1), (2, 2), (3, 2)):
            assert list_functions.fitting_outputs(examples, query, tiers, depth) == (
                list_functions.fitting_outputs_reference(examples, query, tiers, depth)
            )
