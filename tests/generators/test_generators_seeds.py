"""Item seeds: packed from (stream key, seed, index), one to one, and pinned.

``derive_seed`` packs the seed and index beside a 64-bit SHA-256 of (family, config)
rather than hashing every item; these tests pin the packing, the Mersenne Twister stream
an item seed starts, and a digest of real items, so a change to any of them shows up here
(and goes with a new ``GENERATOR_VERSION``) instead of silently changing every dataset.
"""

from __future__ import annotations

import hashlib
import itertools
import random

from generators import registry
from generators.base import GENERATOR_VERSION, PACKED_LIMIT, SeedStream, canonical_json, derive_seed, stream_key
from generators.dataset import create_dataset, make_item
from generators.fastrandom import FastRandom

KNOBS = {"bits": 24}
ITEMS_DIGEST = "16b76777333a7fdaf917887e07445f400b5a0f5f016e5624f191f13809323934"
"""SHA-256 over 3 items (seed 5) of every family at level 0 and its top level, as made by
this code at ``GENERATOR_VERSION`` 2.3.0 (the metadata records the version, so the digest
moves with it)."""


def test_item_seed_is_the_packed_stream_seed_and_index() -> None:
    key = stream_key("count_bits", KNOBS)
    assert key == 0x3A8BD12D3200F04C
    assert derive_seed("count_bits", KNOBS, 3, 4) == key | 3 << 64 | 4 << 128
    assert SeedStream("count_bits", KNOBS).seed(3, 4) == derive_seed("count_bits", KNOBS, 3, 4)
    # CPython seeds from abs(n)'s 32-bit words: the same stream on every platform and version
    assert random.Random(derive_seed("count_bits", KNOBS, 3, 4)).getrandbits(64) == 12623047564940999583


def test_item_seeds_are_one_to_one() -> None:
    values = [0, 1, 2, 2**32, PACKED_LIMIT - 1]
    seeds = {derive_seed("count_bits", KNOBS, s, i) for s, i in itertools.product(values, repeat=2)}
    assert len(seeds) == len(values) ** 2
    hashed = [
        derive_seed("count_bits", KNOBS, PACKED_LIMIT, 0),
        derive_seed("count_bits", KNOBS, 0, PACKED_LIMIT),
        derive_seed("count_bits", KNOBS, True, 1),
        derive_seed("count_bits", KNOBS, 1, True),
    ]
    assert len(set(hashed)) == len(hashed)
    assert all(seed >= 1 << 192 for seed in hashed) and all(seed < 1 << 192 for seed in seeds)
    assert derive_seed("count_bits", KNOBS, 0, 0) != derive_seed("count_bits", {"bits": 25}, 0, 0)
    assert derive_seed("count_bits", KNOBS, 0, 0) != derive_seed("spell_backward", KNOBS, 0, 0)


def test_make_item_uses_the_derived_seed() -> None:
    family = registry.get_family("count_bits")
    config = family.config_for_level(0)
    for seed, index in ((0, 0), (7, 123), (2**40, 2**50), (PACKED_LIMIT, 3)):
        item = make_item(family, config, 0, seed, index)
        problem = family.generate(config, FastRandom(derive_seed("count_bits", config.as_dict(), seed, index)))
        assert (item["question"], item["answer"]) == (problem.question, problem.answer)


def test_items_are_pinned() -> None:
    assert GENERATOR_VERSION == "2.3.0"
    digest = hashlib.sha256()
    for name in registry.list_families():
        family = registry.get_family(name)
        for level in (0, len(family.levels) - 1):
            dataset = create_dataset(name, level=level, seed=5, size=3, on_shortfall="truncate")
            digest.update(canonical_json(list(dataset)).encode())
    assert digest.hexdigest() == ITEMS_DIGEST, "items changed: bump GENERATOR_VERSION and re-pin"
