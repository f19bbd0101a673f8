"""Every route of the HTTP API, in process (httpx.ASGITransport): what it answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from unifind import Searcher
from unifind.http_api import create_app
from unifind.store.keys import KeyStore


async def test_search_returns_the_result_contract_with_citation_ids(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post("/v1/search", json={"query": "refunds shipping", "request_id": "t-1"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["request_id"] == "t-1" and out["status"] == "ok" and out["mode"] == "all"
    ids = [i["citation_id"] for i in out["items"]]
    assert ids == [f"ref_{n:03d}" for n in range(1, len(ids) + 1)] and len(ids) == 2
    assert {(r["stage"], r["status"]) for r in out["reports"]} == {
        ("lexical", "ok"),
        ("vector", "ok"),
    }
    assert "references" not in out  # None fields are left out
    assert r.headers["x-unifind-worker"].isdigit()


async def test_ids_continue_across_searches_of_one_request(client: httpx.AsyncClient) -> None:
    first = (await client.post("/v1/search", json={"query": "refunds", "request_id": "t"})).json()
    second = (await client.post("/v1/search", json={"query": "shipping", "request_id": "t"})).json()
    ids = {i["document_id"]: i["citation_id"] for i in first["items"]}
    for item in second["items"]:
        assert ids.setdefault(item["document_id"], item["citation_id"]) == item["citation_id"]
    assert len(set(ids.values())) == len(ids)


async def test_references_on_request(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/search", json={"query": "refunds", "references": True})
    refs = r.json()["references"]
    assert refs["xml"].startswith("<references") and "ref_001" in refs["xml"]
    assert refs["prompt"]


#: A body for every JSON POST route (#18: /v1/ask refused what /v1/search took).
CURL_BODIES = {
    "/v1/search": b'{"query": "refunds"}',
    "/v1/ask": b'{"message": "when are refunds paid?", "sources": {"kb": {}}}',
    "/v1/fetch": b'{"url": "http://127.0.0.1:9/private"}',
    "/v1/collections": b'{"name": "curl-notes", "embedder": "hash:64"}',
    "/v1/collections/curl-notes/documents": b'[{"document_id": "d", "text": "refunds"}]',
    "/v1/collections/curl-notes/crawl": b'{"url": "http://127.0.0.1:9/", "max_pages": 1}',
}


async def test_curl_form_content_type_is_read_as_json(client: httpx.AsyncClient, app: Any) -> None:
    # `curl -d '{...}'` sends exactly this content type (the README's examples do that).
    paths = app.openapi()["paths"]
    posted = {p for p, ops in paths.items() if "post" in ops}
    templated = {p.replace("/curl-notes/", "/{name}/") for p in CURL_BODIES}
    assert posted == {*templated, "/v1/collections/{name}/files"}  # a new route needs a body here
    for path, body in CURL_BODIES.items():
        r = await client.post(
            path, content=body, headers={"content-type": "application/x-www-form-urlencoded"}
        )
        assert r.status_code in (200, 201), (path, r.text)
        if path == "/v1/search":
            assert r.json()["items"][0]["document_id"] == "refunds"
        if path == "/v1/ask":
            assert "30 days" in r.json()["text"]


async def test_web_domain_options_take_tavily_and_exa_names(client: httpx.AsyncClient) -> None:
    web = {"include_domains": "a.org", "exclude_domains": ["b.org"], "provider": "nope"}
    r = await client.post("/v1/search", json={"query": "q", "sources": {"web": web}})
    assert r.status_code == 400 and r.json()["error"]["field"] == "sources.web.provider"
    clash = {"sites": ["a.org"], "include_domains": "b.org"}
    r = await client.post("/v1/search", json={"query": "q", "sources": {"web": clash}})
    err = r.json()["error"]
    assert r.status_code == 422 and err["field"] == "sources.web", r.text
    assert "'sites' and 'include_domains'" in err["message"]
    assert "give one of them" in err["message"]


async def test_fetch_reports_a_refused_target_as_data(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/fetch", json={"url": "http://127.0.0.1:9/private"})
    assert r.status_code == 200
    out = r.json()
    assert out["status"] == "unavailable" and out["report"]["status"] == "degraded"
    assert out["text"] == ""


async def test_sources_and_models(client: httpx.AsyncClient) -> None:
    src = (await client.get("/v1/sources")).json()
    assert [c["name"] for c in src["collections"]] == ["docs"]
    assert {p["kind"] for p in src["providers"]} == {"search", "fetch"}
    assert (await client.get("/v1/models")).json() == []  # no database configured


async def test_collection_lifecycle(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/collections", json={"name": "notes", "embedder": "hash:64"})
    assert r.status_code == 201 and r.json()["owner"] == "acme"
    docs = [
        {"document_id": "guides/a b.md", "text": "alpha bravo charlie", "title": "A"},
        {"document_id": "n2", "text": "delta echo"},
        {"document_id": "blank", "text": "   "},
    ]
    out = (await client.post("/v1/collections/notes/documents", json=docs)).json()
    assert (out["added"], out["failed"]) == (2, 1)
    files = [
        ("files", ("one.md", b"# One\nfoxtrot golf", "text/markdown")),
        ("files", ("two.txt", b"hotel india", "text/plain")),
    ]
    up = (await client.post("/v1/collections/notes/files", files=files)).json()
    assert sorted(o["document_id"] for o in up["outcomes"]) == ["upload:one.md", "upload:two.txt"]
    assert up["added"] == 2
    listed = (await client.get("/v1/collections/notes/documents")).json()
    assert len(listed) == 4
    page = (await client.get("/v1/collections/notes/documents?limit=2&offset=3")).json()
    assert len(page) == 1
    info = (await client.get("/v1/collections/notes")).json()
    assert (info["documents"], info["name"]) == (4, "notes")
    # A document id with a slash and a space travels in the path.
    r = await client.delete("/v1/collections/notes/documents/guides/a%20b.md")
    assert r.status_code == 200 and r.json() == {"deleted": "guides/a b.md"}
    r = await client.delete("/v1/collections/notes/documents/guides/a%20b.md")
    assert r.status_code == 404 and r.json()["error"]["field"] == "doc_id"
    hits = (await client.post("/v1/search", json={"query": "foxtrot", "sources": {"kb": {
        "collections": "notes"}}})).json()  # fmt: skip
    assert hits["items"][0]["document_id"] == "upload:one.md"
    assert (await client.delete("/v1/collections/notes")).json() == {"deleted": "notes"}
    assert (await client.get("/v1/collections/notes")).status_code == 404


async def test_records_by_request_reference_and_chat(client: httpx.AsyncClient) -> None:
    body = {"query": "refunds", "request_id": "rec-1", "chat_id": "chat-1"}
    cited = (await client.post("/v1/search", json=body)).json()["items"][0]
    [record] = (await client.get("/v1/requests/rec-1/searches")).json()
    assert record["query"] == "refunds" and record["tenant"] == "acme"
    ref = (await client.get("/v1/requests/rec-1/references/1")).json()
    assert (ref["citation_id"], ref["document_id"]) == (cited["citation_id"], "refunds")
    missing = await client.get("/v1/requests/rec-1/references/99")
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "index"
    assert (await client.delete("/v1/chats/chat-1/searches")).json() == {"deleted": 1}
    assert (await client.get("/v1/requests/rec-1/searches")).json() == []


async def test_health_needs_no_key_and_names_the_worker(app: Any) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t"
    ) as anon:
        r = await anon.get("/health")
        assert r.status_code == 200 and r.json()["pid"] == int(r.headers["x-unifind-worker"])
        assert (await anon.get("/openapi.json")).status_code == 200
        assert (await anon.get("/ready")).status_code == 401


async def _ready(settings: Any) -> httpx.Response:
    searcher = Searcher(settings)
    app = create_app(searcher=searcher, mcp=False)
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"
        ) as c:
            return await c.get("/ready")
    finally:
        await searcher.aclose()


async def test_ready_names_a_down_redis_and_stays_ready_per_worker(
    settings_of: Callable[..., Any],
) -> None:
    pytest.importorskip("redis")
    from unifind._redis import close_links
    from unifind.testing.servers import free_port

    url = f"redis://:pw-redis-secret@127.0.0.1:{free_port()}/0"
    try:
        r = await _ready(settings_of(server={"auth": False}, redis_url=url))
    finally:
        close_links()
    # Redis is shared state, not a dependency: every worker still answers on its own.
    assert r.status_code == 200 and r.json()["ready"] is True, r.text
    assert r.json()["status"] == "degraded"
    redis = {c["name"]: c for c in r.json()["checks"]}["redis"]
    assert (redis["ok"], redis["status"], redis["reason"]) == (False, "degraded", "unreachable")
    assert "own citation numbers" in redis["detail"] and "pw-redis-secret" not in r.text
    assert redis["target"].startswith("redis://:***@127.0.0.1:")


async def test_ready_is_503_naming_a_kb_store_that_is_down(
    settings_of: Callable[..., Any],
) -> None:
    pytest.importorskip("psycopg")
    from unifind.testing.servers import free_port

    store = f"postgresql://postgres:pw-pg-secret@127.0.0.1:{free_port()}/kb"
    settings = settings_of(server={"auth": False})
    settings.kb = settings.kb.model_copy(update={"store": store})
    r = await _ready(settings)
    assert r.status_code == 503 and r.json()["status"] == "unavailable", r.text
    kb = {c["name"]: c for c in r.json()["checks"]}["kb"]
    assert (kb["ok"], kb["status"], kb["reason"]) == (False, "unavailable", "unreachable")
    assert "postgresql://postgres:***@127.0.0.1" in kb["detail"] and "pw-pg-secret" not in r.text


async def test_ready_is_503_with_the_failing_check(
    settings_of: Callable[..., Any], auth: Callable[[str], dict[str, str]]
) -> None:
    settings = settings_of(records_url="sqlite:////nonexistent-dir/records.sqlite")
    searcher = Searcher(settings)
    with KeyStore.from_settings(settings_of()) as keys:
        key = keys.create("acme", "ana")[1]
        app = create_app(searcher=searcher, keys=keys, mcp=False)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://t", headers=auth(key)
        ) as c:
            r = await c.get("/ready")
    searcher.close()
    assert r.status_code == 503
    checks = {c["name"]: c for c in r.json()["checks"]}
    assert checks["kb"]["ok"] is True
    assert checks["records"]["ok"] is False and checks["records"]["detail"]
    assert checks["records"]["status"] == "unavailable" and r.json()["status"] == "unavailable"


async def test_upload_errors_name_the_client_file_not_a_server_path(
    client: httpx.AsyncClient,
) -> None:
    """A failed upload's message names the file as sent, never the server's temp folder."""
    r = await client.post("/v1/collections", json={"name": "ups", "embedder": "hash:64"})
    assert r.status_code == 201
    files = [
        ("files", ("c.exe", b"MZ\x00\x01", "application/octet-stream")),
        ("files", ("broken.pdf", b"%PDF-1.4 not really", "application/pdf")),
        ("files", ("ok.md", b"# Fine\nkilo lima", "text/markdown")),
    ]
    up = (await client.post("/v1/collections/ups/files", files=files)).json()
    by_name = {o["name"]: o for o in up["outcomes"]}
    assert set(by_name) == {"c.exe", "broken.pdf", "ok.md"}
    failed = [o for o in up["outcomes"] if o["status"] != "added"]
    assert len(failed) == 2 and all(o["error"] for o in failed)
    body = r.text + str(up)
    assert "unifind-upload-" not in body and "/tmp" not in body, up
    assert any("c.exe" in o["error"] or "broken.pdf" in o["error"] for o in failed)
