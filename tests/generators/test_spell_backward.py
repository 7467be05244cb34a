"""spell_backward: the gold reverses the quoted text; the forward text, a one-letter slip,
words reversed in place (not as one string) and stuffed answers score 0."""

from __future__ import annotations

from generators.dataset import create_dataset, score

NAME = "spell_backward"


def test_gold_reverses_quoted_text() -> None:
    for level in range(6):
        for item in create_dataset(NAME, level=level, seed=2, size=30):
            text = item["question"].split('"')[1]
            assert item["answer"] == "".join(reversed(text))


def test_forms_and_exploits() -> None:
    item = create_dataset(NAME, level=4, seed=3, size=1)[0]
    text, gold = item["metadata"]["text"], item["answer"]
    assert score(NAME, gold.upper(), item) == 1.0
    assert score(NAME, f'The reversed text is:\n"{gold}"', item) == 1.0
    in_place = " ".join(word[::-1] for word in text.split())
    slip = gold[1] + gold[0] + gold[2:]
    for wrong in (
        text,
        in_place,
        slip,
        f"{gold}, {text}",
        f"{gold} or {slip}",
        gold[:-1],
        gold + gold[-1],
        "x" * 1_000_000,
    ):
        if wrong.casefold() != gold.casefold():
            assert score(NAME, wrong, item) == 0.0, wrong[:60]
