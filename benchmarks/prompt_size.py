"""What a model reads before the task starts, per catalog domain: the served tool list against the
surface's rendering (``pipeline/surface``), in bytes and tokens.

Run: ``.venv/bin/python benchmarks/prompt_size.py > benchmarks/PROMPTS.md``

The tool list of each domain is built as ``synthenv generate --domain D --seed 0`` builds it
(schema and tool steps only, no rows). "served" is the bundle's ``tools.json`` view
(``{name, description, parameters}`` as the executor validates it), "per tool" each tool compacted
on its own, "verbs" the surface every adapter shows (record verbs, one table catalog, the business
operations, the answer tool); all as compact JSON, which is how a chat template or an
API request carries them. Tokens are counted with tiktoken's ``o200k_base`` encoding read from
the copy litellm ships inside its wheel (``litellm/litellm_core_utils/tokenizers``), so nothing
is downloaded; without litellm the script falls back to bytes / 4 and says so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.surface import answer_tool, compact_tools, system_text, verb_tools
from pipeline.tools.specs import build_toolset
from pipeline.world.blueprint import list_domains, load_blueprint
from pipeline.world.schema import build_schema

BUDGET = 12 * 1024
OLD_SYSTEM = (
    "You are working in a software system through its tools. Call tools to look things up and make the "
    "changes the request needs, then call submit_answer exactly once with your final answer (the value asked "
    "for, or a short explanation if the request cannot be carried out). The episode ends with that call."
)
"""The trainers' system text before the surface (it asked for a refusal the verifier scores 0)."""


def tokenizer() -> tuple[str, Callable[[str], int]]:
    """o200k_base from litellm's bundled tiktoken files, else a documented bytes / 4 estimate."""
    spec = importlib.util.find_spec("litellm")
    if spec is not None and spec.submodule_search_locations and importlib.util.find_spec("tiktoken"):
        files = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
        if files.is_dir():
            os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(files))
            import tiktoken

            enc = tiktoken.get_encoding("o200k_base")
            return "tiktoken o200k_base (files shipped in the litellm wheel)", lambda s: len(enc.encode(s))
    return "estimate: UTF-8 bytes / 4 (no offline tokenizer found)", lambda s: len(s.encode("utf-8")) // 4


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def main() -> None:
    name, count = tokenizer()
    rows = []
    for domain in list_domains():
        schema = build_schema(load_blueprint(domain), random.Random(0))
        tools = build_toolset(schema).tools
        specs = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools]
        served = compact([*specs, answer_tool()])
        per_tool = compact([*compact_tools(specs), answer_tool()])
        verbs = compact([*verb_tools(schema, tools), answer_tool()])
        rows.append((domain, len(specs), served, per_tool, verbs))
    new_system = system_text(False)
    print("# What a model reads before the task: tool lists per catalog domain\n")
    print("Measured by `.venv/bin/python benchmarks/prompt_size.py > benchmarks/PROMPTS.md`.")
    print(f"Tokenizer: {name}. Tool lists as compact UTF-8 JSON, answer tool included; budget {BUDGET} bytes.")
    print("served: the bundle's `tools.json` view; per tool: each tool compacted on its own (the previous")
    print("rendering); verbs: the record verbs with one table catalog plus the business operations (what")
    print("every adapter shows now, `pipeline/surface/records.py`).\n")
    print(
        "| domain | tools | served bytes | served tokens | per tool bytes | verbs bytes | verbs tokens "
        "| verbs / served | within 12 KB |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for domain, n, served, per_tool, verbs in rows:
        b, p, v = len(served.encode()), len(per_tool.encode()), len(verbs.encode())
        fits = "yes" if v <= BUDGET else "no"
        print(f"| {domain} | {n} | {b} | {count(served)} | {p} | {v} | {count(verbs)} | {v / b:.2f} | {fits} |")
    before = sum(len(r[2].encode()) for r in rows)
    middle = sum(len(r[3].encode()) for r in rows)
    after = sum(len(r[4].encode()) for r in rows)
    within = sum(len(r[4].encode()) <= BUDGET for r in rows)
    largest = max(rows, key=lambda r: len(r[4].encode()))
    print(f"\nAll {len(rows)} domains: served {before}, per tool {middle}, verbs {after} bytes ", end="")
    print(f"({after / before:.2f} of served); {within} of {len(rows)} within 12 KB;")
    print(f"largest: {largest[0]} {len(largest[4].encode())} bytes, {count(largest[4])} tokens.\n")
    print("System text (tool-use), which carries the answer forms, the refusal form and the shared tool")
    print(
        f"conventions once: the trainers' old text {len(OLD_SYSTEM.encode())} bytes / {count(OLD_SYSTEM)} tokens, ",
        end="",
    )
    print(f"now {len(new_system.encode())} bytes / {count(new_system)} tokens.")


if __name__ == "__main__":
    main()
