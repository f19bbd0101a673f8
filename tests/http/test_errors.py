"""Bad input over HTTP: the status, and one JSON error shape naming the field and valid values."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from unifind import Searcher
from unifind.http_api import create_app
from unifind.store.keys import KeyStore


def error(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field", "valid"}
    detail: dict[str, Any] = body["error"]
    return detail


async def test_unknown_collection_is_404_listing_the_visible_ones(
    client: httpx.AsyncClient,
) -> None:
    body = {"query": "x", "sources": {"kb": {"collections": ["nope"]}}}
    e = error(await client.post("/v1/search", json=body), 404)
    assert (e["code"], e["field"], e["valid"]) == ("not_found", "sources.kb.collections", ["docs"])
    e = error(await client.get("/v1/collections/nope/documents"), 404)
    assert (e["field"], e["valid"]) == ("name", ["docs"])


async def test_schema_errors_are_422_naming_the_field_and_valid_values(
    client: httpx.AsyncClient,
) -> None:
    e = error(await client.post("/v1/search", json={"query": "x", "mode": "fast"}), 422)
    assert (e["code"], e["field"]) == ("invalid_request", "mode")
    assert e["valid"] == ["all", "any", "race"]
    typo = {"query": "x", "sources": {"kb": {"colections": 1}}}
    e = error(await client.post("/v1/search", json=typo), 422)
    assert e["field"] == "sources.kb.colections"
    assert e["valid"] == ["collections", "filters", "group", "mode", "rerank", "threshold"]
    e = error(await client.post("/v1/search", json={"query": "   "}), 422)
    assert e["field"] == "query" and "empty" in e["message"]
    as_json = {"content-type": "application/json"}
    e = error(await client.post("/v1/search", content=b"{not json", headers=as_json), 422)
    assert "JSON" in e["message"]
    docs = [{"text": "a", "x": 1}]
    e = error(await client.post("/v1/collections/docs/documents", json=docs), 422)
    assert e["field"] == "0.x" and "document_id" in e["valid"]
    e = error(await client.get("/v1/collections/docs/documents?limit=0"), 422)
    assert e["field"] == "limit"
    e = error(await client.get("/v1/requests/bad%20id/searches"), 422)
    assert e["field"] == "request_id"


async def test_bad_input_the_operation_refuses_is_400(client: httpx.AsyncClient) -> None:
    await client.post("/v1/collections", json={"name": "n1", "embedder": None})
    e = error(await client.post("/v1/collections/n1/documents", json=[{"title": "t"}]), 400)
    assert e["code"] == "invalid_input" and "exactly one of 'text' or 'url'" in e["message"]
    e = error(await client.post("/v1/collections", json={"name": "n1", "embedder": None}), 400)
    assert "already exists" in e["message"]


async def test_a_tenant_may_not_change_a_shared_collection(client: httpx.AsyncClient) -> None:
    e = error(await client.delete("/v1/collections/docs"), 403)
    assert e["code"] == "forbidden"


async def test_unknown_route_and_method_answer_in_the_same_shape(
    client: httpx.AsyncClient,
) -> None:
    assert error(await client.get("/v1/nothing"), 404)["code"] == "not_found"
    assert error(await client.put("/v1/search"), 405)["code"] == "method_not_allowed"


async def test_missing_wrong_and_revoked_keys_are_401_with_bearer_challenge(
    app: Any, keys: KeyStore, key_b: str
) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        for headers in (
            {},
            {"Authorization": "Basic dXNlcjpwYXNz"},
            {"Authorization": "Bearer not-a-key"},
            {"Authorization": "Bearer uf_000000000000_" + "a" * 43},
        ):
            r = await c.get("/v1/collections", headers=headers)
            assert error(r, 401)["code"] == "unauthorized"
            assert r.headers["www-authenticate"] == "Bearer"
        ok = await c.get("/v1/collections", headers={"Authorization": f"Bearer {key_b}"})
        assert ok.status_code == 200
        keys.revoke(key_b.split("_")[1])
        r = await c.get("/v1/collections", headers={"Authorization": f"Bearer {key_b}"})
        assert "revoked" in error(r, 401)["message"]


@pytest.fixture
async def small(searcher: Searcher, keys: KeyStore, key_a: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app that accepts 2 kB of JSON and 8 kB of uploads."""
    searcher.settings.server = searcher.settings.server.model_copy(
        update={"max_json_bytes": 2048, "max_body_bytes": 8192}
    )
    app = create_app(searcher=searcher, keys=keys, mcp=False)
    headers = {"Authorization": f"Bearer {key_a}"}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t", headers=headers) as c:
        yield c


