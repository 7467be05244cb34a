"""Public API: lazy import, registry errors, datasets, dedup, composites."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest
from generators_sweep import ROOT

import generators
from generators import registry
from generators.base import Family
from generators.dataset import InsufficientUniqueItems, create_composite, create_dataset


def test_import_is_lazy_and_fast(subprocess_env: dict[str, str]) -> None:
    script = (
        "import sys, time\n"
        "t = time.perf_counter()\n"
        "import generators\n"
        "elapsed = time.perf_counter() - t\n"
        "families = sorted(m for m in sys.modules if m.startswith('generators.'))\n"
        "print(elapsed)\n"
        "print(','.join(families))\n"
        "names = generators.list_families()\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith('generators.families.'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], env=subprocess_env, capture_output=True, text=True, timeout=60, cwd=str(ROOT)
    )
    assert result.returncode == 0, result.stderr
    elapsed, loaded, after_listing = ([*result.stdout.splitlines(), "", ""])[:3]
    assert float(elapsed) < 0.3
    assert loaded == "", f"import generators loaded {loaded}"
    assert after_listing == "", "listing families must not import them"
    timing = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import generators"],
        env=subprocess_env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(ROOT),
    )
    assert "generators.families" not in timing.stderr


def test_registry_lists_and_rejects_unknown_names() -> None:
    names = generators.list_families()
    assert names == sorted(names)
    assert {"basic_arithmetic", "gcd_lcm", "calendar_weekday"} <= set(names)
    with pytest.raises(ValueError, match="gcd_lcm"):
        generators.get_family("gcd_lcn")
    with pytest.raises(ValueError):
        generators.get_family("")
    with pytest.raises(ValueError):
        generators.get_family(None)  # type: ignore[arg-type]
    assert isinstance(generators.get_family("gcd_lcm"), Family)


def test_registry_rejects_module_breaking_the_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("generators.families.fake_family")
    fake.NAME = "fake_family"
    fake.FAMILY = generators.get_family("gcd_lcm")  # wrong name on purpose
    monkeypatch.setattr(registry, "_modules", lambda: {"fake_family": "arithmetic"})
    monkeypatch.setattr(registry.importlib, "import_module", lambda name: fake)
    with pytest.raises(ValueError, match="must equal the module name"):
        registry.get_family("fake_family")
    fake.FAMILY = None
    with pytest.raises(ValueError, match="FAMILY"):
        registry.get_family("fake_family")


def test_dataset_is_deterministic_sequence_with_metadata() -> None:
    a = generators.create_dataset("basic_arithmetic", level=3, seed=11, size=15)
    b = generators.create_dataset("basic_arithmetic", level=3, seed=11, size=15)
    assert list(a) == list(b) and len(a) == 15
    assert a[0]["metadata"]["index"] == 0 and a[0]["metadata"]["level"] == 3
    assert a.score(a[0]["answer"], 0) == 1.0
    assert generators.score("basic_arithmetic", f"<answer>{a[1]['answer']}</answer>", a[1]) == 1.0
    assert 0.0 < a.uniqueness_ratio <= 1.0
    assert a[2:4] == a.items[2:4]
    default = generators.create_dataset("gcd_lcm", size=3)
    assert default.level == 0


def test_config_overrides_level_knobs_and_validates() -> None:
    ds = create_dataset("basic_arithmetic", level=0, size=3, config={"terms": 5})
    assert ds[0]["metadata"]["knobs"]["terms"] == 5
    assert (
        ds[0]["metadata"]["knobs"]["max_operand"] == generators.get_family("basic_arithmetic").levels[0]["max_operand"]
    )
    with pytest.raises(ValueError):
        create_dataset("basic_arithmetic", config={"terms": 99}, size=1)
    with pytest.raises(ValueError):
        create_dataset("basic_arithmetic", size=-1)
    with pytest.raises(ValueError):
        create_dataset("basic_arithmetic", seed=True, size=1)
    with pytest.raises(ValueError):
        create_dataset("basic_arithmetic", config=[1, 2], size=1)  # type: ignore[arg-type]


def test_dedup_and_shortfall() -> None:
    tiny = {"terms": 2, "max_operand": 2, "operators": "+"}  # only 1+1, 1+2, 2+1, 2+2
    with pytest.raises(InsufficientUniqueItems, match="only 4 distinct"):
        create_dataset("basic_arithmetic", config=tiny, size=10)
    ds = create_dataset("basic_arithmetic", config=tiny, size=10, on_shortfall="truncate")
    assert len(ds) == 4 and ds.attempts == 200 and ds.uniqueness_ratio == pytest.approx(4 / 200)
    assert len({item["question"] for item in ds}) == 4


def test_composite_mixes_by_weight_deterministically() -> None:
    specs = {"gcd_lcm": 3.0, "basic_arithmetic": 1.0, "calendar_weekday": 0.0}
    mix = generators.create_composite(specs, level=1, seed=5, size=400)
    again = create_composite(dict(reversed(list(specs.items()))), level=1, seed=5, size=400)
    assert list(mix) == list(again)
    counts = {name: sum(item["metadata"]["family"] == name for item in mix) for name in specs}
    assert counts["calendar_weekday"] == 0
    assert 0.65 < counts["gcd_lcm"] / 400 < 0.85
    assert mix.score(mix[0]["answer"], 0) == 1.0
    per_level = create_composite({"gcd_lcm": 1, "basic_arithmetic": 1}, level={"gcd_lcm": 4}, seed=1, size=20)
    assert {item["metadata"]["level"] for item in per_level if item["metadata"]["family"] == "gcd_lcm"} == {4}
    for bad in ({}, {"gcd_lcm": -1}, {"gcd_lcm": 0}, {"nope": 1}, {"gcd_lcm": float("nan")}):
        with pytest.raises(ValueError):
            create_composite(bad, size=5)


def test_public_names() -> None:
    assert generators.GENERATOR_VERSION
    for name in generators.__all__:
        assert getattr(generators, name) is not None
    with pytest.raises(AttributeError):
        generators.no_such_name  # noqa: B018
