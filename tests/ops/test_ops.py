"""The operation layer: one definition of each operation, the contract every surface maps."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from unifind import Searcher
from unifind.errors import InputError, UnknownName
from unifind.ops import (
    OPERATIONS,
    CollectionIn,
    FetchInput,
    Operations,
    SearchInput,
    TextDocumentIn,
    build_requests,
)
from unifind.types import Principal

ACME = Principal(tenant="acme", user="ana", roles=("support",))
GLOBEX = Principal(tenant="globex", user="gus")


@pytest.fixture
def ops(unifind_home: Path) -> Iterator[Operations]:
    searcher = Searcher()
    kb = searcher.kb
    kb.create("docs", embedder="hash:64")
    kb.ingest_text(
        "docs", "Refunds are paid within 30 days.", document_id="refunds", title="Refunds"
    )
    kb.ingest_text("docs", "Shipping takes five days.", document_id="shipping", title="Shipping")
    yield Operations(searcher)
    searcher.close()


async def test_search_items_all_carry_unique_citation_ids(ops: Operations) -> None:
    out = await ops.search(SearchInput(query="refunds shipping"))
    ids = [i.citation_id for i in out.items]
    assert ids and all(ids) and len(set(ids)) == len(ids)
    assert out.request_id.startswith("req_")
    assert {(r.stage, r.status.value) for r in out.reports} == {("lexical", "ok"), ("vector", "ok")}


async def test_ids_continue_across_searches_of_one_request(ops: Operations) -> None:
    first = await ops.search(SearchInput(query="refunds", request_id="turn-1"))
    second = await ops.search(SearchInput(query="shipping", request_id="turn-1"))
    by_doc = {i.document_id: i.citation_id for i in first.items}
    for item in second.items:  # the same chunk keeps its id, a new one continues the count
        if item.document_id in by_doc:
            assert item.citation_id == by_doc[item.document_id]
    assert len({i.citation_id for i in [*first.items, *second.items]}) == len(
        {i.document_id for i in [*first.items, *second.items]}
    )


async def test_references_within_budget_are_returned_on_request(ops: Operations) -> None:
    out = await ops.search(SearchInput(query="refunds", references=True, max_chars=200))
    assert out.references is not None
    assert out.references.xml.startswith("<references")
    assert "cite it as [ref_001]." in out.references.prompt  # the one default format (#20)


async def test_stream_yields_plan_legs_items_done_in_order(ops: Operations) -> None:
    inp = SearchInput.model_validate(
        {"query": "refunds", "sources": {"kb": {"collections": "docs"}, "db": True}}
    )
    kinds = []
    legs = []
    async for ev in ops.search_stream(inp):
        kinds.append(ev.kind)
        if ev.kind == "leg":
            legs.append((ev.data["leg"], ev.data["status"]))
    assert kinds[0] == "plan" and kinds[-1] == "done"
    assert ("db", "disabled") in legs and ("kb", "ok") in legs
    assert kinds.count("items") == 2  # one per finished leg


async def test_unknown_collection_is_input_error_before_anything_runs(ops: Operations) -> None:
    inp = SearchInput.model_validate({"query": "x", "sources": {"kb": {"collections": ["nope"]}}})
    with pytest.raises(UnknownName, match="docs"):
        await ops.search(inp)


def test_lenient_inputs_and_strict_fields() -> None:
    inp = SearchInput.model_validate(
        {"query": "q", "limit": "5", "sources": {"web": "true", "kb": {"collections": '["a","b"]'}}}
    )
    assert inp.limit == 5
    reqs = build_requests(inp)
    assert [r.type for r in reqs] == ["kb", "web"]
    assert reqs[0].collections == ("a", "b")
    with pytest.raises(ValidationError, match="extra"):
        SearchInput.model_validate({"query": "q", "sorces": {}})
    with pytest.raises(ValidationError, match="empty"):
        SearchInput(query="   ")


async def test_kb_operations_are_scoped_by_principal(ops: Operations) -> None:
    ops.kb.create(CollectionIn(name="acme-notes", embedder=None), principal=ACME)
    await ops.kb.ingest(
        "acme-notes", [TextDocumentIn(document_id="n1", text="acme secret plan")], principal=ACME
    )
    assert "acme-notes" in {c.name for c in ops.kb.collections(principal=ACME)}
    assert "acme-notes" not in {c.name for c in ops.kb.collections(principal=GLOBEX)}
    with pytest.raises(UnknownName) as err:
        ops.kb.documents("acme-notes", principal=GLOBEX)
    assert str(err.value).endswith("valid: docs")  # the other tenant's names are not listed
    inp = SearchInput.model_validate({"query": "secret plan", "sources": {"kb": {}}})
    seen = await ops.search(inp, principal=GLOBEX)
    assert all(i.collection != "acme-notes" for i in seen.items)
    own = await ops.search(inp, principal=ACME)
    assert any(i.collection == "acme-notes" for i in own.items)


async def test_ingest_reports_each_document_and_keeps_the_rest(ops: Operations) -> None:
    out = await ops.kb.ingest(
        "docs",
        [
            TextDocumentIn(document_id="ok", text="a good document about returns"),
            TextDocumentIn(document_id="blank", text="   "),
        ],
    )
    assert out.added == 1 and out.failed == 1
    failed = next(o for o in out.outcomes if o.status == "failed")
    assert failed.document_id == "blank" and failed.error
    with pytest.raises(InputError, match="give exactly one"):
        await ops.kb.ingest("docs", [TextDocumentIn(document_id="x")])


async def test_uploads_keep_the_client_file_name_as_id(ops: Operations) -> None:
    out = await ops.kb.ingest_files(
        "docs", [("../../etc/notes.md", b"# Notes\nreturns are free"), ("empty.txt", b"")]
    )
    ids = {o.document_id for o in out.outcomes if o.status == "added"}
    assert ids == {"upload:../../etc/notes.md"}
    assert out.failed == 1 and "empty" in (out.outcomes[-1].error or out.outcomes[0].error or "")


async def test_fetch_refuses_loopback_and_reports_it(ops: Operations) -> None:
    out = await ops.fetch(FetchInput(url="http://127.0.0.1:9/x"))
    assert out.status.value == "unavailable"
    assert out.report.status.value == "degraded" and out.text == ""


async def test_sources_and_readiness(ops: Operations) -> None:
    src = await ops.sources()
    assert [c.name for c in src.collections] == ["docs"]
    assert any(p.kind == "search" and p.chosen for p in src.providers)
    ready = await ops.ready()
    assert ready.ready and {c.name for c in ready.checks} >= {"kb", "records"}


def test_every_operation_is_declared_once() -> None:
    assert {"search", "fetch", "sources", "kb.ingest", "ready"} <= set(OPERATIONS)
    assert OPERATIONS["search"].streams and OPERATIONS["fetch"].open_world
    assert not OPERATIONS["kb.create"].read_only and OPERATIONS["sources"].read_only


async def test_only_caller_named_requests_are_recorded(ops: Operations) -> None:
    made_up = await ops.search(SearchInput(query="refunds"))
    assert ops.searches(made_up.request_id) == []
    named = await ops.search(SearchInput(query="refunds", request_id="turn-9"))
    [record] = ops.searches("turn-9")
    assert record.query == "refunds"
    ref = ops.reference("turn-9", 1)
    assert ref is not None and ref["citation_id"] == named.items[0].citation_id


async def test_stream_announces_the_request_id_it_finishes_with(ops: Operations) -> None:
    events = [ev async for ev in ops.search_stream(SearchInput(query="refunds"))]
    rid = events[0].data["request_id"]
    assert events[-1].data["output"].request_id == rid
    again = await ops.search(SearchInput(query="shipping refunds", request_id=rid))
    first = {
        i["chunk_id"]: i["citation_id"]
        for ev in events
        if ev.kind == "items"
        for i in ev.data["items"]
    }
    for item in again.items:  # a client reusing the announced id continues its numbering
        if item.chunk_id in first:
            assert item.citation_id == first[item.chunk_id]


async def test_uploads_record_the_client_name_not_a_server_path(ops: Operations) -> None:
    await ops.kb.ingest_files("docs", [("ship.md", b"parcels ship on Mondays")])
    out = await ops.search(SearchInput(query="parcels ship"))
    item = next(i for i in out.items if i.document_id == "upload:ship.md")
    assert item.title == "ship"
    assert "unifind-upload" not in repr(item.metadata)
    assert item.metadata.get("path") == "ship.md"


async def test_a_malformed_document_refuses_the_batch_before_any_write(ops: Operations) -> None:
    docs = [TextDocumentIn(document_id="first", text="written?"), TextDocumentIn(document_id="x")]
    with pytest.raises(InputError, match="document 1"):
        await ops.kb.ingest("docs", docs)
    assert "first" not in {d.document_id for d in ops.kb.documents("docs")}


def test_stream_refuses_an_unknown_collection_before_it_starts(ops: Operations) -> None:
    inp = SearchInput.model_validate({"query": "x", "sources": {"kb": {"collections": ["nope"]}}})
    with pytest.raises(UnknownName, match="valid: docs"):
        ops.search_stream(inp)