async def test_bodies_over_the_limit_are_413_by_length_or_while_read(
    small: httpx.AsyncClient,
) -> None:
    big = b'{"query": "' + b"a" * 4000 + b'"}'
    e = error(await small.post("/v1/search", content=big), 413)
    assert e["code"] == "too_large" and "2,048" in e["message"]

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: caught while reading
        for _ in range(8):
            yield b" " * 512

    as_json = {"content-type": "application/json"}
    r = await small.post("/v1/search", content=chunks(), headers=as_json)
    assert "content-length" not in r.request.headers
    error(r, 413)
    # Uploads get the larger limit: 6 kB passes, 10 kB does not.
    ok = await small.post("/v1/collections/docs/files", files={"files": ("a.txt", b"x " * 3000)})
    assert ok.status_code == 403  # within the limit: reaches the route (docs is shared)
    big_file = {"files": ("a.txt", b"x" * 10_000)}
    e = error(await small.post("/v1/collections/docs/files", files=big_file), 413)
    assert "8,192" in e["message"]


async def test_stream_refuses_an_unknown_collection_before_it_starts(
    client: httpx.AsyncClient,
) -> None:
    body = {"query": "x", "sources": {"kb": {"collections": ["nope"]}}}
    e = error(await client.post("/v1/search?stream=true", json=body), 404)
    assert e["valid"] == ["docs"] and e["field"] == "sources.kb.collections"


async def test_stream_reports_bad_input_found_late_as_an_error_event(
    client: httpx.AsyncClient, searcher: Searcher
) -> None:
    searcher.kb.create("plain", embedder=None)  # lexical only: semantic mode can't run on it
    body = {"query": "x", "sources": {"kb": {"collections": ["plain"], "mode": "semantic"}}}
    r = await client.post("/v1/search?stream=true", json=body)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = [block.split("\n", 1) for block in r.text.strip().split("\n\n")]
    assert [e[0] for e in events] == ["event: plan", "event: error"]
    assert '"code": "invalid_input"' in events[1][1] and "semantic" in events[1][1]


def test_no_auth_is_refused_off_loopback(settings_of: Callable[..., Any]) -> None:
    from unifind import ConfigError
    from unifind.http_api._app import serve_settings

    with pytest.raises(ConfigError, match="loopback"):
        serve_settings(None, host="0.0.0.0", auth=False)
    assert serve_settings(None, host="127.0.0.1", auth=False).server.auth is False


async def test_without_auth_only_loopback_host_and_origin_are_answered(
    searcher: Searcher,
) -> None:
    searcher.settings.server = searcher.settings.server.model_copy(update={"auth": False})
    app = create_app(searcher=searcher, mcp=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as c:
        assert (await c.get("/v1/collections")).status_code == 200  # no key needed
        r = await c.get("/v1/collections", headers={"origin": "https://evil.example"})
        assert error(r, 403)["message"].startswith("without auth")
    async with httpx.AsyncClient(transport=transport, base_url="http://rebound.example") as c:
        error(await c.get("/v1/collections"), 403)


@pytest.mark.parametrize(
    ("host", "origin", "ok"),
    [
        ("127.0.0.1@evil.com", None, False),
        ("localhost#x", None, False),
        ("127.0.0.1/x", None, False),
        ("127.0.0.1?x", None, False),
        ("evil.com@127.0.0.1", None, False),
        ("127.0.0.1:8765:1", None, False),
        ("::1", None, False),  # IPv6 only in brackets
        ("", None, False),
        ("127.0.0.1:8765", "http://127.0.0.1@evil.com", False),
        ("127.0.0.1:8765", "http://localhost/x", False),
        ("127.0.0.1:8765", "null", False),
        ("127.0.0.1", None, True),
        ("LOCALHOST:8765", None, True),
        ("[::1]:8765", "http://[::1]:8765", True),
        ("localhost", "https://127.0.0.1:3000", True),
    ],
)
async def test_without_auth_host_and_origin_are_parsed_strictly(
    searcher: Searcher, host: str, origin: str | None, ok: bool
) -> None:
    searcher.settings.server = searcher.settings.server.model_copy(update={"auth": False})
    transport = httpx.ASGITransport(app=create_app(searcher=searcher, mcp=False))
    headers = {"host": host, **({"origin": origin} if origin else {})}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        r = await c.get("/v1/collections", headers=headers)
    if ok:
        assert r.status_code == 200, r.text
    else:
        assert error(r, 403)["message"].startswith("without auth")


async def test_a_tenant_writing_to_a_shared_collection_is_refused_first(
    client: httpx.AsyncClient,
) -> None:
    e = error(await client.post("/v1/collections/docs/documents", json=[{"title": "t"}]), 403)
    assert "read-only" in e["message"]  # refused before the documents are even looked at
