"""The ingest pipeline against an in-memory store that records every write."""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docx
import numpy as np
import numpy.typing as npt
import pytest

from unifind.analysis import get_analyzer
from unifind.embed.base import Embedder, Vectors
from unifind.errors import EmbedderMismatch, InputError, UnknownName
from unifind.kb import ingest as ingest_module
from unifind.kb.base import (
    ChunkIn,
    ChunkRecord,
    CollectionInfo,
    DocumentIn,
    DocumentInfo,
    Hit,
    KBStore,
    UpsertOutcome,
)
from unifind.kb.extract import extract_bytes
from unifind.kb.ingest import FileOutcome, expand_paths, ingest_files, ingest_text
from unifind.testing.fakes import HashEmbedder

AUTO = get_analyzer("auto")


@dataclass
class Stored:
    doc: DocumentIn
    chunks: list[ChunkIn]


class MemoryStore(KBStore):
    """Just enough of a store: atomic per-document writes, counted; term-overlap search."""

    name = "memory"

    def __init__(self) -> None:
        self.infos: dict[str, CollectionInfo] = {}
        self.docs: dict[tuple[str, str], Stored] = {}
        self.upserts = 0
        self.fail_on: set[str] = set()

    def create_collection(
        self,
        name: str,
        *,
        embedder: str | None,
        dim: int | None,
        analyzer: str = "auto",
        description: str = "",
        metadata: Mapping[str, Any] | None = None,
        exist_ok: bool = False,
    ) -> CollectionInfo:
        self.infos[name] = CollectionInfo(name, embedder, dim, analyzer, description)
        return self.infos[name]

    def get_collection(self, name: str) -> CollectionInfo:
        if name not in self.infos:
            raise UnknownName("collection", name, self.infos)
        return self.infos[name]

    def list_collections(self) -> list[CollectionInfo]:
        return list(self.infos.values())

    def delete_collection(self, name: str) -> None:
        del self.infos[name]

    def document_hash(self, collection: str, document_id: str) -> str | None:
        stored = self.docs.get((collection, document_id))
        return stored.doc.content_hash if stored else None

    def upsert_document(
        self, collection: str, doc: DocumentIn, chunks: Sequence[ChunkIn]
    ) -> UpsertOutcome:
        self.get_collection(collection)
        self.upserts += 1
        if doc.document_id in self.fail_on:
            raise OSError("disk full")
        previous = self.docs.get((collection, doc.document_id))
        if previous and previous.doc.content_hash == doc.content_hash:
            return "unchanged"
        self.docs[(collection, doc.document_id)] = Stored(doc, list(chunks))
        return "replaced" if previous else "added"

    def delete_document(self, collection: str, document_id: str) -> bool:
        return self.docs.pop((collection, document_id), None) is not None

    def list_documents(
        self, collection: str, *, limit: int = 100, offset: int = 0
    ) -> list[DocumentInfo]:
        raise NotImplementedError

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> dict[str, ChunkRecord]:
        raise NotImplementedError

    def lexical_search(
        self,
        collection: str,
        terms: Sequence[str],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        hits = [
            Hit(f"{doc_id}#{c.ordinal}", float(sum(c.terms.get(t, 0) for t in terms)))
            for (coll, doc_id), s in self.docs.items()
            if coll == collection
            for c in s.chunks
        ]
        return sorted((h for h in hits if h.score > 0), key=lambda h: -h.score)[:limit]

    def vector_search(
        self,
        collection: str,
        vector: npt.NDArray[np.float32],
        *,
        limit: int,
        filters: Mapping[str, Any] | None = None,
    ) -> list[Hit]:
        raise NotImplementedError

    # helpers for assertions
    def doc(self, document_id: str, collection: str = "docs") -> Stored:
        return self.docs[(collection, document_id)]


class RecordingEmbedder(HashEmbedder):
    """The hash embedder, remembering each call's texts; rejects texts containing POISON."""

    def __init__(self) -> None:
        super().__init__(16)
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        if any("POISON" in t for t in texts):
            raise RuntimeError("input rejected by the model")
        return super().embed_documents(texts)


@pytest.fixture
def store() -> MemoryStore:
    s = MemoryStore()
    s.create_collection("docs", embedder="hash:16", dim=16)
    s.create_collection("lexical", embedder=None, dim=None)
    return s


@pytest.fixture
def embedder() -> RecordingEmbedder:
    return RecordingEmbedder()


def make_pdf(text: str) -> bytes:
    """A one-page PDF 1.4 with one Tj text operator (see test_extract.make_pdf)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text})Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R "
        b"/Resources << /Font << /F1 3 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 6\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref


def make_docx(*paragraphs: str) -> bytes:
    document = docx.Document()
    for p in paragraphs:
        document.add_paragraph(p)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    files: dict[str, bytes | str] = {
        "notes.txt": "Refunds are paid within 30 days of the return.",
        "guide.md": "# Warranty\n\nThe warranty lasts 24 months from delivery.",
        "sub/page.html": "<html><head><title>Shipping</title></head>"
        "<body><p>Orders ship within 2 business days.</p></body></html>",
        "sub/manual.pdf": make_pdf("The on-call engineer answers pages within 15 minutes."),
        "sub/policy.docx": make_docx("Meals are reimbursed up to 40 euros per day."),
        "blob.txt": b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + b"\x00" * 32,
        "empty.md": "",
        "broken.pdf": b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R",
        ".hidden.txt": "never indexed",
        ".git/config.txt": "never indexed",
    }
    for name, content in files.items():
        data = content.encode() if isinstance(content, str) else content
        (root / name).write_bytes(data)
    return root


GOOD = ["guide.md", "notes.txt", "sub/manual.pdf", "sub/page.html", "sub/policy.docx"]
BAD = {
    "blob.txt": "not a text file",
    "empty.md": "no text to index",
    "broken.pdf": "damaged or unreadable",
}


def run(store: MemoryStore, paths: list[Any], embedder: Embedder | None, **kw: Any) -> Any:
    seen: list[FileOutcome] = []
    report = ingest_files(
        store, "docs", paths, analyzer=AUTO, embedder=embedder, progress=seen.append, **kw
    )
    assert sorted(seen, key=str) == sorted(report.outcomes, key=str)  # progress saw them all
    return report


def test_mixed_batch_ingests_good_files_and_names_bad_ones(
    store: MemoryStore, embedder: RecordingEmbedder, corpus: Path
) -> None:
    missing = corpus / "nope.txt"
    report = run(store, [corpus, missing], embedder)

    assert (report.added, report.failed, report.replaced, report.unchanged) == (5, 4, 0, 0)
    by_name = {Path(o.path).name: o for o in report.outcomes}
    assert "hidden" not in str(report.outcomes) and "config.txt" not in by_name
    for name in GOOD:
        outcome = by_name[Path(name).name]
        assert outcome.status == "added" and outcome.chunks == 1 and outcome.error is None
        assert outcome.document_id == str((corpus / name).resolve())
    for name, reason in BAD.items():
        outcome = by_name[name]
        assert outcome.status == "failed" and outcome.chunks == 0
        assert outcome.error is not None and name in outcome.error and reason in outcome.error
    assert report.outcomes[0].path == str(missing)  # missing paths first
    assert report.outcomes[0].error == f"{missing}: no such file or directory"
    assert report.outcomes[0].document_id is None
    assert len(store.docs) == 5 and store.upserts == 5


def test_documents_carry_text_terms_vectors_and_metadata(
    store: MemoryStore, embedder: RecordingEmbedder, corpus: Path
) -> None:
    run(store, [corpus], embedder, metadata={"team": "support"})
    stored = store.doc(str((corpus / "guide.md").resolve()))
    doc, (only,) = stored.doc, stored.chunks
    # The id is the server's path; callers are shown the path below what was ingested.
    assert (doc.title, doc.mime, doc.source) == ("Warranty", "text/markdown", "corpus/guide.md")
    assert doc.metadata == {
        "path": "corpus/guide.md", "mime": "text/markdown", "lang": "en", "team": "support",
    }  # fmt: skip
    assert doc.text_chars == len(only.text) == only.end - only.start
    assert only.text.startswith("# Warranty")
    assert only.terms["warranti"] == 3  # title + heading + body
    assert only.vector is not None and only.vector.shape == (16,)
    assert np.isclose(np.linalg.norm(only.vector), 1.0)
    # BEIR-style "title + text" is what was embedded.
    assert f"Warranty\n\n{only.text}" in [t for call in embedder.calls for t in call]


def test_reingest_unchanged_writes_nothing(
    store: MemoryStore, embedder: RecordingEmbedder, corpus: Path
) -> None:
    run(store, [corpus], embedder)
    upserts, embeds = store.upserts, len(embedder.calls)
    report = run(store, [corpus], embedder)
    assert (report.unchanged, report.added, report.failed) == (5, 0, 3)
    assert store.upserts == upserts and len(embedder.calls) == embeds


def test_changed_file_is_replaced(
    store: MemoryStore, embedder: RecordingEmbedder, corpus: Path
) -> None:
    run(store, [corpus], embedder)
    (corpus / "notes.txt").write_text("Refunds are now paid within 14 days.")
    report = run(store, [corpus], embedder)
    assert (report.replaced, report.unchanged) == (1, 4)
    (chunk,) = store.doc(str((corpus / "notes.txt").resolve())).chunks
    assert "14 days" in chunk.text


def test_changed_settings_reindex_everything(
    store: MemoryStore, embedder: RecordingEmbedder, corpus: Path
) -> None:
    run(store, [corpus], embedder)
    assert run(store, [corpus], embedder, max_chars=600).replaced == 5
    assert run(store, [corpus], embedder, max_chars=600, metadata={"v": 2}).replaced == 5


def test_chinese_file_is_segmented_and_findable(
    store: MemoryStore, embedder: RecordingEmbedder, tmp_path: Path
) -> None:
    path = tmp_path / "退款流程.md"
    path.write_text("# 退款流程\n\n客户在收到商品后三十天内可以申请退款。", encoding="utf-8")
    report = run(store, [path], embedder)
    assert report.added == 1
    stored = store.doc(str(path.resolve()))
    assert stored.doc.metadata["lang"] == "zh"
    assert {"退款", "流程", "申请", "三十"} <= set(stored.chunks[0].terms)
    hits = store.lexical_search("docs", AUTO.terms("怎么申请退款"), limit=5)
    assert hits and hits[0].chunk_id.startswith(str(path.resolve()))


def test_embedder_batches_span_documents(store: MemoryStore, tmp_path: Path) -> None:
    embedder = RecordingEmbedder()
    for i in range(5):
        (tmp_path / f"d{i}.txt").write_text(f"Document number {i} about refunds.")
    report = ingest_files(store, "docs", [tmp_path], analyzer=AUTO, embedder=embedder,
                          batch_size=2)  # fmt: skip
    assert report.added == 5
    assert [len(c) for c in embedder.calls] == [2, 2, 1]


def test_progress_advances_per_file_as_each_is_written(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A progress bar moves as each file is done, not at 0/N until a batch fills (#18):
    files are written at least every ``_PROGRESS_EVERY_S`` (here 0: after each)."""
    monkeypatch.setattr(ingest_module, "_PROGRESS_EVERY_S", 0.0)
    events: list[str] = []

    class Logged(RecordingEmbedder):
        def embed_documents(self, texts: Sequence[str]) -> Vectors:
            events.extend(f"embed {t.split()[0]}" for t in texts)  # the title: the stem
            return super().embed_documents(texts)

    for i in range(3):
        (tmp_path / f"d{i}.txt").write_text(f"Document {i} about refunds.")
    (tmp_path / "d1b.txt").write_text("Document 1b about refunds.")

    def progress(o: FileOutcome) -> None:
        events.append(f"{o.status} {Path(o.path).name}")
        assert len(store.docs) == sum(e.startswith("added") for e in events)  # written first

    report = ingest_files(store, "docs", [tmp_path], analyzer=AUTO, embedder=Logged(),
                          progress=progress)  # fmt: skip
    assert report.added == 4
    assert events == [
        "embed d0", "added d0.txt", "embed d1", "added d1.txt",
        "embed d1b", "added d1b.txt", "embed d2", "added d2.txt",
    ]  # fmt: skip


def test_with_progress_small_files_still_embed_together(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within ``_PROGRESS_EVERY_S`` of the last write, files wait to fill one embedding
    call (#23: one file per call left all but one core idle); every outcome still comes."""
    monkeypatch.setattr(ingest_module, "_PROGRESS_EVERY_S", 3600.0)
    embedder = RecordingEmbedder()
    for i in range(5):
        (tmp_path / f"d{i}.txt").write_text(f"Document {i} about refunds.")
    seen: list[FileOutcome] = []
    report = ingest_files(store, "docs", [tmp_path], analyzer=AUTO, embedder=embedder,
                          progress=seen.append)  # fmt: skip
    assert report.added == 5 and len(seen) == 5
    assert [len(c) for c in embedder.calls] == [1, 4]  # the first file at once, then one call


def test_a_flush_embeds_by_length_and_keeps_each_documents_vectors(
    store: MemoryStore, tmp_path: Path
) -> None:
    embedder = RecordingEmbedder()
    paragraphs = ["refunds are long " * 3, "refunds " * 4, "refunds are " * 4]  # 51, 32, 48
    (tmp_path / "d.txt").write_text("\n\n".join(p.strip() for p in paragraphs))
    ingest_files(store, "docs", [tmp_path], analyzer=AUTO, embedder=embedder, batch_size=2,
                 max_chars=60, overlap=0)  # fmt: skip
    assert [len(c) for c in embedder.calls] == [2, 1]
    lengths = [len(t) for call in embedder.calls for t in call]
    assert lengths == sorted(lengths)  # shortest first, across the calls of one flush
    (stored,) = store.docs.values()
    assert [c.text for c in stored.chunks] == [p.strip() for p in paragraphs]  # input order
    for c in stored.chunks:
        (sent,) = [t for call in embedder.calls for t in call if t.endswith(c.text)]
        assert c.vector is not None
        assert np.array_equal(c.vector, HashEmbedder(16).embed_documents([sent])[0])


def test_long_document_embeds_in_batch_sized_calls(store: MemoryStore, tmp_path: Path) -> None:
    embedder = RecordingEmbedder()
    path = tmp_path / "long.txt"
    path.write_text("\n\n".join(f"Paragraph {i} talks about refunds." for i in range(40)))
    (outcome,) = run(store, [path], embedder, max_chars=100, overlap=0, batch_size=4).outcomes
    assert outcome.chunks > 8
    assert all(len(c) <= 4 for c in embedder.calls)
    assert sum(len(c) for c in embedder.calls) == outcome.chunks
    # The title (the file name here) is in every chunk's terms.
    assert all(c.terms["long"] == 1 for c in store.doc(str(path.resolve())).chunks)


def test_embedding_failure_costs_only_that_document(store: MemoryStore, tmp_path: Path) -> None:
    embedder = RecordingEmbedder()
    (tmp_path / "a.txt").write_text("Fine text.")
    (tmp_path / "b.txt").write_text("POISON text.")
    (tmp_path / "c.txt").write_text("Also fine.")
    report = run(store, [tmp_path], embedder, batch_size=10)
    assert (report.added, report.failed) == (2, 1)
    (failure,) = report.failures
    assert failure.path.endswith("b.txt")
    assert failure.error is not None and "embedding failed" in failure.error
    assert "input rejected by the model" in failure.error


def test_store_failure_costs_only_that_document(
    store: MemoryStore, embedder: RecordingEmbedder, corpus: Path
) -> None:
    store.fail_on.add(str((corpus / "notes.txt").resolve()))
    report = run(store, [corpus], embedder)
    assert report.added == 4
    failure = next(o for o in report.failures if o.path.endswith("notes.txt"))
    assert failure.error is not None and "disk full" in failure.error


def test_lexical_only_collection(store: MemoryStore, corpus: Path) -> None:
    report = ingest_files(store, "lexical", [corpus], analyzer=AUTO, embedder=None)
    assert report.added == 5
    assert all(c.vector is None for s in store.docs.values() for c in s.chunks)


def test_collection_mismatches_raise_before_anything_is_read(
    store: MemoryStore, embedder: RecordingEmbedder, corpus: Path
) -> None:
    with pytest.raises(UnknownName, match="unknown collection 'nope'"):
        ingest_files(store, "nope", [corpus], analyzer=AUTO, embedder=embedder)
    with pytest.raises(EmbedderMismatch, match="built with embedder 'hash:16'"):
        ingest_files(store, "docs", [corpus], analyzer=AUTO, embedder=None)
    with pytest.raises(EmbedderMismatch, match="built with embedder None"):
        ingest_files(store, "lexical", [corpus], analyzer=AUTO, embedder=embedder)
    with pytest.raises(InputError, match="analysed with 'auto', not 'simple'"):
        ingest_files(store, "docs", [corpus], analyzer=get_analyzer("simple"), embedder=embedder)
    with pytest.raises(InputError, match="overlap"):
        ingest_files(store, "docs", [corpus], analyzer=AUTO, embedder=embedder, overlap=5000)
    assert store.upserts == 0 and not embedder.calls


def test_custom_document_ids(store: MemoryStore, embedder: RecordingEmbedder, corpus: Path) -> None:
    report = ingest_files(
        store,
        "docs",
        [corpus],
        analyzer=AUTO,
        embedder=embedder,
        document_id=lambda p: p.relative_to(corpus.resolve()).as_posix(),
    )
    assert {o.document_id for o in report.outcomes if o.status == "added"} == set(GOOD)


def test_expand_paths(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(corpus)
    files, failures = expand_paths(["notes.txt", corpus / "notes.txt", "sub", "gone"])
    assert files == sorted((corpus / n).resolve() for n in ("notes.txt", *_sub_files()))
    assert [f.error for f in failures] == ["gone: no such file or directory"]
    hidden, _ = expand_paths(".hidden.txt")  # a single path, named explicitly
    assert hidden == [(corpus / ".hidden.txt").resolve()]


def _sub_files() -> list[str]:
    return ["sub/manual.pdf", "sub/page.html", "sub/policy.docx"]


# -- raw text ----------------------------------------------------------------------------


def test_ingest_text_added_unchanged_replaced(
    store: MemoryStore, embedder: RecordingEmbedder
) -> None:
    kw: dict[str, Any] = {"document_id": "faq-1", "title": "FAQ", "analyzer": AUTO}

    def once(text: str, **extra: Any) -> FileOutcome:
        return ingest_text(store, "docs", text, embedder=embedder, **kw, **extra)

    assert once("How long do refunds take? 30 days.") == FileOutcome("faq-1", "faq-1", "added", 1)
    assert once("How long do refunds take? 30 days.").status == "unchanged"
    assert store.upserts == 1
    assert once("How long do refunds take? 14 days.").status == "replaced"
    assert once("How long do refunds take? 14 days.", metadata={"tag": "x"}).status == "replaced"
    doc = store.doc("faq-1").doc
    assert doc.metadata == {"mime": "text/plain", "tag": "x"}  # too short to guess a language
    assert doc.source == ""


def test_ingest_text_refuses_a_blank_id_and_reports_blank_text(
    store: MemoryStore, embedder: RecordingEmbedder
) -> None:
    with pytest.raises(InputError, match="document_id is required"):
        ingest_text(store, "docs", "x", document_id=" ", analyzer=AUTO, embedder=embedder)
    blank = ingest_text(store, "docs", "  ", document_id="d", analyzer=AUTO, embedder=embedder)
    assert blank.status == "failed" and blank.error is not None
    assert blank.error.startswith("document 'd': no text to index")
    assert store.upserts == 0


def test_with_the_sqlite_store(tmp_path: Path, corpus: Path) -> None:
    sqlite = pytest.importorskip("unifind.kb.sqlite")
    embedder = HashEmbedder(16)
    with sqlite.SQLiteStore(tmp_path / "kb.sqlite") as real:
        real.create_collection("docs", embedder=embedder.spec, dim=16)
        report = ingest_files(real, "docs", [corpus], analyzer=AUTO, embedder=embedder)
        assert (report.added, report.failed) == (5, 3)
        again = ingest_files(real, "docs", [corpus], analyzer=AUTO, embedder=embedder)
        assert again.unchanged == 5
        hits = real.lexical_search("docs", AUTO.terms("warranty months"), limit=3)
        (record,) = real.get_chunks("docs", [hits[0].chunk_id]).values()
        assert record.title == "Warranty" and "24 months" in record.text


CORPUS = Path(__file__).parents[2] / "src" / "unifind" / "demo" / "corpus"


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KBStore]:
    sqlite = pytest.importorskip("unifind.kb.sqlite")
    with sqlite.SQLiteStore(tmp_path_factory.mktemp("demo") / "kb.sqlite") as real:
        real.create_collection("demo", embedder=None, dim=None)
        report = ingest_files(real, "demo", [CORPUS], analyzer=AUTO, embedder=None)
        assert (report.added, report.failed) == (10, 0)
        yield real


@pytest.mark.parametrize(
    ("query", "title"),
    [
        ("how long do refunds take", "Refunds and returns"),
        ("express shipping cost to Germany", "Shipping policy"),
        ("tent pole broken warranty claim", "Warranty"),
        ("lost security key", "Account security policy for employees"),
        ("probation period review", "Onboarding for new employees"),
        ("page not acknowledged escalation", "On-call rotation"),
        ("hotel limit per night", "Expense policy"),
        ("退款多久到账", "退款流程"),
        ("偏远地区运费", "发货政策"),
        ("年假可以顺延吗", "年假制度"),
    ],
)
def test_demo_corpus_answers_its_questions(demo_store: KBStore, query: str, title: str) -> None:
    hits = demo_store.lexical_search("demo", AUTO.terms(query), limit=1)
    (record,) = demo_store.get_chunks("demo", [hits[0].chunk_id]).values()
    assert record.title == title


def test_demo_corpus_documents_are_handbook_sized() -> None:
    for path in sorted(CORPUS.iterdir()):
        extracted = extract_bytes(path.read_bytes(), name=path.name)
        assert 400 <= len(extracted.text) <= 2500, path.name
        assert extracted.title and extracted.title != path.stem, path.name


class BatchStore(MemoryStore):
    """A store that writes a batch in one all-or-nothing call, like PostgreSQL's."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def upsert_documents(
        self, collection: str, batch: Sequence[tuple[DocumentIn, Sequence[ChunkIn]]]
    ) -> list[UpsertOutcome]:
        names = [d.document_id for d, _ in batch]
        if set(names) & self.fail_on:
            raise OSError("refused")  # nothing of the batch is written
        self.batches.append(names)
        return [self.upsert_document(collection, d, c) for d, c in batch]


def test_a_flush_is_one_batch_where_the_store_writes_batches(tmp_path: Path) -> None:
    store = BatchStore()
    store.create_collection("docs", embedder="hash:16", dim=16)
    for i in range(4):
        (tmp_path / f"d{i}.txt").write_text(f"Document {i} about refunds.")
    report = ingest_files(store, "docs", [tmp_path], analyzer=AUTO, embedder=RecordingEmbedder())
    assert report.added == 4
    assert store.batches == [[str(tmp_path / f"d{i}.txt") for i in range(4)]]


def test_a_refused_batch_is_written_one_by_one_and_only_the_culprit_fails(
    tmp_path: Path,
) -> None:
    store = BatchStore()
    store.create_collection("docs", embedder="hash:16", dim=16)
    for i in range(3):
        (tmp_path / f"d{i}.txt").write_text(f"Document {i} about refunds.")
    store.fail_on = {str(tmp_path / "d1.txt")}
    report = ingest_files(store, "docs", [tmp_path], analyzer=AUTO, embedder=RecordingEmbedder())
    assert [o.status for o in report.outcomes] == ["added", "failed", "added"]
    assert store.batches == [] and len(store.docs) == 2
