"""The trace tree of a request, as its records keep it (DESIGN §10).

A request's searches are recorded (``unifind.store``) with every backend's report; this
module arranges them as a tree: the request → each recorded search (its overall status
and duration) → each leg → each backend → each stage (``lexical``, ``vector``, ...) where
the backend ran in stages. Leaves carry what the backend reported: status, reason, error,
hits and its own time. An inner node's status summarises the reports under it
(:func:`unifind.types.overall_status`); its time is shown only where the record has one (a
search's duration): the records keep no per-leg clock, and a sum or maximum of the children
would be a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from unifind.store import SearchRecord
from unifind.types import LegReport, overall_status

NodeKind = Literal["request", "search", "leg", "backend", "stage"]


class TraceNode(BaseModel):
    """One node of a request's trace."""

    kind: NodeKind
    name: str
    """The request id, a search's leg (``fused`` for several), a leg, a backend, a stage."""
    status: str
    """A report's own status (``ok``, ``degraded``, ``disabled``, ``skipped``) on a leaf;
    ``ok`` / ``partial`` / ``unavailable`` summarising the children above it."""
    took_ms: float | None = None
    """As recorded: a search's duration, a backend's or stage's own time."""
    hits: int | None = None
    reason: str | None = None
    error: str | None = None
    note: str | None = None
    query: str | None = None
    """A search's query."""
    at: datetime | None = None
    """When a search was recorded (as it finished)."""
    children: list[TraceNode] = Field(default_factory=list)


def request_trace(request_id: str, records: Sequence[SearchRecord]) -> TraceNode | None:
    """The tree of ``records`` (one request's, oldest first); None when there are none."""
    if not records:
        return None
    searches = [_search(r) for r in records]
    reports = [_report(d) for r in records for d in r.reports]
    return TraceNode(
        kind="request",
        name=request_id,
        status=overall_status(reports).value if reports else records[-1].status.value,
        children=searches,
    )


def _report(data: dict[str, Any]) -> LegReport:
    return LegReport.model_validate(data)


def _search(record: SearchRecord) -> TraceNode:
    reports = [_report(d) for d in record.reports]
    legs = _grouped(reports, lambda r: r.leg)
    return TraceNode(
        kind="search",
        name=record.leg,
        status=record.status.value,
        took_ms=record.duration_ms,
        error=record.error,
        query=record.query,
        at=record.created_at,
        children=[_inner("leg", leg, _backends(reps), reps) for leg, reps in legs],
    )


def _backends(reports: list[LegReport]) -> list[TraceNode]:
    nodes = []
    for backend, reps in _grouped(reports, lambda r: r.backend):
        if len(reps) == 1 and reps[0].stage is None:
            nodes.append(_leaf("backend", backend, reps[0]))
        else:
            stages = [_leaf("stage", r.stage or "", r) for r in reps]
            nodes.append(_inner("backend", backend, stages, reps))
    return nodes


def _inner(
    kind: NodeKind, name: str, children: list[TraceNode], reports: list[LegReport]
) -> TraceNode:
    return TraceNode(kind=kind, name=name, status=overall_status(reports).value, children=children)


def _leaf(kind: NodeKind, name: str, rep: LegReport) -> TraceNode:
    return TraceNode(
        kind=kind,
        name=name,
        status=rep.status.value,
        took_ms=rep.took_ms,
        hits=rep.hits,
        reason=rep.reason.value if rep.reason else None,
        error=rep.error,
        note=rep.note,
    )


def _grouped(reports: list[LegReport], key: Any) -> list[tuple[str, list[LegReport]]]:
    """Reports by ``key``, in the order each key first appears."""
    groups: dict[str, list[LegReport]] = {}
    for rep in reports:
        groups.setdefault(key(rep), []).append(rep)
    return list(groups.items())
