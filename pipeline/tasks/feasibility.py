"""Is a status goal reachable? A search over the legal moves of a world, so that a task that expects
a refusal expects it under every reading of its request.

"Close the claim" asked of a claim under review is refused as an operation (closing needs an
approved or denied claim) but is feasible as a goal (deny it, then close it). A refusal is the
right answer only when no sequence of legal moves reaches the goal: the moves are the status
column's declared transitions (what an update may do) and every operation's ``allowed_from ->
to`` edge. :func:`reachable` is that search; :func:`refusal_is_sound` applies it to a task.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping

from pipeline.world.schema import Operation, Schema, Table


def moves(table: Table, column: str, operations: Iterable[Operation]) -> dict[str, set[str]]:
    """Status -> the statuses one legal move reaches (a transition or an operation)."""
    out: dict[str, set[str]] = {}
    for source, targets in (table.column(column).transitions or {}).items():
        out.setdefault(source, set()).update(targets)
    for op in operations:
        if op.table == table.name and op.column == column:
            for source in op.allowed_from:
                out.setdefault(source, set()).add(op.to)
    return out


def reachable(graph: Mapping[str, set[str]], start: str, horizon: int | None = None) -> dict[str, int]:
    """Every status reachable from ``start`` within ``horizon`` moves (all when None), with the fewest
    moves that reach it (``start`` itself at 0)."""
    seen = {start: 0}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        if horizon is not None and seen[here] >= horizon:
            continue
        for nxt in sorted(graph.get(here, ())):
            if nxt not in seen:
                seen[nxt] = seen[here] + 1
                todo.append(nxt)
    return seen


def refusal_is_sound(schema: Schema, table: str, column: str, current: str, goal: str) -> str | None:
    """``None`` when no legal sequence of moves takes a record at ``current`` to ``goal``; else the
    shortest path found, as text (the reading under which the refusal would be wrong)."""
    graph = moves(schema.table(table), column, schema.operations)
    found = reachable(graph, current)
    if goal not in found:
        return None
    path = [goal]
    while path[-1] != current:  # walk back along fewest-move predecessors
        step = found[path[-1]] - 1
        path.append(next(s for s in sorted(found) if found[s] == step and path[-1] in graph.get(s, ())))
    return " -> ".join(reversed(path))
