"""The first-candidate scripted policy moves every id of its answer, a report given as JSON text too.

A sweep's reference answers its report as JSON text. Left as text, the policy kept the ranked
records' ids in its refusals while acting on the plain listing's records, and where those acts
happened to be the same set (a permutation of one page) it passed a level-5 task it should fail.
"""

from __future__ import annotations

import json

from pipeline.evaluate.judgment import FirstCandidateAgent


def test_a_text_report_has_its_ids_swapped() -> None:
    report = {"total": 10.0, "refused": [{"cannot": "policy", "id": 58, "value": "P5"}]}
    agent = FirstCandidateAgent([("list_orders", {"order_by": "placed_at", "descending": True})], json.dumps(report))
    first = agent.act([])
    assert [c.id for c in first.calls] == ["ranked", "plain"]
    ranked = json.dumps({"items": [{"id": 76}, {"id": 58}]})
    plain = json.dumps({"items": [{"id": 40}, {"id": 65}]})
    last = agent.act([("ranked", ranked), ("plain", plain)])
    assert last.final
    assert json.loads(last.answer)["refused"][0]["id"] == 65
