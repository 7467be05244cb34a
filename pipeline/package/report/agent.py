"""What the agent is given, on ``report.html``: its tools and the policy it works under.

A reader judging a bundle first wants to know what a model will see: the report used to show
the data and the tasks but neither the tool list nor the policy text, so "what can the agent
do here?" meant opening ``tools.json``. Both come from :mod:`pipeline.surface`, the one
rendering every adapter (TRL, verifiers, Gymnasium, OpenEnv, ``evaluate``) uses, so the page
shows exactly what an agent reads: the six record verbs over the tables, the business
operations, the answer tool, then the per-world policy and the full system text. The bundle's
own per-table tools (what ``synthenv serve`` and MCP list) follow, folded, grouped by table.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.bundle.manifest import ToolUseManifest
from pipeline.package.report.render import render
from pipeline.surface.records import VERB_NAMES, catalog, routes, verb_tools
from pipeline.surface.text import ANSWER_TOOL, answer_tool, system_text
from pipeline.tools.specs import Toolset
from pipeline.world.schema import Schema


@dataclass(frozen=True)
class AgentTools:
    """The tool list an adapter shows, in groups, and the bundle's own tools by table."""

    verbs: list[tuple[str, str, str]]
    """(record verb, its first sentence, the tables it takes)."""
    operations: list[tuple[str, str, str]]
    """(business operation, its first sentence, its table)."""
    answer: tuple[str, str]
    catalog: list[str]
    """One entry per table, as ``list_records``' description carries them."""
    served: list[tuple[str, list[str]]]
    """(table, its tools in the order the bundle lists them), as ``synthenv serve`` and MCP list them."""

    @property
    def count(self) -> int:
        return len(self.verbs) + len(self.operations) + 1

    @property
    def served_count(self) -> int:
        return sum(len(names) for _, names in self.served)


def first_sentence(text: str) -> str:
    """The description's first sentence: enough to say what a tool is for, one line on the page."""
    text = " ".join(text.split())
    cut = text.find(". ")
    return text if cut == -1 else text[: cut + 1]


def agent_tools(schema: Schema, toolset: Toolset) -> AgentTools:
    paths = routes(toolset.tools)
    verbs, operations = [], []
    table_of = {t.name: t.table for t in toolset.tools}
    for tool in verb_tools(schema, toolset.tools):
        line = first_sentence(tool["description"])
        if tool["name"] in VERB_NAMES:
            verbs.append((tool["name"], line, ", ".join(paths.tables(tool["name"]))))
        else:
            operations.append((tool["name"], line, table_of.get(tool["name"], "")))
    served: dict[str, list[str]] = {}
    for t in toolset.tools:
        served.setdefault(t.table, []).append(t.name)
    entries = [catalog(schema, [t for t in toolset.tools if t.table == table.name]) for table in schema.tables]
    answer = answer_tool()
    return AgentTools(
        verbs=verbs,
        operations=operations,
        answer=(ANSWER_TOOL, str(answer["description"])),
        catalog=[e for e in entries if e],
        served=[(table.name, served[table.name]) for table in schema.tables if table.name in served],
    )


def policy_lines(manifest: ToolUseManifest) -> list[str]:
    """The policy text as the system text carries it (:func:`pipeline.surface.text.system_text`): one
    line per rule, inner whitespace collapsed; empty when the bundle has none."""
    policy = manifest.policy
    if not policy or not policy.strip():
        return []
    return [" ".join(line.split()) for line in policy.strip().splitlines() if line.strip()]


def agent_section(manifest: ToolUseManifest, schema: Schema, tools: AgentTools) -> str:
    """``<h2 id='tools'>`` and ``<h2 id='policy'>``: the tools and the policy, as an agent reads them."""
    lines = policy_lines(manifest)
    return render(
        "agent.html.j2",
        tools=tools,
        policy=lines,
        system=system_text(False, "\n".join(lines) or None),
    )
