"""``POST /v1/ask``: a question answered from searches, as JSON or server-sent events."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from unifind.http_api._auth import Caller
from unifind.http_api._errors import ERRORS
from unifind.http_api._routes import _locale, json_response, ops_of
from unifind.http_api._sse import EventStream
from unifind.ops import OPERATIONS, AskInput, AskOutput

router = APIRouter(prefix="/v1", responses=ERRORS)

_STREAM_DOC = (
    "With `Accept: text/event-stream` (or `?stream=true`): server-sent events `plan`, "
    "`leg` (one per backend report), `references`, `answer.delta` (the answer's text as it "
    "is written), `citations` (the check of every cited id and sentence; `verdicts`: "
    "each (sentence, cited id) supported, contradicted, not_supported or unknown_id, and "
    "each uncited_claim, with the source sentence that decided it), `done` (the "
    "whole AskOutput) or `error`, each with a progress line (`message`) in the first "
    "supported `Accept-Language` (else the server's `telemetry.lang`), and a `: heartbeat` "
    "comment while idle. A client that disconnects cancels the searches and the answer "
    "still running."
)


@router.post(
    "/ask",
    response_model=AskOutput,
    summary=OPERATIONS["ask"].summary,
    description=_STREAM_DOC,
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
)
async def ask(
    body: AskInput,
    request: Request,
    who: Caller,
    stream: Annotated[bool, Query(description="Stream server-sent events.")] = False,
) -> Response:
    ops = ops_of(request)
    if stream or "text/event-stream" in request.headers.get("accept", ""):
        events = ops.ask_stream(body, principal=who, locale=_locale(request))
        return EventStream(events, heartbeat_s=request.app.state.unifind.heartbeat_s)
    return json_response(await ops.ask(body, principal=who))
