"""What a person claims about themselves in a request, true or not: the agent checks it against the state.

"My loyalty tier is platinum, so I expect all of it back with no fee kept." A real customer states
what they believe entitles them to something, and is sometimes wrong. The policy, not the claim,
decides: an agent that takes the person's word for it gives back money the business keeps, one
that never believes it keeps money the customer is owed. A claim is made only about the policy's
waiver of a refund fee, the line a person has a reason to invoke, in one of two forms:

* the person's standing, where the waiver is read on the record's owner and that owner is the person
  ("my loyalty tier is platinum"): true or false as their record holds it;
* that the records are recent, where the waiver is a cooling-off period: true only where every
  record that goes through is inside it.

The claim is true where believing it gives the policy's answer, and it is made only where it
matters: false (believing it gives more back), or true while the waiver changes the total (never
believing gives less).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from pipeline.policy.model import Rule
from pipeline.tasks.context import Context
from pipeline.tools.specs import TransitionTool
from pipeline.world.schema import Table

NAME = "case"
"""The phrasing file the claims' sentences live in (the family that makes them)."""


@dataclass(frozen=True)
class Claim:
    """A sentence of the request asserting the waiver covers every record that goes through."""

    text: str
    form: str
    """``standing`` or ``recent``."""


def claim(
    ctx: Context,
    rng: random.Random,
    op: TransitionTool,
    person: Table,
    prow: dict[str, Any],
    rows: list[dict[str, Any]],
    staff: bool,
) -> Claim | None:
    """The claim ``person`` makes that the waiver of ``op``'s fee covers ``rows`` (the records the
    request covers), or None where the policy has no waiver the person could invoke (a standing read
    on someone else, or no waiver at all). Whether it is true is what believing it gives: the
    caller compares that answer with the policy's."""
    waiver: Rule | None = ctx.policy.waiver(op.name)
    if waiver is None or not rows:
        return None
    relayed = "_relayed" if staff else ""
    if waiver.via is not None and waiver.child is not None:
        if waiver.child != person.name or any(r.get(waiver.via) != prow["id"] for r in rows):
            return None  # the standing is someone else's: not the person's to claim
        label = person.column(str(waiver.column)).label
        value = str(waiver.value).replace("_", " ")
        return Claim(ctx.phrases.render(rng, NAME, f"claim_standing{relayed}", label=label, value=value), "standing")
    return Claim(ctx.phrases.render(rng, NAME, f"claim_recent{relayed}"), "recent")
