"""Instruction wording as data: ``templates/phrasings/*.yaml``.

Each file maps a *form* (what is being asked, e.g. ``by_id``) to a list of template
strings with ``{slot}`` placeholders. A family fills the slots and a seeded RNG picks
the variant, so wording varies across tasks yet the same inputs always give the same
text. Templates are validated on load: placeholders must be plain names (no attribute
or index access), so a template can only ever insert the strings it is given.
"""

from __future__ import annotations

import random
import re
import string
from functools import cache
from pathlib import Path

from pipeline.world.blueprint import templates_dir
from pipeline.world.yamlfile import load_yaml

_SLOT = re.compile(r"^[a-z][a-z0-9_]*$")


def phrasings_dir() -> Path:
    return templates_dir() / "phrasings"


def _slots(template: str, where: str) -> set[str]:
    names = set()
    for _, name, spec, conv in string.Formatter().parse(template):
        if name is None:
            continue
        if not _SLOT.match(name) or spec or conv:
            raise ValueError(f"{where}: placeholder {{{name}}} must be a plain lower-case name")
        names.add(name)
    return names


class Phrasebook:
    """Every phrasing file, by name (``lookup``, ``common``, ...) and form."""

    def __init__(self, books: dict[str, dict[str, tuple[str, ...]]]) -> None:
        self.books = books

    @classmethod
    def load(cls, directory: Path | None = None) -> Phrasebook:
        return _load(str(directory or phrasings_dir()))

    def variants(self, book: str, form: str) -> tuple[str, ...]:
        try:
            return self.books[book][form]
        except KeyError:
            raise ValueError(f"no phrasing {book}.{form} under templates/phrasings/") from None

    def render(self, rng: random.Random, book: str, form: str, **slots: object) -> str:
        """One variant of ``book.form`` with its slots filled; a missing slot is an error."""
        template = rng.choice(self.variants(book, form))
        missing = _slots(template, f"{book}.{form}") - set(slots)
        if missing:
            raise ValueError(f"phrasing {book}.{form} needs slots {sorted(missing)}")
        text = template.format_map({k: str(v) for k, v in slots.items()})
        return " ".join(text.split())


@cache
def _load(directory: str) -> Phrasebook:
    books: dict[str, dict[str, tuple[str, ...]]] = {}
    for path in sorted(Path(directory).glob("*.yaml")):
        data = load_yaml(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not data:
            raise ValueError(f"{path.name}: expected a mapping of form -> list of templates")
        forms: dict[str, tuple[str, ...]] = {}
        for form, variants in data.items():
            if not isinstance(variants, list) or not variants or not all(isinstance(v, str) for v in variants):
                raise ValueError(f"{path.name}: {form} must be a non-empty list of strings")
            for v in variants:
                _slots(v, f"{path.name}: {form}")
            forms[str(form)] = tuple(variants)
        books[path.stem] = forms
    return Phrasebook(books)


def sentence(text: str) -> str:
    """Capitalise the first letter only (names and codes inside keep their case)."""
    return text[:1].upper() + text[1:] if text else text


REFUSAL_FORM = ("common", "refusal_form")
"""The sentence every task instruction ends with: how to answer when a request cannot be done."""


def refusal_form(rng: random.Random, phrases: Phrasebook | None = None) -> str:
    """One wording of the refusal form (see ``templates/phrasings/common.yaml``)."""
    return (phrases or Phrasebook.load()).render(rng, *REFUSAL_FORM)


def split_refusal_form(instruction: str, phrases: Phrasebook | None = None) -> tuple[str, str]:
    """(the request, the refusal sentence it ends with); the sentence is "" if there is none."""
    for template in (phrases or Phrasebook.load()).variants(*REFUSAL_FORM):
        form = " ".join(template.format().split())
        if instruction.endswith(" " + form):
            return instruction[: -len(form) - 1], form
    return instruction, ""
