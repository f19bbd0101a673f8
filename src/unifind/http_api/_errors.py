"""Every error the API answers, in one JSON shape: ``{"error": {code, message, field, valid}}``.

Bad input is a 4xx naming the field at fault and, where there is a closed set, what would
be valid; a server fault is a 5xx that says so without echoing internals.
"""

from __future__ import annotations

import logging
import re
import types
import typing
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from unifind.errors import Forbidden, InputError, SourceError, StoreError, UnknownName

log = logging.getLogger("unifind.http")

#: Unknown names that are resources (404); any other unknown name is a bad option (400).
_RESOURCES = frozenset({"collection", "db model", "document"})
#: Where an unknown name of each kind came from in a request body.
_FIELD_OF_KIND = {
    "collection": "sources.kb.collections",
    "db model": "sources.db.models",
    "web provider": "sources.web.provider",
    "web fetcher": "provider",
    "rerank mode": "rerank",
    "embedder": "embedder",
    "assistant (settings.assistants)": "assistant",
    "agent (settings.agents)": "uses.answer",
}
_CODES = {
    400: "invalid_input",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    503: "unavailable",
}


class ErrorDetail(BaseModel):
    """What went wrong, where, and what would have been accepted."""

    code: str
    """Machine code: ``invalid_input``, ``not_found``, ``invalid_request``, ``too_large``, ..."""
    message: str
    """One line a person (or a model) can act on."""
    field: str | None = None
    """The request field at fault, dotted (``sources.kb.collections``), when known."""
    valid: list[str] | None = None
    """The accepted values, where they form a closed set (for 404: what this key can see)."""


class ErrorOut(BaseModel):
    """The body of every 4xx and 5xx answer."""

    error: ErrorDetail


class Unauthorized(HTTPException):
    """No key, a malformed one, or one that is unknown or revoked."""

    def __init__(self, message: str) -> None:
        super().__init__(401, message, headers={"WWW-Authenticate": "Bearer"})


#: The documented error answers, for ``responses=`` on every route (OpenAPI).
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "Bad input; the message says how to fix it."},
    401: {"model": ErrorOut, "description": "No API key, or an unknown or revoked one."},
    404: {"model": ErrorOut, "description": "Unknown name; `valid` lists what this key sees."},
    413: {"model": ErrorOut, "description": "The body is larger than the server accepts."},
    422: {"model": ErrorOut, "description": "The request does not match the schema."},
    503: {"model": ErrorOut, "description": "A store the request needs can't be reached."},
}


def error_body(
    status: int, message: str, *, field: str | None = None, valid: list[str] | None = None
) -> dict[str, Any]:
    detail = ErrorDetail(code=_CODES.get(status, "error"), message=message, field=field)
    detail.valid = valid
    return ErrorOut(error=detail).model_dump()


def error_response(
    status: int,
    message: str,
    *,
    field: str | None = None,
    valid: list[str] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body = error_body(status, message, field=field, valid=valid)
    return JSONResponse(body, status_code=status, headers=headers)


def input_error(exc: InputError, path_params: dict[str, Any] | None = None) -> JSONResponse:
    """The answer to bad input the operation layer refused."""
    status, body = input_error_body(exc, path_params)
    return JSONResponse(body, status_code=status)


def input_error_body(
    exc: InputError, path_params: dict[str, Any] | None = None
) -> tuple[int, dict[str, Any]]:
    """Status and body for bad input: 404 for an unknown resource (collection, model), 400
    for an unknown option value (a rerank mode, a provider), 403 forbidden, else 400."""
    if isinstance(exc, UnknownName):
        field = _FIELD_OF_KIND.get(exc.kind)
        for name, value in (path_params or {}).items():
            if value == exc.name:  # the unknown name came in the path, not the body
                field = name
        status = 404 if exc.kind in _RESOURCES else 400
        return status, error_body(status, str(exc), field=field, valid=list(exc.valid))
    status = 403 if isinstance(exc, Forbidden) else 400
    return status, error_body(status, str(exc), field=getattr(exc, "field", None))


def install(app: FastAPI) -> None:
    """Answer every exception in the one error shape."""

    @app.exception_handler(InputError)
    async def _input(request: Request, exc: InputError) -> JSONResponse:
        return input_error(exc, dict(request.path_params))

    @app.exception_handler(StoreError)
    async def _store(request: Request, exc: StoreError) -> JSONResponse:
        log.warning("store unavailable: %s", exc)
        return error_response(503, f"a store is unavailable: {exc}")

    # A collection's own store (``kb create --store``) that is down fails the calls that
    # must reach it (documents, ingest, delete): that is the store's status, not a fault of
    # ours. Its message names the store with the password scrubbed (``kb._remote.scrub``).
    @app.exception_handler(SourceError)
    async def _source(request: Request, exc: SourceError) -> JSONResponse:
        log.warning("source unavailable on %s %s: %s", request.method, request.url.path, exc)
        return error_response(503, str(exc))

    # Starlette's class: the router raises it for unknown routes and methods.
    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = f"no route {request.method} {request.url.path}; see /openapi.json"
        headers = dict(exc.headers or {})
        return error_response(exc.status_code, message, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_error(request, exc)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, f"internal error ({type(exc).__name__}); see the server log")


def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 naming the first field at fault and its valid values where they form a set."""
    errors = list(exc.errors())
    parts, first_field, valid = [], None, None
    for err in errors:
        loc = list(err.get("loc", ()))
        if loc and loc[0] in ("body", "query", "path", "header"):
            loc = loc[1:]  # where it came from, not part of the field's name
        where = ".".join(str(p) for p in loc)
        msg = str(err.get("msg", "")).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
        if first_field is None:
            first_field = where or None
            valid = _valid(err, loc, _body_model(request))
    message = "; ".join(parts) or "invalid request"
    return error_response(422, message, field=first_field, valid=valid)


def _valid(err: Any, loc: list[Any], model: Any) -> list[str] | None:
    ctx = err.get("ctx") or {}
    if err.get("type") in ("literal_error", "enum") and "expected" in ctx:
        return re.findall(r"'([^']*)'", str(ctx["expected"])) or None
    if err.get("type") == "extra_forbidden" and model is not None:
        fields = _fields_at(model, loc[:-1])
        return sorted(fields) if fields else None
    return None


def _body_model(request: Request) -> Any:
    """The type of the route's JSON body (``SearchInput``, ``list[TextDocumentIn]``)."""
    field = getattr(request.scope.get("route"), "body_field", None)
    return getattr(getattr(field, "field_info", None), "annotation", None)


def _fields_at(tp: Any, path: list[Any]) -> list[str] | None:
    """The field names of the model found by walking ``path`` from ``tp``."""
    for part in [*path, None]:
        tp = _unwrap(tp)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            if part is None:
                return list(tp.model_fields)
            field = tp.model_fields.get(str(part))
            if field is None:
                return None
            tp = field.annotation
        elif typing.get_origin(tp) is list and isinstance(part, int):
            tp = typing.get_args(tp)[0]
        else:
            return None
    return None


def _unwrap(tp: Any) -> Any:
    """``X | None`` → ``X``."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return args[0] if len(args) == 1 else tp
    return tp
