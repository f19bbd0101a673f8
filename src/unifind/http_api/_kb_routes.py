"""Routes for KB collections, documents and ingest: thin maps onto ``Operations.kb``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Path, Query, Request, UploadFile
from fastapi.responses import Response
from pydantic import BaseModel

from unifind.http_api._auth import Caller
from unifind.http_api._errors import ERRORS, error_response
from unifind.http_api._routes import json_response, ops_of
from unifind.http_api._sse import EventStream
from unifind.ops import OPERATIONS, CollectionIn, CollectionOut, DocumentOut, IngestOutput
from unifind.ops.models import CrawlIn, TextDocumentIn

router = APIRouter(prefix="/v1/collections", responses=ERRORS, tags=["kb"])

Name = Annotated[str, Path(description="The collection's name.", max_length=256)]


def _summary(name: str) -> str:
    return OPERATIONS[name].summary


@router.get("", response_model=list[CollectionOut], summary=_summary("kb.collections"))
def collections(request: Request, who: Caller) -> Response:
    return json_response(ops_of(request).kb.collections(principal=who))


@router.post("", response_model=CollectionOut, status_code=201, summary=_summary("kb.create"))
def create(body: CollectionIn, request: Request, who: Caller) -> Response:
    return json_response(ops_of(request).kb.create(body, principal=who), 201)


@router.get("/{name}", response_model=CollectionOut, summary="One collection.")
def collection(name: Name, request: Request, who: Caller) -> Response:
    return json_response(ops_of(request).kb.collection(name, principal=who))


class DeletedName(BaseModel):
    """What a delete removed."""

    deleted: str


@router.delete("/{name}", response_model=DeletedName, summary=_summary("kb.delete"))
def delete(name: Name, request: Request, who: Caller) -> DeletedName:
    ops_of(request).kb.delete(name, principal=who)
    return DeletedName(deleted=name)


@router.get("/{name}/documents", response_model=list[DocumentOut], summary=_summary("kb.documents"))
def documents(
    name: Name,
    request: Request,
    who: Caller,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> Response:
    docs = ops_of(request).kb.documents(name, limit=limit, offset=offset, principal=who)
    return json_response(docs)


@router.post(
    "/{name}/documents",
    response_model=IngestOutput,
    summary="Ingest documents given as text or as URLs (fetched SSRF-safe).",
)
async def ingest(name: Name, body: list[TextDocumentIn], request: Request, who: Caller) -> Response:
    return json_response(await ops_of(request).kb.ingest(name, body, principal=who))


_CRAWL_STREAM_DOC = (
    "With `Accept: text/event-stream` (or `?stream=true`): server-sent events `plan` "
    "(collection, start, max_pages), one `page` per URL as its outcome is known (`url`, "
    "`status`: added, replaced, unchanged, failed or skipped, `chunks`, `error`, `fetched`: "
    "pages requested so far), then `done` (the whole IngestOutput) or `error`, and a "
    "`: heartbeat` comment while idle. A client that disconnects stops the crawl."
)


@router.post(
    "/{name}/crawl",
    response_model=IngestOutput,
    summary=_summary("kb.crawl"),
    description=_CRAWL_STREAM_DOC,
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
)
async def crawl(
    name: Name,
    body: CrawlIn,
    request: Request,
    who: Caller,
    stream: Annotated[bool, Query(description="Stream server-sent events.")] = False,
) -> Response:
    kb = ops_of(request).kb
    if stream or "text/event-stream" in request.headers.get("accept", ""):
        events = kb.crawl_stream(name, body.url, max_pages=body.max_pages, principal=who)
        return EventStream(events, heartbeat_s=request.app.state.unifind.heartbeat_s)
    return json_response(await kb.crawl(name, body.url, max_pages=body.max_pages, principal=who))


@router.post(
    "/{name}/files",
    response_model=IngestOutput,
    summary="Ingest uploaded files (txt, md, html, pdf, docx); each keeps its file name.",
)
async def upload(
    name: Name,
    files: Annotated[list[UploadFile], File(description="One or more files.")],
    request: Request,
    who: Caller,
) -> Response:
    loaded = [(f.filename or "file", await f.read()) for f in files]
    return json_response(await ops_of(request).kb.ingest_files(name, loaded, principal=who))


@router.delete(
    "/{name}/documents/{doc_id:path}", response_model=DeletedName, summary=_summary("kb.remove")
)
def remove(name: Name, doc_id: str, request: Request, who: Caller) -> Response:
    if not ops_of(request).kb.remove(name, doc_id, principal=who):
        msg = f"collection {name!r} has no document {doc_id!r}"
        return error_response(404, msg, field="doc_id")
    return json_response(DeletedName(deleted=doc_id))
