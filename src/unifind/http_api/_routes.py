"""Routes for search, fetch, sources, models, records and health: thin maps onto ``Operations``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel

from unifind.http_api._auth import Caller
from unifind.http_api._errors import ERRORS, error_response
from unifind.http_api._sse import EventStream
from unifind.ops import (
    OPERATIONS,
    FetchInput,
    FetchOutput,
    ModelOut,
    Operations,
    Readiness,
    SearchInput,
    SearchOutput,
    SourcesOutput,
)
from unifind.ops._trace import TraceNode
from unifind.ops.models import ID_PATTERN
from unifind.store import SearchRecord
from unifind.trace import pick_locale

router = APIRouter(prefix="/v1", responses=ERRORS)
#: Outside /v1: ``/ready`` (needs a key) and ``/health`` (public, for probes).
root = APIRouter(responses=ERRORS)
public = APIRouter()

RequestId = Annotated[str, Path(pattern=ID_PATTERN, description="The request's id.")]

_STREAM_DOC = (
    "With `Accept: text/event-stream` (or `?stream=true`): server-sent events `plan`, "
    "`leg` (one per backend report, as it finishes), `items` (fused so far), `references`, "
    "`done` (the whole SearchOutput) or `error`, and a `: heartbeat` comment while idle."
)


def ops_of(request: Request) -> Operations:
    ops: Operations = request.app.state.unifind.ops
    return ops


def json_response(value: BaseModel | Sequence[BaseModel], status: int = 200) -> Response:
    """JSON of a model (or a list of them), None fields left out, serialised once."""
    if isinstance(value, BaseModel):
        body = value.model_dump_json(exclude_none=True)
    else:
        body = "[" + ",".join(v.model_dump_json(exclude_none=True) for v in value) + "]"
    return Response(body, status_code=status, media_type="application/json")


def _summary(name: str) -> str:
    return OPERATIONS[name].summary


@router.post(
    "/search",
    response_model=SearchOutput,
    summary=_summary("search"),
    description=_STREAM_DOC,
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
)
async def search(
    body: SearchInput,
    request: Request,
    who: Caller,
    stream: Annotated[bool, Query(description="Stream server-sent events.")] = False,
) -> Response:
    ops = ops_of(request)
    if stream or "text/event-stream" in request.headers.get("accept", ""):
        events = ops.search_stream(body, principal=who, locale=_locale(request))
        return EventStream(events, heartbeat_s=request.app.state.unifind.heartbeat_s)
    return json_response(await ops.search(body, principal=who))


def _locale(request: Request) -> str:
    """Progress language: the caller's ``Accept-Language`` (``de, zh;q=0.5`` → zh), else
    the server's ``telemetry.lang``."""
    asked = request.headers.get("accept-language")
    if asked:
        return pick_locale(asked)
    return str(ops_of(request).settings.telemetry.lang)


@router.post("/fetch", response_model=FetchOutput, summary=_summary("fetch"))
async def fetch(body: FetchInput, request: Request, who: Caller) -> Response:
    return json_response(await ops_of(request).fetch(body))


@router.get("/sources", response_model=SourcesOutput, summary=_summary("sources"))
async def sources(request: Request, who: Caller) -> Response:
    return json_response(await ops_of(request).sources(principal=who))


@router.get("/models", response_model=list[ModelOut], summary=_summary("db.models"))
async def models(request: Request, who: Caller) -> Response:
    return json_response(await ops_of(request).models())


@router.get(
    "/requests/{request_id}/searches",
    response_model=list[SearchRecord],
    summary=_summary("records.searches"),
)
def searches(request_id: RequestId, request: Request, who: Caller) -> Response:
    return json_response(ops_of(request).searches(request_id, principal=who))


@router.get(
    "/requests/{request_id}/trace",
    response_model=TraceNode,
    summary=_summary("records.trace"),
    description="Built from the request's records: each leaf is a backend's (or a stage's) "
    "report with its own time; an inner node's status summarises the reports under it.",
)
def trace(request_id: RequestId, request: Request, who: Caller) -> Response:
    tree = ops_of(request).trace(request_id, principal=who)
    if tree is None:
        msg = f"request {request_id!r} has no record that this key can see"
        return error_response(404, msg, field="request_id")
    return json_response(tree)


@router.get(
    "/requests/{request_id}/references/{index}",
    response_model=dict[str, Any],
    summary=_summary("records.reference"),
)
def reference(
    request_id: RequestId,
    index: Annotated[int, Path(ge=1, le=1_000_000, description="1-based, across the request.")],
    request: Request,
    who: Caller,
) -> Any:
    ref = ops_of(request).reference(request_id, index, principal=who)
    if ref is None:
        msg = f"request {request_id!r} has no reference {index} that this key can see"
        return error_response(404, msg, field="index")
    return ref


class Deleted(BaseModel):
    """How many things a delete removed."""

    deleted: int


@router.delete(
    "/chats/{chat_id}/searches", response_model=Deleted, summary=_summary("records.delete")
)
def delete_searches(
    chat_id: Annotated[str, Path(pattern=ID_PATTERN)], request: Request, who: Caller
) -> Deleted:
    return Deleted(deleted=ops_of(request).delete_searches(chat_id, principal=who))


class Health(BaseModel):
    """Liveness: the process answers."""

    status: str = "ok"
    pid: int
    """The worker that answered (several workers share one port)."""


@public.get("/health", response_model=Health, summary=_summary("health"))
async def health() -> Health:
    return Health(pid=os.getpid())


@root.get(
    "/ready",
    response_model=Readiness,
    summary=_summary("ready"),
    responses={503: {"model": Readiness, "description": "A backend cannot be reached."}},
)
async def ready(request: Request, who: Caller) -> Response:
    out = await ops_of(request).ready()
    return json_response(out, 200 if out.ready else 503)
