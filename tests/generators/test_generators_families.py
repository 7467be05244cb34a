"""One sweep over every registered family × level: the contract every family must keep.

Families are discovered through the registry, so a new module under
``generators/families/`` is covered without touching this file. A family whose answers
admit several correct forms can define ``wrong_answers(item) -> list[str]`` at module
level; otherwise wrong answers are made by perturbing the gold one.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from generators_sweep import GRID, ROOT, SEED, sweep_dataset

from generators import registry
from generators.answers import format_number, normalize_text, parse_number
from generators.base import (
    GENERATOR_VERSION,
    Family,
    Knobs,
    canonical_json,
    derive_seed,
)
from generators.dataset import create_dataset, make_item, score
from generators.scoring import ScorerError

FAMILY_NAMES = registry.list_families()
IDS = [f"{name}-L{level}" for name, level in GRID]
CHECKED_ITEMS = 6
"""Items per (family, level) put through the scoring checks."""
UNIQUENESS_FLOOR = 0.5
METADATA_KEYS = {"family", "level", "knobs", "seed", "index", "generator_version"}
WEIRD_INPUTS: list[Any] = [
    None,
    123,
    b"bytes",
    "",
    "   \n\t ",
    "\x00\x01\x02",
    "💥" * 500,
    "ﾟ･✿ヾ╲(｡◕‿◕｡)╱✿･ﾟ",
    "1" * 20_000,
    "9" * 5000 + "/" + "0",
    "-" * 50_000,
    "<answer>" * 5000,
    "\\boxed{" * 5000,
    "{" * 5000 + "}" * 4000,
    "Answer: " * 5000,
    "x " * 100_000,
    "1e999999999",
    "nan",
    "inf",
    "<answer></answer>",
    "\\boxed{}",
]


def family(name: str) -> Family:
    return registry.get_family(name)


def module(name: str) -> Any:
    return importlib.import_module(registry.module_name(name))


def items(name: str, level: int, count: int = CHECKED_ITEMS) -> list[dict[str, Any]]:
    return list(sweep_dataset(name, level))[:count]


# -- wrong answers --------------------------------------------------------------------


def _bump_digit(text: str, which: int) -> str | None:
    positions = [i for i, char in enumerate(text) if char.isdigit()]
    if not positions:
        return None
    i = positions[which]
    return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1 :]


def _alter_letter(text: str, which: int) -> str | None:
    positions = [i for i, char in enumerate(text) if char.isalpha()]
    if not positions:
        return None
    i = positions[which]
    char = text[i]
    replacement = "b" if char.lower() == "a" else "a"
    replacement = replacement.upper() if char.isupper() else replacement
    return text[:i] + replacement + text[i + 1 :]


def perturbations(gold: str) -> list[str]:
    """Distinct plausible-but-wrong variants of ``gold`` (numbers +1.., digits and letters altered)."""
    out: list[str] = []
    value = parse_number(gold)
    if value is not None:
        for delta in (1, 2, 3, -1, 5, 10):
            if value.denominator == 1 or "." in gold:
                out.append(format_number(value + delta) if "." not in gold else str(float(value + delta)))
            else:
                out.append(f"{value.numerator + delta}/{value.denominator}")
    for which in (-1, 0, -2, 1):
        for make in (_bump_digit, _alter_letter):
            try:
                variant = make(gold, which)
            except IndexError:
                variant = None
            if variant is not None:
                out.append(variant)
    out.append(gold + "x")
    seen: list[str] = []
    for variant in out:
        if variant != gold and variant.strip() and variant not in seen:
            seen.append(variant)
    return seen


def wrong_answers(name: str, item: dict[str, Any]) -> list[str]:
    hook = getattr(module(name), "wrong_answers", None)
    if hook is not None:
        return list(hook(item))
    return perturbations(str(item["answer"]))[:1]


def junk_for(gold: str) -> str:
    return "zzqx" if "banana" in gold.lower() else "banana"


# -- contract -------------------------------------------------------------------------


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_family_module_contract(name: str) -> None:
    fam = family(name)
    mod = module(name)
    assert fam.name == name == mod.NAME
    assert len(fam.levels) == 6, "families define levels 0..5"
    assert issubclass(fam.config, Knobs)
    assert fam.answer_kind in ("int", "number", "text", "exact", "list", "set")
    assert fam.description.strip()
    fam.config()  # every knob has a valid default
    for level in range(len(fam.levels)):
        fam.config_for_level(level)
    tree = ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))
    order = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            order.append(node.name)
        elif isinstance(node, ast.Assign):
            order.extend(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            order.append(node.target.id)
    wanted = [n for n in ("NAME", "Config", "LEVELS", "generate", "score", "FAMILY") if n in order]
    assert [n for n in order if n in wanted] == wanted, f"module layout order is {order}"
    banned = {"eval", "exec", "hash", "compile"}
    calls = [
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in banned
    ]
    assert not calls, f"families never call {', '.join(sorted(set(calls)))} (no eval/exec, no Python hash())"


@pytest.mark.parametrize(("name", "level"), GRID, ids=IDS)
def test_items_have_keys_and_metadata(name: str, level: int) -> None:
    fam = family(name)
    dataset = sweep_dataset(name, level)
    assert len(dataset) >= 1
    config = fam.config_for_level(level)
    for index, item in enumerate(dataset):
        assert set(item) == {"question", "answer", "metadata"}
        assert isinstance(item["question"], str) and item["question"].strip()
        assert isinstance(item["answer"], str) and item["answer"].strip()
        meta = item["metadata"]
        assert set(meta) >= METADATA_KEYS
        assert meta["family"] == name and meta["level"] == level and meta["seed"] == SEED
        assert meta["knobs"] == config.as_dict()
        assert meta["generator_version"] == GENERATOR_VERSION
        json.loads(canonical_json(meta))  # metadata is JSON-serialisable
        if index == 0:
            again = make_item(fam, config, level, SEED, meta["index"])
            assert again == item, "an item regenerates from its metadata"


@pytest.mark.parametrize(("name", "level"), GRID, ids=IDS)
def test_gold_answer_scores_one(name: str, level: int) -> None:
    for item in items(name, level):
        gold = item["answer"]
        for response in (
            gold,
            f"<answer>{gold}</answer>",
            f"\\boxed{{{gold}}}",
            f"Some reasoning.\n<answer>\n{gold}\n</answer>",
        ):
            assert score(name, response, item) == 1.0, f"gold {gold!r} as {response!r}"


@pytest.mark.parametrize(("name", "level"), GRID, ids=IDS)
def test_empty_junk_and_wrong_answers_fail(name: str, level: int) -> None:
    for item in items(name, level):
        gold = item["answer"]
        assert score(name, "", item) == 0.0
        assert score(name, junk_for(gold), item) == 0.0
        for wrong in wrong_answers(name, item):
            assert normalize_text(wrong) != normalize_text(gold)
            assert score(name, wrong, item) < 1.0, f"wrong answer {wrong!r} for gold {gold!r} scored 1.0"
            assert score(name, f"<answer>{wrong}</answer>", item) < 1.0


@pytest.mark.parametrize(("name", "level"), GRID, ids=IDS)
def test_answer_stuffing_fails(name: str, level: int) -> None:
    for item in items(name, level):
        gold = item["answer"]
        candidates = perturbations(gold)[:8] or [gold + "x"]
        stuffed_forms = [
            ", ".join([gold, *candidates]),
            ", ".join([*candidates, gold]),
            f"<answer>{', '.join([gold, *candidates])}</answer>",
            " or ".join([gold, *candidates]),
        ]
        for stuffed in stuffed_forms:
            assert score(name, stuffed, item) < 1.0, f"stuffed {stuffed[:200]!r} scored 1.0 (gold {gold!r})"


@pytest.mark.parametrize(("name", "level"), GRID, ids=IDS)
def test_score_never_raises_on_an_answer_and_reports_a_broken_item(name: str, level: int) -> None:
    """Any answer scores in [0, 1]; an item with nothing in it is a ScorerError (the
    project's fault, reported as the status ``error``), never a quiet 0.0."""
    fam = family(name)
    item = items(name, level, 1)[0]
    for weird in WEIRD_INPUTS:
        value = score(name, weird, item)
        assert isinstance(value, float) and 0.0 <= value <= 1.0 and math.isfinite(value)
        if fam.score is not None and isinstance(weird, str):
            direct = fam.score(weird, item)  # a family scorer must be total on strings
            assert 0.0 <= float(direct) <= 1.0
    broken = {"question": item["question"], "answer": item["answer"], "metadata": {}}
    with contextlib.suppress(ScorerError):  # a family that needs nothing but the gold may still score it
        assert 0.0 <= score(name, item["answer"], broken) <= 1.0
    with pytest.raises(ScorerError):
        score(name, item["answer"], {})


@pytest.mark.parametrize(("name", "level"), GRID, ids=IDS)
def test_seed_streams_differ(name: str, level: int) -> None:
    fam = family(name)
    config = fam.config_for_level(level)
    knobs = config.as_dict()
    pairs = [(0, 0), (3, 7), (11, 2)]
    same = 0
    for s, i in pairs:
        assert derive_seed(name, knobs, s, i + 1) != derive_seed(name, knobs, s + 1, i)
        a = make_item(fam, config, level, s, i + 1)
        b = make_item(fam, config, level, s + 1, i)
        same += a["question"] == b["question"] and a["answer"] == b["answer"]
    assert same < len(pairs), "(s, i + 1) and (s + 1, i) must give different items"
    first = [item["question"] for item in sweep_dataset(name, level)][:4]
    other = [
        item["question"]
        for item in create_dataset(name, level=level, seed=SEED + 1, size=len(first), on_shortfall="truncate")
    ]
    assert first != other


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_invalid_knobs_raise_value_error(name: str) -> None:
    fam = family(name)
    for knob, (low, high) in fam.config.RANGES.items():
        for bad in (high + 1, low - 1, "7", None, True):
            if isinstance(bad, (int, float)) and not isinstance(bad, bool) and not math.isfinite(bad):
                continue
            with pytest.raises(ValueError):
                fam.config(**{knob: bad})
    with pytest.raises(ValueError):
        create_dataset(name, level=0, size=1, config={"no_such_knob": 1})
    for level in (-1, len(fam.levels), "1"):
        with pytest.raises(ValueError):
            create_dataset(name, level=level, size=1)


def test_every_family_imports() -> None:
    broken = []
    for name in FAMILY_NAMES:
        try:
            registry.get_family(name)
        except Exception as error:
            broken.append(f"{name}: {error!r}")
    assert not broken, broken


_HASH_SCRIPT = """
import hashlib, sys
sys.path.insert(0, {root!r})
from generators import registry
from generators.base import canonical_json
from generators.dataset import create_dataset
digest = hashlib.sha256()
for name in registry.list_families():
    fam = registry.get_family(name)
    for level in (0, len(fam.levels) - 1):
        ds = create_dataset(name, level=level, seed=5, size=3, on_shortfall="truncate")
        digest.update(canonical_json(list(ds)).encode())
        print(name, level, hashlib.sha256(canonical_json(list(ds)).encode()).hexdigest()[:16])
print("ALL", digest.hexdigest())
"""


def test_generation_identical_across_hash_seeds(subprocess_env: dict[str, str]) -> None:
    script = _HASH_SCRIPT.format(root=str(ROOT))
    outputs = []
    for hash_seed in ("1", "4242"):
        env = dict(subprocess_env, PYTHONHASHSEED=hash_seed)
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1], "generation depends on PYTHONHASHSEED"
    assert "ALL" in outputs[0]


