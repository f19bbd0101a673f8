"""The HTTP API (L5): ``unifind serve``, a thin mapping of :mod:`unifind.ops` onto HTTP.

Why FastAPI (over Starlette + pydantic by hand): the operation layer's inputs and outputs
are already pydantic models, and FastAPI turns them into request validation and an
OpenAPI 3.1 document (``/openapi.json``) with no second description to keep in step; the
schema-driven fuzz test reads that same document. It is Starlette underneath, so the
streamed search (:mod:`._sse`), the body guard (:mod:`._asgi`) and the mounted MCP app
are plain ASGI, with no framework code on the hot path beyond routing and validation.

Nothing here is imported by ``import unifind`` or ``unifind --help``: FastAPI loads only
when a server is built, and a missing extra names ``pip install "unifind[http]"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unifind._deps import require

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["app_factory", "create_app"]


def create_app(settings: Any = None, **kwargs: Any) -> FastAPI:
    """The ASGI app (see :func:`unifind.http_api._app.create_app`)."""
    require("fastapi", "http")
    require("python_multipart", "http")  # python-multipart, for uploads
    from unifind.http_api._app import create_app as build

    return build(settings, **kwargs)


def app_factory() -> FastAPI:
    """One worker's app for ``uvicorn --factory unifind.http_api:app_factory``."""
    require("fastapi", "http")
    from unifind.http_api._app import app_factory as build

    return build()
