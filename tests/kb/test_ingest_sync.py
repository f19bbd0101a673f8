"""Ingest --sync and the names files are shown by, on the embedded SQLite store (#18)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.embed.base import Embedder, resolve_embedder


def hash_factory(spec: str) -> Embedder:
    return resolve_embedder("hash")


@pytest.fixture
def kb(unifind_home: Path) -> Iterator[KnowledgeBase]:
    settings = load_settings(kb={"embedder": "hash"})
    with KnowledgeBase.open(settings, embedder_factory=hash_factory) as kb:
        kb.create("docs")
        yield kb


@pytest.fixture
def handbook(tmp_path: Path) -> Path:
    top = tmp_path / "home" / "handbook"
    (top / "policies").mkdir(parents=True)
    (top / "refunds.md").write_text("# Refunds\n\nRefunds are paid within 30 days.\n")
    (top / "policies" / "leave.md").write_text("# Leave\n\nEveryone has 25 days of quokka leave.\n")
    (top / "shipping.md").write_text("# Shipping\n\nParcels ship on weekdays by zebra.\n")
    return top


def ids(kb: KnowledgeBase) -> set[str]:
    return {d.document_id for d in kb.documents("docs", limit=1000)}


def hits(kb: KnowledgeBase, query: str, mode: str) -> list[str]:
    req = SearchRequest(type="kb", query=query, collections=("docs",), mode=mode)  # type: ignore[arg-type]
    return [i.document_id or "" for i in kb.search_sync(req).items]


def test_sync_removes_deleted_files_from_every_index(kb: KnowledgeBase, handbook: Path) -> None:
    other = handbook.parent / "other"
    other.mkdir()
    (other / "zebra.md").write_text("# Zebra\n\nA zebra note from another folder.\n")
    kb.ingest("docs", [handbook, other])
    kb.ingest_text("docs", "zebra facts typed in", document_id="typed")
    (handbook / "shipping.md").unlink()

    report = kb.ingest("docs", [handbook], sync=True)

    assert report.removed == ("handbook/shipping.md",)  # the name callers see
    assert str(handbook / "shipping.md") not in ids(kb)
    assert {str(other / "zebra.md"), "typed", str(handbook / "refunds.md")} <= ids(kb)
    for mode in ("text", "semantic"):
        assert "handbook/shipping.md" not in hits(kb, "zebra weekdays parcels", mode)
    assert set(hits(kb, "zebra", "text")) == {"other/zebra.md", "typed"}


def test_without_sync_nothing_is_removed(kb: KnowledgeBase, handbook: Path) -> None:
    kb.ingest("docs", [handbook])
    (handbook / "shipping.md").unlink()
    report = kb.ingest("docs", [handbook])
    assert report.removed == () and str(handbook / "shipping.md") in ids(kb)


def test_a_file_that_now_fails_keeps_its_last_version(kb: KnowledgeBase, handbook: Path) -> None:
    kb.ingest("docs", [handbook])
    (handbook / "refunds.md").write_text("")  # empty now: it fails to ingest

    report = kb.ingest("docs", [handbook], sync=True)

    assert [Path(o.path).name for o in report.failures] == ["refunds.md"]
    assert report.removed == ()
    assert "handbook/refunds.md" in hits(kb, "refunds 30 days", "text")


def test_a_file_still_there_but_not_walked_is_kept(kb: KnowledgeBase, handbook: Path) -> None:
    # Named alone once; a folder's walk leaves hidden files out, but it still exists.
    hidden = handbook / ".drafts.md"
    hidden.write_text("# Drafts\n\nUnfinished quokka notes.\n")
    kb.ingest("docs", [hidden, handbook])
    (handbook / "shipping.md").unlink()
    report = kb.ingest("docs", [handbook], sync=True)
    assert report.removed == ("handbook/shipping.md",)
    assert str(hidden) in ids(kb)


def test_files_left_out_by_the_globs_are_removed(kb: KnowledgeBase, handbook: Path) -> None:
    kb.ingest("docs", [handbook])
    report = kb.ingest("docs", [handbook], exclude=["policies/**"], sync=True)
    assert (report.excluded, report.removed) == (1, ("handbook/policies/leave.md",))
    report = kb.ingest("docs", [handbook], include=["refunds.md"], sync=True)
    assert report.removed == ("handbook/shipping.md",)
    assert ids(kb) == {str(handbook / "refunds.md")}


def test_documents_ingested_before_relative_names_are_synced_too(
    kb: KnowledgeBase, handbook: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Collections built before #18 (ingest version 1) recorded the absolute path as source.
    with monkeypatch.context() as m:
        m.setattr("unifind.kb.ingest.INGEST_VERSION", "1")
        kb.ingest("docs", [handbook], source=str)
    found = kb.search_sync(SearchRequest(type="kb", query="refunds", collections=("docs",)))
    assert found.items and str(handbook) not in found.model_dump_json()  # shown by file name
    assert {i.document_id for i in found.items} <= {"refunds.md", "leave.md", "shipping.md"}
    (handbook / "shipping.md").unlink()
    report = kb.ingest("docs", [handbook], sync=True)
    assert report.removed == ("shipping.md",)
    assert (report.replaced, report.unchanged) == (2, 0)  # re-indexed with relative names
    assert {d.source for d in kb.documents("docs")} == {
        "handbook/refunds.md", "handbook/policies/leave.md",
    }  # fmt: skip


def test_a_single_file_is_shown_by_its_name_and_removed_by_either(
    kb: KnowledgeBase, handbook: Path
) -> None:
    kb.ingest("docs", [handbook / "refunds.md", handbook])
    found = kb.search_sync(SearchRequest(type="kb", query="refunds", collections=("docs",)))
    item = next(i for i in found.items if i.title == "Refunds")
    assert (item.document_id, (item.metadata or {}).get("source")) == ("refunds.md", "refunds.md")
    assert str(handbook) not in found.model_dump_json()

    assert kb.remove("docs", "handbook/shipping.md")  # the shown name
    assert kb.remove("docs", str(handbook / "policies" / "leave.md"))  # the server's path
    assert not kb.remove("docs", "handbook/nope.md")
    assert ids(kb) == {str(handbook / "refunds.md")}


def test_sync_with_custom_ids_is_refused(kb: KnowledgeBase, handbook: Path) -> None:
    from unifind.errors import InputError

    with pytest.raises(InputError, match="document_id"):
        kb.ingest("docs", [handbook], document_id=lambda p: p.name, sync=True)


def test_a_filter_by_the_shown_document_id_finds_it(kb: KnowledgeBase, handbook: Path) -> None:
    # A caller filters by the document_id a result gave it: never a silent empty.
    kb.ingest("docs", [handbook])
    for mode in ("text", "semantic"):
        req = SearchRequest(
            type="kb", query="days", collections=("docs",), mode=mode,  # type: ignore[arg-type]
            filters={"document_id": "handbook/policies/leave.md"},
        )  # fmt: skip
        assert [i.document_id for i in kb.search_sync(req).items] == [
            "handbook/policies/leave.md"
        ], mode