def test_uniqueness_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Measured share of draws that were new, per family/level (floor unless notes say 'small')."""
    rows = []
    failures = []
    for name, level in GRID:
        fam = family(name)
        dataset = sweep_dataset(name, level)
        ratio = dataset.uniqueness_ratio
        rows.append((name, level, len(dataset), dataset.attempts, ratio))
        if "small" not in fam.notes.lower() and (ratio < UNIQUENESS_FLOOR or len(dataset) < dataset.requested):
            failures.append(f"{name} L{level}: {len(dataset)} unique in {dataset.attempts} draws ({ratio:.2f})")
    with capsys.disabled():
        print("\nuniqueness (unique items / draws) at size", rows[0][2] if rows else 0)
        print(f"{'family':32} " + " ".join(f"L{level:<5}" for level in range(6)))
        by_family: dict[str, list[str]] = {}
        for name, _level, _, _, ratio in rows:
            by_family.setdefault(name, []).append(f"{ratio:5.2f}")
        for name, cells in by_family.items():
            print(f"{name:32} " + " ".join(cells))
    assert not failures, failures


def test_dataset_helpers_agree_with_fraction_formatting() -> None:
    assert format_number(Fraction(6, 8)) == "3/4"
    assert format_number(Fraction(-4, 2)) == "-2"
