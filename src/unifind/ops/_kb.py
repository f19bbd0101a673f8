"""Knowledge-base operations: collections, documents and ingest, as the caller may see them."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from unifind.errors import InputError
from unifind.kb._names import shown_id, shown_metadata
from unifind.kb.base import CollectionInfo
from unifind.kb.ingest import FileOutcome, IngestReport
from unifind.ops._crawl import Crawler, CrawlPage, start_site
from unifind.ops.models import (
    CollectionIn,
    CollectionOut,
    DocumentOut,
    FetchInput,
    IngestOutcome,
    IngestOutput,
    TextDocumentIn,
)
from unifind.ops.stream import OpEvent
from unifind.types import Principal

if TYPE_CHECKING:
    from unifind.ops.service import Operations

#: Upload names are reduced to this alphabet before they touch the file system.
_SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class KBOps:
    """The KB part of :class:`~unifind.ops.Operations`; every call is scoped by principal."""

    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    @property
    def _kb(self) -> Any:
        return self._ops.searcher.kb

    def _principal(self, principal: Principal | None) -> Principal | None:
        return self._ops._principal(principal)

    def collections(self, *, principal: Principal | None = None) -> list[CollectionOut]:
        """The collections the caller can see."""
        infos = self._kb.collections(principal=self._principal(principal))
        return [_collection(i) for i in infos]

    def collection(self, name: str, *, principal: Principal | None = None) -> CollectionOut:
        """One collection; an unknown or invisible one raises UnknownName."""
        return _collection(self._kb.collection(name, principal=self._principal(principal)))

    def create(self, inp: CollectionIn, *, principal: Principal | None = None) -> CollectionOut:
        """Create a collection, owned by the caller's tenant (shared when it has none)."""
        p = self._principal(principal)
        info = self._kb.create(
            inp.name,
            embedder=inp.embedder,
            description=inp.description,
            exist_ok=inp.exist_ok,
            tenant=p.tenant if p else None,
            roles=tuple(inp.roles or ()),
            users=tuple(inp.users or ()),
            principal=p,
        )
        return _collection(info)

    def delete(self, name: str, *, principal: Principal | None = None) -> None:
        self._kb.delete(name, principal=self._principal(principal))

    def documents(
        self, name: str, *, limit: int = 100, offset: int = 0, principal: Principal | None = None
    ) -> list[DocumentOut]:
        docs = self._kb.documents(
            name, limit=limit, offset=offset, principal=self._principal(principal)
        )
        # Callers see a file by its name relative to what was ingested, never the server's
        # absolute path (kb._names); remove() takes that name back.
        return [
            DocumentOut(
                **{k: v for k, v in asdict(d).items() if k != "collection"},
            ).model_copy(update=_shown(d.document_id, d.source, d.metadata))
            for d in docs
        ]

    def remove(self, name: str, document_id: str, *, principal: Principal | None = None) -> bool:
        return bool(self._kb.remove(name, document_id, principal=self._principal(principal)))

    async def ingest(
        self, name: str, docs: Sequence[TextDocumentIn], *, principal: Principal | None = None
    ) -> IngestOutput:
        """Ingest text and URL documents; a failed one is reported, the rest ingested."""
        p = self._principal(principal)
        self._kb.writable(name, principal=p)  # unknown, invisible or read-only → error first
        for i, doc in enumerate(docs):  # a malformed document refuses the batch before any write
            if (doc.text is None) == (doc.url is None):
                raise InputError(f"document {i}: give exactly one of 'text' or 'url'")
            if doc.text is not None and not doc.document_id:
                raise InputError(f"document {i}: a text document needs a 'document_id'")
        outcomes = [await self._ingest_one(name, doc, p) for doc in docs]
        return _ingest_output(name, outcomes)

    async def _ingest_one(
        self, name: str, doc: TextDocumentIn, principal: Principal | None
    ) -> FileOutcome:
        text, title, meta = doc.text, doc.title, dict(doc.metadata or {})
        doc_id = doc.document_id or doc.url
        assert doc_id is not None  # checked for the whole batch by ingest()
        if doc.url is not None:
            page = await self._ops.fetch(FetchInput(url=doc.url, max_chars=1_000_000))
            if page.report.status.value != "ok":
                why = page.report.error or page.report.note or page.report.status.value
                return FileOutcome(doc.url, doc_id, "failed", error=f"fetch failed: {why}")
            text, title = page.text, title or page.title or ""
            meta.setdefault("url", page.final_url or doc.url)
        assert text is not None
        try:
            return await asyncio.to_thread(
                self._kb.ingest_text,
                name,
                text,
                document_id=doc_id,
                title=title,
                metadata=meta or None,
                principal=principal,
            )
        except InputError as exc:  # a blank document is one failed outcome, not a failed batch
            return FileOutcome(doc_id, doc_id, "failed", error=str(exc))

    async def crawl(
        self,
        name: str,
        url: str,
        *,
        max_pages: int = 50,
        progress: Callable[[CrawlPage], None] | None = None,
        principal: Principal | None = None,
    ) -> IngestOutput:
        """Crawl one site into ``name`` (sitemap, links, robots.txt; see ``ops._crawl``);
        every URL's outcome, unchanged pages kept as they are."""
        p = self._principal(principal)
        self._kb.writable(name, principal=p)
        leg = self._web_leg()

        async def fetch(page_url: str) -> Any:
            return await leg.fetch(page_url, max_chars=2_000_000, provider="local",
                                   fallback=False, stay_on_site=True)  # fmt: skip

        async def ingest(page_url: str, text: str, title: str) -> tuple[str, int, str | None]:
            doc = TextDocumentIn(document_id=page_url, text=text, title=title,
                                 metadata={"url": page_url})  # fmt: skip
            o = await self._ingest_one(name, doc, p)
            return str(getattr(o.status, "value", o.status)), o.chunks, o.error

        report = await Crawler(fetch, ingest, max_pages=max_pages, progress=progress).run(url)
        outcomes = [FileOutcome(pg.url, pg.url, pg.status, pg.chunks, pg.error)  # type: ignore[arg-type]
                    for pg in report.pages]  # fmt: skip
        out = _ingest_output(name, outcomes)
        stopped = next((n for n in report.notes if n.startswith("stopped")), None)
        return out.model_copy(update={"stopped": stopped})

    def _web_leg(self) -> Any:
        leg = self._ops.searcher.leg("web")
        if leg is None:
            raise InputError("the web leg is not available in this build")
        return leg

    def crawl_stream(
        self, name: str, url: str, *, max_pages: int = 50, principal: Principal | None = None
    ) -> AsyncIterator[OpEvent]:
        """:meth:`crawl` as events: ``plan`` (collection, start, max_pages), one ``page`` per
        URL the moment its outcome is known (with ``fetched``: pages requested so far), then
        ``done`` (the IngestOutput). Bad input raises here, before anything is fetched;
        closing the iterator cancels the crawl."""
        p = self._principal(principal)
        self._kb.writable(name, principal=p)  # unknown, invisible or read-only → error first
        self._web_leg()
        start_site(url)
        if max_pages < 1:
            raise InputError(f"max_pages must be at least 1, got {max_pages}")
        return self._crawl_events(name, url, max_pages, p)

    async def _crawl_events(
        self, name: str, url: str, max_pages: int, principal: Principal | None
    ) -> AsyncIterator[OpEvent]:
        pages: asyncio.Queue[CrawlPage | None] = asyncio.Queue()

        async def run() -> IngestOutput:
            try:
                return await self.crawl(name, url, max_pages=max_pages,
                                        progress=pages.put_nowait, principal=principal)  # fmt: skip
            finally:
                pages.put_nowait(None)  # the end, whichever way it came

        yield OpEvent("plan", {"collection": name, "start": url, "max_pages": max_pages})
        task = asyncio.ensure_future(run())
        try:
            fetched = 0
            while (page := await pages.get()) is not None:
                fetched += page.fetched
                data = {
                    "url": page.url,
                    "status": page.status,
                    "chunks": page.chunks,
                    "error": page.error,
                    "fetched": fetched,
                    "max_pages": max_pages,
                }
                yield OpEvent("page", {k: v for k, v in data.items() if v is not None})
            yield OpEvent("done", {"output": await task})
        finally:
            task.cancel()  # a client that leaves stops the crawl it started

    async def ingest_files(
        self,
        name: str,
        files: Sequence[tuple[str, bytes]],
        *,
        principal: Principal | None = None,
    ) -> IngestOutput:
        """Ingest uploaded files ``(file name, bytes)``; each keeps its name as document id."""
        p = self._principal(principal)
        self._kb.writable(name, principal=p)
        with tempfile.TemporaryDirectory(prefix="unifind-upload-") as tmp:
            paths, names = [], {}
            for i, (filename, data) in enumerate(files):
                # One folder per upload keeps the client's name (its suffix picks the reader,
                # its stem is the fallback title) without two uploads colliding.
                safe = "".join(c if c in _SAFE else "_" for c in Path(filename).name)
                path = Path(tmp) / f"{i:04d}" / (safe.lstrip(".") or "file")
                path.parent.mkdir()
                path.write_bytes(data)
                paths.append(path)
                names[str(path)] = filename
            report: IngestReport = await asyncio.to_thread(
                self._kb.ingest,
                name,
                paths,
                document_id=lambda path: f"upload:{names.get(str(path), path.name)}",
                source=lambda path: names.get(str(path), path.name),
                principal=p,
            )

        def client(path: str) -> str:
            return names.get(path, path)

        def scrubbed(error: str | None) -> str | None:
            """The reader's message with each temp path as the client named the file."""
            if error is None:
                return None
            for internal, shown in names.items():
                error = error.replace(internal, shown)
            return error.replace(tmp, "upload")

        outcomes = [
            FileOutcome(client(o.path), o.document_id, o.status, o.chunks, scrubbed(o.error))
            for o in report.outcomes
        ]
        out = _ingest_output(name, outcomes)
        return out.model_copy(
            update={"stopped": report.stopped, "not_tried": [client(p) for p in report.not_tried]}
        )


