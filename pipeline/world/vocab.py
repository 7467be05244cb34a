"""Which vocabulary a text field draws from: the names under ``templates/vocab/`` and the defaults.

A vocabulary is data (``templates/vocab/<name>.yaml``: a list of values, or patterns over
lists, optionally in groups picked by another field); :mod:`pipeline.data.vocab` draws from
it and recognises its values. A field names its vocabulary with ``vocab:``; otherwise the
blueprint's ``vocab:`` map gives one per semantic type for the domain, and otherwise
``templates/vocab/defaults.yaml`` gives the catalogue-wide one. Types Faker's data fits
(people, places, contact data) have no default and keep their own generators.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pipeline.world.yamlfile import load_yaml


def vocab_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "templates" / "vocab"


@cache
def vocab_names() -> frozenset[str]:
    return frozenset(p.stem for p in vocab_dir().glob("*.yaml") if p.stem != "defaults")


@cache
def type_defaults() -> dict[str, str]:
    """Semantic type -> vocabulary used when neither the field nor the blueprint names one."""
    path = vocab_dir() / "defaults.yaml"
    data = load_yaml(path.read_text(encoding="utf-8")) if path.is_file() else {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of semantic type to vocabulary")
    return {str(k): str(v) for k, v in data.items()}


def check_vocab(name: str, where: str) -> None:
    if name not in vocab_names():
        raise ValueError(f"{where}: unknown vocabulary {name!r} (no templates/vocab/{name}.yaml)")


def resolve_vocab(explicit: str | None, semantic: str, domain_defaults: dict[str, str]) -> str | None:
    """The vocabulary of a field: its own, else the domain's for its type, else the catalogue's."""
    if explicit is not None:
        return explicit
    return domain_defaults.get(semantic) or type_defaults().get(semantic)
