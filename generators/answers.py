"""The one answer-extraction and comparison convention every family scores with.

Models answer in many shapes (tags, ``\\boxed{}``, "Answer: ..." lines, a bare last line).
Extraction is tolerant so that formatting does not cost reward, while comparison is strict
so that listing several candidates ("answer stuffing") never earns it. Everything here is
linear in the input size, and no answer makes :func:`score_answer` raise.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from generators.base import AnswerKind
from generators.numbers import format_number, parse_number

__all__ = [
    "ANSWER_ERRORS",
    "compare",
    "extract_answer",
    "format_number",
    "normalize_text",
    "parse_number",
    "score_answer",
    "split_tokens",
    "undecorate",
    "whole_pairs",
]

ANSWER_ERRORS: tuple[type[Exception], ...] = (ValueError, ArithmeticError)
"""What reading a malformed ANSWER may raise, and so what a family scorer may catch and
score 0.0 (a wrong answer is the agent's fault). Anything else (a ``KeyError`` on a
malformed item, a ``TypeError`` from a bug) must escape the scorer: the dispatcher
(:func:`generators.scoring.score_checked`) turns it into a ``ScorerError``, which the
procedural runtime reports as the maskable verdict status ``error``, never as 0.0."""

_ANSWER_OPEN = "<answer>"
_ANSWER_CLOSE = "</answer>"
_BOXED = ("\\boxed{", "\\fbox{")
_ANSWER_LINE = re.compile(
    r"^[\s>*_#-]*(?:the\s+)?(?:final\s+answer|answer)[\s*_]*(?:is\s*[:=]?|[:=])[\s*_]*(?P<value>.+)$",
    re.IGNORECASE,
)
_FOLDS = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}
"""The non-ASCII letters ``re.IGNORECASE`` equates with ASCII ones."""


def _ci(word: str) -> str:
    """``word`` as character classes that match it case-insensitively, as ``re.IGNORECASE``
    would, without the flag: under it every ``\\s`` and class test folds case first,
    which made a megabyte of spaces cost 50 ms."""
    return "".join(f"[{char}{char.upper()}{_FOLDS.get(char, '')}]" for char in word)


_LINE_PREFIX = re.compile(r"[\s>*_#-]*")
_ANSWER_LINE_REST = re.compile(
    rf"(?:{_ci('the')}\s++)?(?:{_ci('final')}\s++{_ci('answer')}|{_ci('answer')})[\s*_]*+"
    rf"(?:{_ci('is')}\s*[:=]?|[:=])[\s*_]*(?P<value>.+)$"
)
"""``_ANSWER_LINE`` after its leading ``[\\s>*_#-]*`` run: started where that run ends, it
matches exactly when ``_ANSWER_LINE`` does (the rest begins with a letter the run cannot
take). The possessive ``++``/``*+`` runs are followed by a character they cannot take, so
they change no match, but a failing line costs one pass instead of backtracking over a
megabyte of spaces."""
_FINAL_ANSWER_IS = re.compile(rf"{_ci('final')}\s++{_ci('answer')}\s++{_ci('is')}\s*[:=]?\s*(?P<value>.+)$")
_WRAPPERS = ("**", "__", "`", '"', "'", "$", "“", "”", "‘", "’", "*")


MAX_ANSWER_CHARS = 16_384
"""Longest extracted answer that is compared at all. Gold answers stay under 1,000
characters; a longer extraction cannot match and is returned as ``""`` (scores 0.0), so
no comparison or family scorer ever works on megabytes."""
MAX_ANSWER_LINES = 512
"""Lines mentioning "answer" (and places saying "final") tested, from the end, before the
search gives up (``""``): each costs a regex match, and a response of 100,000 "answer"
lines must not cost seconds."""

_UNICODE_BREAKS = ("\x85", "\u2028", "\u2029")
_SEARCH_TABLE = bytes.maketrans(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZ\r\x0b\x0c\x1c\x1d\x1e", b"abcdefghijklmnopqrstuvwxyz\n\n\n\n\n\n"
)


def _search_copy(text: str) -> bytes:
    """One byte per character of ``text``: ASCII letters lowercased, every line break
    ``str.splitlines`` knows made ``\\n``, any other non-ASCII character ``?``.

    Positions carry over to ``text``, and ``bytes.find``/``rfind`` scan at memory speed,
    which is what keeps extraction on a 1 MiB response to milliseconds. (Only ASCII
    letters fold: "anſwer" with a long s is not "answer" here.)
    """
    if text.isascii():
        return text.encode("ascii").translate(_SEARCH_TABLE)
    for char in _UNICODE_BREAKS:
        if char in text:
            text = text.replace(char, "\n")
    return text.encode("ascii", "replace").translate(_SEARCH_TABLE)


class _GaveUp(Exception):
    """More than :data:`MAX_ANSWER_LINES` candidate lines: no answer is extracted."""


def _last_tag_content(text: str, search: bytes) -> str | None:
    close = search.rfind(b"</answer>")
    if close == -1:
        return None
    open_ = search.rfind(b"<answer>", 0, close)
    if open_ == -1:
        return None
    return text[open_ + len(_ANSWER_OPEN) : close]


_BRACES = re.compile(r"[{}]")


_FEW_BRACES = 256
"""Up to this many braces after ``\\boxed{`` are walked in Python; more go to numpy."""


def _closing_brace(region: str) -> int:
    """Index in ``region`` of the ``}`` that closes an already open ``{``, or -1.

    Many braces (a megabyte of ``{{{...}}}``) are counted with a numpy running sum, so the
    cost stays a few vector passes instead of a Python step per brace.
    """
    if region.count("{") + region.count("}") <= _FEW_BRACES:
        depth = 1
        for match in _BRACES.finditer(region):
            depth += 1 if match.group() == "{" else -1
            if depth == 0:
                return match.start()
        return -1
    import numpy as np

    codes = np.frombuffer(region.encode("utf-32-le"), dtype=np.uint32)
    running = 1 + np.cumsum((codes == ord("{")).astype(np.int32) - (codes == ord("}")).astype(np.int32))
    closed = np.flatnonzero(running == 0)
    return int(closed[0]) if closed.size else -1


def _last_boxed_content(text: str) -> str | None:
    start = max(text.rfind(marker) for marker in _BOXED)
    if start == -1:
        return None
    begin = text.index("{", start) + 1
    # Content longer than MAX_ANSWER_CHARS could not match anyway and is returned as "".
    bound = begin + MAX_ANSWER_CHARS + 1
    close = _closing_brace(text[begin:bound])
    if close != -1:
        return text[begin : begin + close]
    return "" if text.find("}", bound) != -1 else None


def _answer_line(text: str, search: bytes) -> str | None:
    """The value of the last "Answer: X" / "final answer is X" line.

    Such a line contains "answer", so only lines holding it (found from the end by
    ``rfind``) are matched, each once, exactly as a ``splitlines`` line would be; within a
    line, "final answer is" is tried only where "final" occurs. At most
    :data:`MAX_ANSWER_LINES` such attempts are made.
    """
    end = len(search)
    budget = MAX_ANSWER_LINES
    while True:
        hit = search.rfind(b"answer", 0, end)
        if hit == -1:
            return None
        line_start = search.rfind(b"\n", 0, hit) + 1
        line_end = search.find(b"\n", hit)
        line_end = line_end if line_end != -1 else len(text)
        line = text[line_start:line_end]
        prefix = _LINE_PREFIX.match(line)  # matches everywhere (``*``): never None
        match = _ANSWER_LINE_REST.match(line, prefix.end() if prefix else 0)
        final = search.find(b"final", line_start, line_end) if match is None else -1
        while final != -1:
            budget -= 1
            if budget <= 0:
                raise _GaveUp
            match = _FINAL_ANSWER_IS.match(line, final - line_start)
            final = search.find(b"final", final + 1, line_end) if match is None else -1
        if match:
            return match.group("value")
        budget -= 1
        if budget <= 0:
            raise _GaveUp
        end = line_start


def _last_line(text: str, search: bytes) -> str | None:
    """The last line that is not blank (``None`` when there is none)."""
    length = len(text.rstrip())
    if not length:
        return None
    return text[search.rfind(b"\n", 0, length) + 1 : length]


def _strip_wrappers(value: str) -> str:
    """Strip whitespace, one trailing period and wrapper pairs, repeatedly, by index.

    Working on indices (no slicing until the end) keeps this linear however many wrappers
    an answer stacks up.
    """
    start, end = 0, len(value)

    def trim() -> None:
        nonlocal start, end
        while start < end and value[start].isspace():
            start += 1
        while end > start and value[end - 1].isspace():
            end -= 1

    trim()
    changed = True
    while changed and start < end:
        changed = False
        if value.endswith(".", start, end) and not value.endswith("..", start, end):
            end -= 1
            while end > start and value[end - 1].isspace():
                end -= 1
            changed = True
        for wrapper in _WRAPPERS:
            width = len(wrapper)
            if (
                end - start >= 2 * width
                and value.startswith(wrapper, start, end)
                and value.endswith(wrapper, start, end)
            ):
                start, end = start + width, end - width
                trim()
                changed = True
        if value.startswith("\\text{", start, end) and value.endswith("}", start, end):
            start, end = start + len("\\text{"), end - 1
            trim()
            changed = True
    return value[start:end]


def _bounded(value: str) -> str:
    """``value`` stripped of wrappers, or ``""`` when it is too long to be an answer."""
    if len(value) > 2 * MAX_ANSWER_CHARS:
        return ""
    value = _strip_wrappers(value)
    return value if len(value) <= MAX_ANSWER_CHARS else ""


def extract_answer(text: Any) -> str:
    """The final answer inside a free-form response.

    Order: the last ``<answer>...</answer>``, the last ``\\boxed{...}``, the last
    "Answer: X" / "the final answer is X" line, else the last non-empty line. The result is
    stripped of whitespace, a trailing period and surrounding quotes, backticks, ``$`` and
    bold markers. Anything that is not a string, and any answer longer than
    :data:`MAX_ANSWER_CHARS`, yields ``""``. Every step is a scan by the string or regex
    engine (no per-character Python loop over the whole text), so a 1 MiB response is
    handled in milliseconds.
    """
    if not isinstance(text, str):
        return ""
    search = _search_copy(text)
    tagged = _last_tag_content(text, search)
    if tagged is not None:
        return _bounded(tagged)
    boxed = _last_boxed_content(text)
    if boxed is not None:
        return _bounded(boxed)
    try:
        line = _answer_line(text, search)
    except _GaveUp:
        return ""
    if line is None:
        line = _last_line(text, search)
    if line is None:
        return ""
    return _bounded(line)


_DECORATION_PREFIX = re.compile(
    rf"[ \t>*_#-]*+(?:{_ci('the')}\s++)?(?:{_ci('final')}\s++)?{_ci('answer')}(?![A-Za-z])[ \t*_]*+"
    rf"(?:{_ci('is')}(?![A-Za-z]))?[ \t]*+[:=]?[ \t*_]*+"
)
_UNDECORATE_ROUNDS = 8


def _unbox_tail(text: str) -> str:
    """``text`` with a final ``\\boxed{X}`` (ending the text, and the only box in it)
    replaced by X on its own line: with an earlier box, unboxing the last would make the
    earlier one the answer, a second guess."""
    start = max(text.rfind(marker) for marker in _BOXED)
    if start == -1 or not text.endswith("}") or sum(text.count(marker) for marker in _BOXED) != 1:
        return text
    begin = text.index("{", start) + 1
    if len(text) - begin > MAX_ANSWER_CHARS or _closing_brace(text[begin:]) != len(text) - begin - 1:
        return text
    return text[:start] + "\n" + text[begin:-1]


def _unbold_tail(text: str) -> str:
    """``text`` without a closing ``**``/``__`` at its end, and without the opening one when
    it starts a line or follows an answer prefix (``**16**``, ``**Answer: 16**``,
    ``Answer: **16**``, a bold multi-line grid)."""
    for marker in ("**", "__"):
        if text.endswith(marker):
            text = text[: -len(marker)]
            opener = text.rfind(marker)
            line_start = text.rfind("\n", 0, opener) + 1
            if opener != -1 and (
                not text[line_start:opener].strip() or _DECORATION_PREFIX.fullmatch(text, line_start, opener)
            ):
                text = text[:opener] + text[opener + len(marker) :]
            return text
    return text


def _unprefix_last(text: str) -> str:
    """``text`` without an "Answer:" / "The answer is" / "**Answer:**" prefix on the line of
    its last "answer", when that line starts with it and is either the last line or holds
    nothing after it (a header above a grid). An "Answer: 17" line followed by other lines
    keeps its prefix: extraction prefers that line, and unprefixing it would let the last
    line answer instead (a second guess)."""
    hit = _search_copy(text).rfind(b"answer") if len(text) <= 4 * MAX_ANSWER_CHARS else -1
    if hit == -1:
        return text
    line_start = text.rfind("\n", 0, hit) + 1
    match = _DECORATION_PREFIX.match(text, line_start)
    if match is None or match.end() <= hit:
        return text
    line_end = text.find("\n", match.end())
    if line_end != -1 and text[match.end() : line_end].strip():
        return text
    return text[:line_start] + text[match.end() :]


def undecorate(text: str, *, period: bool = True) -> str:
    """``text`` without the decorations a model writes around a final answer: surrounding
    whitespace, bold (``**16**``), an "Answer:" or "The answer is" prefix, one trailing
    period and a final ``\\boxed{16}``, in any nesting (``**Answer: 16**.``).

    It is the dispatcher's second reading (:func:`generators.scoring.score_checked`),
    used when the response as written does not score: a family whose answer spans several
    lines (a grid) or may itself end in a period cannot strip these blindly, but a response
    that is the gold answer plus decorations is the gold answer. It only ever removes
    characters around the end of the response, so it cannot turn a wrong answer right,
    and every step is one scan (linear in the length). ``period=False`` keeps a final
    period, for answers that may end in one (a grid of ``.`` cells).
    """
    if not isinstance(text, str):
        return ""
    text = text.strip()
    if not text.endswith((".", "**", "__", "}")) and (
        len(text) > 4 * MAX_ANSWER_CHARS or "nswer" not in text.lower()
    ):  # no rule can apply: the common case, kept cheap for scoring many constants
        return text
    period_taken = not period
    for _ in range(_UNDECORATE_ROUNDS):
        before = text
        text = _unprefix_last(_unbold_tail(_unbox_tail(text))).strip()
        if not period_taken and text.endswith("."):
            text, period_taken = text[:-1].rstrip(), True
        if text == before:
            break
    return text


_PAIR_GAP = re.compile(r"(?:[\s,;&]|and)*")


def whole_pairs(pattern: re.Pattern[str], text: str) -> list[tuple[str, ...]] | None:
    """Every match of ``pattern`` in ``text`` (its groups), or ``None`` when anything but
    separators (spaces, commas, semicolons, "and") stands between or around them.

    ``findall`` alone reads "x=3, y=4 or maybe 5" as a clean assignment; text after the
    answer that changes its meaning must cost the reward instead.
    """
    pairs: list[tuple[str, ...]] = []
    position = 0
    for match in pattern.finditer(text):
        if not _PAIR_GAP.fullmatch(text, position, match.start()):
            return None
        pairs.append(match.groups())
        position = match.end()
    return pairs if _PAIR_GAP.fullmatch(text, position) else None


def normalize_text(text: str) -> str:
    """Case-, whitespace- and surrounding-punctuation-insensitive form used by ``text``."""
    value = unicodedata.normalize("NFKC", text).casefold()
    value = " ".join(value.split())
    return value.strip(" \t.,;:!?\"'`$*()[]{}")


def split_tokens(text: str, *, commas_only: bool = False) -> list[str]:
    """Tokens of a ``list``/``set`` answer: comma separated, else (for lists) whitespace."""
    value = text.strip()
    for opener, closer in (("[", "]"), ("(", ")"), ("{", "}")):
        if value.startswith(opener) and value.endswith(closer):
            value = value[1:-1]
            break
    tokens = value.split(",") if "," in value or commas_only else value.split()
    return [normalize_text(token) for token in tokens]


def _numbers_equal(extracted: str, gold: str, *, tolerance: float) -> bool:
    got = parse_number(extracted)
    want = parse_number(gold)
    if got is None or want is None:
        return False
    if got == want:
        return True
    # Exact forms (integers, fractions) must be exactly right; the tolerance is for decimals,
    # which are approximations by nature. Otherwise a huge gold would accept neighbours.
    if tolerance <= 0 or not any(marker in extracted.lower() for marker in (".", "e")):
        return False
    try:  # a decimal such as 1e400 has no float: it is no neighbour of any gold
        got_float, want_float = float(got), float(want)
    except OverflowError:
        return False
    scale = max(abs(want_float), 1e-12)
    return math.isfinite(got_float) and abs(got_float - want_float) <= tolerance * scale


def compare(kind: AnswerKind, extracted: str, gold: str) -> float:
    """1.0 when ``extracted`` matches ``gold`` under ``kind`` (see ``AnswerKind``), else 0.0."""
    if not isinstance(extracted, str) or not isinstance(gold, str):
        return 0.0
    extracted = extracted.strip()
    if not extracted:
        return 0.0
    if kind == "int":
        want = parse_number(gold)
        got = parse_number(extracted)
        ok = want is not None and got is not None and want.denominator == 1 and got == want
    elif kind == "number":
        ok = _numbers_equal(extracted, gold, tolerance=1e-6)
    elif kind == "text":
        ok = normalize_text(extracted) == normalize_text(gold)
    elif kind == "exact":
        ok = extracted == gold.strip()
    elif kind == "list":
        ok = split_tokens(extracted) == split_tokens(gold)
    elif kind == "set":
        got_tokens = split_tokens(extracted, commas_only=True)
        want_tokens = split_tokens(gold, commas_only=True)
        ok = sorted(got_tokens) == sorted(want_tokens)
    else:
        raise ValueError(f"unknown answer kind {kind!r}")
    return 1.0 if ok else 0.0


def score_answer(kind: AnswerKind, answer_text: Any, item: Mapping[str, Any]) -> float:
    """The default scorer: extract, then compare with ``item["answer"]``.

    No answer makes it raise; an item without an answer (or an unknown ``kind``) does,
    because that is a broken item, not a wrong answer.
    """
    return compare(kind, extract_answer(answer_text), str(item["answer"]))


def score_exact_value(answer_text: Any, item: Mapping[str, Any]) -> float:
    """1.0 when the answer parses to exactly ``item["metadata"]["value"]`` (an exact rational such
    as ``"3/2"``): any exact form scores, ``3/2``, ``1.5`` and ``1.50`` alike; no tolerance."""
    want = Fraction(str((item.get("metadata") or {})["value"]))  # a bad item raises: not the answer's fault
    got = parse_number(extract_answer(answer_text))
    return 1.0 if got is not None and got == want else 0.0
