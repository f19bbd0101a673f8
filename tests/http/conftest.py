"""Fixtures for the HTTP API: a searcher with data, two tenants' keys, the app, a real server."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from unifind import Searcher, load_settings
from unifind.http_api import create_app
from unifind.store.keys import KeyStore


class LiveServer:
    """uvicorn on 127.0.0.1 (a free port) in a thread with its own event loop."""

    def __init__(self, app: Any) -> None:
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, lifespan="on", log_level="warning", ws="none"
        )
        self.server = uvicorn.Server(config)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self.server.serve())
        self.loop.close()

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            assert self.thread.is_alive(), "uvicorn stopped during start-up"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)

    @property
    def url(self) -> str:
        sock = self.server.servers[0].sockets[0]
        return f"http://127.0.0.1:{sock.getsockname()[1]}"

    def tasks(self) -> int:
        """How many asyncio tasks the server loop holds (the counting one excluded)."""

        async def count() -> int:
            return len(asyncio.all_tasks()) - 1

        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(count(), self.loop).result(5)


@pytest.fixture
def settings_of(unifind_home: Path) -> Callable[..., Any]:
    """Settings under the test's UNIFIND_HOME with the hash embedder and small heartbeats."""

    def make(**overrides: Any) -> Any:
        server = {"heartbeat_s": 0.2, **overrides.pop("server", {})}
        return load_settings(kb={"embedder": "hash:64"}, server=server, **overrides)

    return make


@pytest.fixture
def searcher(settings_of: Callable[..., Any]) -> Iterator[Searcher]:
    s = Searcher(settings_of())
    s.kb.create("docs", embedder="hash:64")  # shared: no tenant owns it
    s.kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="refunds",
                     title="Refunds")  # fmt: skip
    s.kb.ingest_text("docs", "Shipping takes five days.", document_id="shipping", title="Shipping")
    yield s
    s.close()


@pytest.fixture
def keys(searcher: Searcher) -> Iterator[KeyStore]:
    store = KeyStore.from_settings(searcher.settings)
    yield store
    store.close()


@pytest.fixture
def key_a(keys: KeyStore) -> str:
    return keys.create("acme", "ana", ["support"])[1]


@pytest.fixture
def key_b(keys: KeyStore) -> str:
    return keys.create("globex", "gus")[1]


@pytest.fixture
def app(searcher: Searcher, keys: KeyStore) -> Any:
    return create_app(searcher=searcher, keys=keys, mcp=False)


@pytest.fixture
async def client(app: Any, key_a: str) -> AsyncIterator[httpx.AsyncClient]:
    """In-process client (no socket) acting as tenant A."""
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {key_a}"}
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1", headers=headers
    ) as c:
        yield c


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture
def auth() -> Callable[[str], dict[str, str]]:
    return bearer


def _debug_tasks(server: LiveServer) -> list[str]:
    async def names() -> list[str]:
        return [repr(t) for t in asyncio.all_tasks()]

    assert server.loop is not None
    return asyncio.run_coroutine_threadsafe(names(), server.loop).result(5)