def _shown(document_id: str, source: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """A stored document's id, source and metadata as callers see them (``kb._names``)."""
    shown = shown_id(document_id, source)
    return {
        "document_id": shown,
        "source": shown if shown != document_id and source == document_id else source,
        "metadata": shown_metadata(document_id, source, metadata),
    }


def _collection(info: CollectionInfo) -> CollectionOut:
    acl = info.metadata.get("acl") if isinstance(info.metadata, dict) else None
    owner = acl.get("tenant") if isinstance(acl, dict) else None
    return CollectionOut(
        name=info.name,
        description=info.description,
        documents=info.documents,
        chunks=info.chunks,
        embedder=info.embedder,
        analyzer=info.analyzer,
        owner=owner,
        created_at=info.created_at,
    )


def _ingest_output(name: str, outcomes: Sequence[FileOutcome]) -> IngestOutput:
    rows = [
        IngestOutcome(
            name=o.path,
            document_id=o.document_id,
            status=str(getattr(o.status, "value", o.status)),
            chunks=o.chunks,
            error=o.error,
        )
        for o in outcomes
    ]

    def count(status: str) -> int:
        return sum(r.status == status for r in rows)

    return IngestOutput(
        collection=name,
        outcomes=rows,
        added=count("added"),
        replaced=count("replaced"),
        unchanged=count("unchanged"),
        failed=count("failed"),
        skipped=count("skipped"),
    )
