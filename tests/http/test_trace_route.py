"""GET /v1/requests/{id}/trace: a request's searches as a tree of legs, backends, stages."""

from __future__ import annotations

from typing import Any

import httpx

from unifind.types import LegReport, Reason, Status


def _node(tree: dict[str, Any], *path: str) -> dict[str, Any]:
    """The node reached by child names ``path`` from ``tree``."""
    for name in path:
        [tree] = [c for c in tree.get("children", []) if c["name"] == name]
    return tree


async def test_the_trace_of_a_request_is_a_tree_of_its_records(
    client: httpx.AsyncClient, key_b: str
) -> None:
    body = {"query": "refunds", "sources": {"kb": {"collections": ["docs"]}, "db": {}}}
    r = await client.post("/v1/search", json={**body, "request_id": "req_tree1"})
    assert r.status_code == 200, r.text
    await client.post("/v1/search", json={**body, "query": "shipping", "request_id": "req_tree1"})
    r = await client.get("/v1/requests/req_tree1/trace")
    assert r.status_code == 200, r.text
    tree = r.json()
    assert (tree["kind"], tree["name"], tree["status"]) == ("request", "req_tree1", "ok")
    searches = tree["children"]
    assert [(s["kind"], s["query"]) for s in searches] == [
        ("search", "refunds"),
        ("search", "shipping"),
    ]
    first = searches[0]
    assert first["name"] == "fused" and first["took_ms"] > 0 and first["at"]
    assert [leg["name"] for leg in first["children"]] == ["kb", "db"]
    # The KB collection ran in stages: one node per stage, each with its own report.
    docs = _node(first, "kb", "docs")
    assert docs["kind"] == "backend" and docs["status"] == "ok" and "took_ms" not in docs
    stages = {c["name"]: c for c in docs["children"]}
    assert {"lexical", "vector"} <= set(stages)
    assert all(c["kind"] == "stage" and c["status"] == "ok" for c in stages.values())
    assert stages["lexical"]["hits"] >= 1 and stages["lexical"]["took_ms"] >= 0
    # No database here: the db leg's one backend says so, and is no fault of the request.
    db = _node(first, "db")
    assert db["status"] == "unavailable"
    [leaf] = db["children"]
    assert (leaf["kind"], leaf["status"], leaf["reason"]) == (
        "backend",
        "disabled",
        "not_configured",
    )
    # Another tenant sees no trace of it; an unknown request has none.
    other = await client.get(
        "/v1/requests/req_tree1/trace", headers={"Authorization": f"Bearer {key_b}"}
    )
    assert other.status_code == 404 and other.json()["error"]["field"] == "request_id"
    assert (await client.get("/v1/requests/req_none/trace")).status_code == 404
    assert (await client.get("/v1/requests/bad%20id/trace")).status_code == 422


def test_a_failed_stage_makes_its_backend_and_leg_partial() -> None:
    from unifind.ops._trace import request_trace
    from unifind.store import SearchRecord

    def rep(stage: str, status: Status, **kw: Any) -> dict[str, Any]:
        r = LegReport(leg="kb", backend="docs", stage=stage, status=status, **kw)
        return r.model_dump(mode="json", exclude_none=True)

    record = SearchRecord(
        request_id="r1",
        leg="kb",
        query="q",
        reports=(
            rep("lexical", Status.OK, hits=3, took_ms=2.5),
            rep("vector", Status.DEGRADED, reason=Reason.TIMEOUT, error="docs: vector timed out"),
        ),
        duration_ms=12.0,
    )
    tree = request_trace("r1", [record])
    assert tree is not None and tree.status == "partial"
    [search] = tree.children
    assert (search.kind, search.took_ms) == ("search", 12.0)
    [leg] = search.children
    [backend] = leg.children
    assert (leg.status, backend.status) == ("partial", "partial")
    lexical, vector = backend.children
    assert (lexical.hits, lexical.took_ms) == (3, 2.5)
    assert (vector.status, vector.reason, vector.error) == (
        "degraded",
        "timeout",
        "docs: vector timed out",
    )
    assert request_trace("r1", []) is None
