"""MCP fixtures: a seeded home, a loopback "web" (SearXNG + pages), real servers and clients.

Servers are real: ``python -m unifind.mcp_server`` spawned over stdio, and the Streamable
HTTP app under uvicorn on 127.0.0.1. Clients are the official SDK's ``mcp.Client``.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason='the MCP server needs its extra: pip install "unifind[mcp]"')

import uvicorn
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from starlette.applications import Starlette
from starlette.routing import Route

from unifind import KnowledgeBase, Searcher, load_settings
from unifind.mcp_server import streamable_http_app
from unifind.ops import Operations
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Principal

ACME = Principal(tenant="acme", user="ana", roles=("support",))
GLOBEX = Principal(tenant="globex", user="gus")
KEYS = {"Bearer key-acme": ACME, "Bearer key-globex": GLOBEX}

# Shaped like SearXNG's /search?format=json (docs.searxng.org/dev/search_api.html).
SEARX = {
    "query": "refunds",
    "results": [
        {"url": "https://example.org/refunds", "title": "Refund law", "content": "Consumers..."},
        {"url": "https://example.org/returns", "title": "Returns", "content": "Returning..."},
    ],
}
#: A page long enough to need several fetch pages.
ARTICLE_WORDS = " ".join(f"word{i:04d}" for i in range(1500))
ARTICLE = (
    "<!DOCTYPE html><html><head><title>Refund handbook</title></head><body><article>"
    f"<h1>Refund handbook</h1><p>{ARTICLE_WORDS}</p></article></body></html>"
)


@pytest.fixture
def web() -> Iterator[FakeWebServer]:
    with FakeWebServer() as server:
        server.route("GET", "/search", Respond(json=SEARX))
        server.route("GET", "/article", Respond(body=ARTICLE, content_type="text/html"))
        yield server


@pytest.fixture
def config(
    tmp_path: Path, web: FakeWebServer, monkeypatch: pytest.MonkeyPatch, unifind_home: Path
) -> Path:
    """A config whose web leg is the loopback SearXNG, fetching loopback pages allowed."""
    path = tmp_path / "unifind.yaml"
    web_cfg: dict[str, Any] = {"search_provider": "searxng", "searxng": {"base_url": web.url}}
    web_cfg["allow_private"] = True
    path.write_text(yaml.safe_dump({"web": web_cfg}), encoding="utf-8")
    monkeypatch.setenv("UNIFIND_CONFIG", str(path))
    return path


@pytest.fixture
def seeded(config: Path, unifind_home: Path) -> Path:
    """The home with a shared ``docs`` (hash:64 vectors), a lexical ``faq``, and one
    collection per tenant."""
    kb = KnowledgeBase.open(load_settings())
    try:
        kb.create("docs", embedder="hash:64", description="Company handbook")
        kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="refunds",
                       title="Refunds")  # fmt: skip
        kb.ingest_text("docs", "Shipping takes five days.", document_id="shipping",
                       title="Shipping")  # fmt: skip
        kb.create("faq", embedder=None)
        kb.ingest_text("faq", "Refunds need a receipt.", document_id="receipt", title="Receipts")
        for who, name in ((ACME, "acme-notes"), (GLOBEX, "globex-notes")):
            kb.create(name, embedder=None, principal=who)
            kb.ingest_text(name, f"Refunds at {who.tenant} are special.", document_id="policy",
                           title=f"{who.tenant} refunds", principal=who)  # fmt: skip
    finally:
        kb.close()
    return unifind_home


def stdio_params(home: Path, config: Path, *command: str) -> StdioServerParameters:
    """Spawn ``command`` (default ``python -m unifind.mcp_server``) on ``home``."""
    cmd = list(command) or [sys.executable, "-m", "unifind.mcp_server"]
    env = {"UNIFIND_HOME": str(home), "UNIFIND_CONFIG": str(config), "OMP_NUM_THREADS": "1"}
    return StdioServerParameters(command=cmd[0], args=cmd[1:], env=env)


@pytest.fixture
def stdio(seeded: Path, config: Path) -> StdioServerParameters:
    return stdio_params(seeded, config)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def resolve(header: str | None) -> Principal | None:
    return KEYS.get(header or "")


def mcp_app(searcher: Searcher) -> Starlette:
    """The endpoint mounted as the factory's docstring says, closing ``searcher`` at the end
    (in the server's own event loop, where its web pool lives)."""
    mcp = streamable_http_app(Operations(searcher), resolve)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with mcp.lifespan():
            yield
        await searcher.aclose()

    return Starlette(routes=[Route("/mcp", endpoint=mcp.app)], lifespan=lifespan)


@contextlib.contextmanager
def serve(app: Any) -> Iterator[str]:
    """Run ``app`` under uvicorn on a free loopback port in a thread; yields its base URL."""
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def http_url(seeded: Path) -> Iterator[str]:
    """The MCP endpoint under uvicorn on loopback, keyed by :data:`KEYS`."""
    with serve(mcp_app(Searcher(load_settings()))) as base:
        yield base + "/mcp"


@contextlib.asynccontextmanager
async def http_client(url: str, key: str | None, **options: Any) -> AsyncIterator[Client]:
    """An SDK client session over Streamable HTTP sending ``Authorization: <key>``."""
    headers = {"Authorization": key} if key else {}
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), **options) as client,
    ):
        yield client
