"""The ASGI application: routes, error shape, auth, limits, and the MCP endpoint at /mcp."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from unifind import Settings, load_settings
from unifind.http_api import (
    _ask_routes,
    _console,
    _dify,
    _errors,
    _kb_routes,
    _routes,
    _searxng,
)
from unifind.http_api._asgi import Guard
from unifind.http_api._mcp import mount_mcp
from unifind.ops import Operations
from unifind.store.keys import KeyStore

log = logging.getLogger("unifind.http")

#: ``unifind serve`` hands its options to each worker's :func:`app_factory` here.
OPTIONS_ENV = "_UNIFIND_SERVE_OPTIONS"
LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass
class AppState:
    """What every route reads from ``request.app.state.unifind``."""

    ops: Operations
    keys: KeyStore | None
    """None when auth is off."""
    heartbeat_s: float


def create_app(
    settings: Settings | None = None,
    *,
    searcher: Any = None,
    keys: KeyStore | None = None,
    mcp: bool = True,
    console: bool = True,
) -> FastAPI:
    """The HTTP API over one Searcher (built from ``settings`` when not given).

    Auth follows ``settings.server.auth``; ``keys`` defaults to the configured key store.
    A searcher passed in is left open on shutdown (its owner closes it). ``console``: the
    web console's static pages at ``/`` and ``/console/`` (:mod:`._console`).
    """
    if searcher is None:
        from unifind import Searcher

        searcher = Searcher(settings)
        owned = True
    else:
        owned = False
    settings = searcher.settings
    server = settings.server
    own_keys = server.auth and keys is None
    if own_keys:
        keys = KeyStore.from_settings(settings)
    state = AppState(
        ops=Operations(searcher),
        keys=keys if server.auth else None,
        heartbeat_s=server.heartbeat_s,
    )
    mcp_lifespan: list[AbstractAsyncContextManager[None]] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for cm in mcp_lifespan:
                await stack.enter_async_context(cm)
            await asyncio.to_thread(_open_stores, searcher)
            yield
            if owned:
                await searcher.aclose()
            if own_keys and keys is not None:
                keys.close()

    app = FastAPI(
        title="unifind",
        version=_version(),
        summary="One search layer for AI agents: web, knowledge base and databases, cited.",
        lifespan=lifespan,
        redoc_url=None,
    )
    app.state.unifind = state
    _errors.install(app)
    app.include_router(_routes.public)
    app.include_router(_routes.root)
    app.include_router(_routes.router)
    app.include_router(_kb_routes.router)
    app.include_router(_ask_routes.router)
    app.include_router(_dify.router)  # Dify's External Knowledge API (POST /retrieval)
    app.include_router(_searxng.router)  # SearXNG-compatible GET /search
    if console:
        app.include_router(_console.router)  # the web console: static, public, CSP
    if mcp and (cm := mount_mcp(app, state, settings)) is not None:
        mcp_lifespan.append(cm)
    app.add_middleware(
        Guard,
        max_body_bytes=server.max_body_bytes,
        max_json_bytes=server.max_json_bytes,
        local_only=not server.auth,
    )
    return app


def _open_stores(searcher: Any) -> None:
    """Open the KB and records stores before the first request, not inside one.

    They open lazily on first use; two worker threads touching them at once would each
    open one. A store that can't open is left to /ready to report, not a failed start.
    """
    try:
        _ = searcher.kb, searcher.records
    except Exception as exc:  # reported by /ready with the detail; the API still starts
        log.warning("a store did not open at start: %s", exc)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("unifind")
    except PackageNotFoundError:
        return "0"


def app_factory() -> FastAPI:
    """The app of one worker of ``unifind serve --workers N`` (uvicorn imports this by name)."""
    opts = json.loads(os.environ.get(OPTIONS_ENV) or "{}")
    return create_app(serve_settings(opts.get("config"), **opts.get("server", {})))


def serve_settings(config: str | None, **server: Any) -> Settings:
    """Settings from ``config`` with the server options of the command line applied.

    Auth off is refused unless the host is loopback (checked again in each worker).
    """
    settings = load_settings(config)
    settings.server = settings.server.model_copy(update=server)
    if not settings.server.auth and settings.server.host not in LOOPBACK:
        from unifind import ConfigError

        raise ConfigError(
            f"refusing to run without auth on {settings.server.host}: "
            "--no-auth is allowed only on a loopback host (127.0.0.1, ::1, localhost)"
        )
    return settings
