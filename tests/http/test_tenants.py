"""Two tenants × every endpoint: nothing of one reaches the other (names, documents, hits,
records, the lists in 404s)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from unifind.store.keys import KeyStore

#: What each tenant owns, and words that appear only in its data.
TENANTS = {
    "A": {"collection": "acme-notes", "doc": "acme-plan", "words": "zebra quartz", "rid": "ra"},
    "B": {
        "collection": "globex-notes",
        "doc": "globex-plan",
        "words": "walrus cobalt",
        "rid": "rb",
    },
}


def requests(own: dict[str, str], other: dict[str, str]) -> list[tuple[str, str, Any]]:
    """Every endpoint, aimed at the other tenant's things where it takes a name."""
    col, doc, rid = other["collection"], other["doc"], other["rid"]
    search = {"query": other["words"], "request_id": f"{own['rid']}-probe"}
    return [
        ("GET", "/health", None),
        ("GET", "/ready", None),
        ("GET", "/openapi.json", None),
        # The web console (#22): static and public, the same for every caller.
        ("GET", "/", None),
        ("GET", "/console/console.js", None),
        ("POST", "/v1/search", search),
        ("POST", "/v1/search", {**search, "sources": {"kb": {"collections": [col]}}}),
        ("POST", "/v1/search?stream=true", search),
        ("POST", "/v1/search?stream=true", {**search, "sources": {"kb": {"collections": col}}}),
        # Both tenants hold "the secret ... plan": only the caller's own may be cited.
        ("POST", "/v1/ask", {"message": "the secret plan", "sources": {"kb": {}}}),
        (
            "POST",
            "/v1/ask",
            {"message": "the secret plan", "sources": {"kb": {"collections": col}}},
        ),
        ("POST", "/v1/ask?stream=true", {"message": "the secret plan", "sources": {"kb": {}}}),
        ("POST", "/v1/fetch", {"url": "http://127.0.0.1:9/"}),
        ("GET", "/v1/sources", None),
        ("GET", "/v1/models", None),
        ("GET", "/v1/collections", None),
        ("POST", "/v1/collections", {"name": col}),
        ("GET", f"/v1/collections/{col}", None),
        ("GET", f"/v1/collections/{col}/documents", None),
        ("POST", f"/v1/collections/{col}/documents", [{"document_id": "x", "text": "intruder"}]),
        ("POST", f"/v1/collections/{col}/files", "files"),
        ("DELETE", f"/v1/collections/{col}/documents/{doc}", None),
        ("DELETE", f"/v1/collections/{col}", None),
        ("GET", f"/v1/requests/{rid}/searches", None),
        ("GET", f"/v1/requests/{rid}/references/1", None),
        ("DELETE", f"/v1/chats/{rid}-chat/searches", None),
    ]


@pytest.fixture
async def clients(app: Any, key_a: str, key_b: str) -> AsyncIterator[dict[str, httpx.AsyncClient]]:
    transport = httpx.ASGITransport(app=app)
    out = {}
    for name, key in (("A", key_a), ("B", key_b)):
        out[name] = httpx.AsyncClient(
            transport=transport, base_url="http://t", headers={"Authorization": f"Bearer {key}"}
        )
    yield out
    for c in out.values():
        await c.aclose()


async def seed(c: httpx.AsyncClient, t: dict[str, str]) -> None:
    """A collection, a document, and a recorded search, all owned by the tenant."""
    r = await c.post("/v1/collections", json={"name": t["collection"], "embedder": "hash:64"})
    assert r.status_code == 201, r.text
    doc = {"document_id": t["doc"], "text": f"the secret {t['words']} plan", "title": t["doc"]}
    r = await c.post(f"/v1/collections/{t['collection']}/documents", json=[doc])
    assert r.json()["added"] == 1
    body = {"query": t["words"], "request_id": t["rid"], "chat_id": f"{t['rid']}-chat"}
    hits = (await c.post("/v1/search", json=body)).json()["items"]
    assert hits[0]["document_id"] == t["doc"]  # the owner finds it


def strings(body: Any) -> list[str]:
    """Every string in a request body (an answer may echo them: that is not a leak)."""
    if isinstance(body, str):
        return [body]
    if isinstance(body, dict):
        return [s for v in body.values() for s in strings(v)]
    if isinstance(body, list):
        return [s for v in body for s in strings(v)]
    return []


async def call(c: httpx.AsyncClient, method: str, path: str, body: Any) -> httpx.Response:
    if body == "files":
        return await c.post(path, files={"files": ("x.txt", b"intruder")})
    return await c.request(method, path, json=body)


@pytest.mark.parametrize(("me", "them"), [("A", "B"), ("B", "A")])
async def test_no_data_crosses_tenants(
    clients: dict[str, httpx.AsyncClient], me: str, them: str
) -> None:
    for name in ("A", "B"):
        await seed(clients[name], TENANTS[name])
    own, other = TENANTS[me], TENANTS[them]
    leaks = [other["collection"], other["doc"], *other["words"].split(), other["rid"] + '"']
    leaks.append("acme" if them == "A" else "globex")  # the tenant's own name
    for method, path, body in requests(own, other):
        r = await call(clients[me], method, path, body)
        assert r.status_code < 500, (method, path, r.text)
        text = r.text  # an answer may repeat what was asked for: that is not a leak
        for sent in sorted([*strings(body), *path.split("/")], key=len, reverse=True):
            text = text.replace(sent, "")
        for word in leaks:
            assert word not in text, (method, path, word, r.text)
    # The other tenant's data is intact after every attempt to change it.
    c = clients[them]
    assert (await c.get(f"/v1/collections/{other['collection']}")).json()["documents"] == 1
    assert len((await c.get(f"/v1/requests/{other['rid']}/searches")).json()) == 1


async def test_names_of_the_other_tenant_answer_404_listing_only_own(
    clients: dict[str, httpx.AsyncClient],
) -> None:
    for name in ("A", "B"):
        await seed(clients[name], TENANTS[name])
    r = await clients["B"].get("/v1/collections/acme-notes/documents")
    assert r.status_code == 404
    assert r.json()["error"]["valid"] == ["docs", "globex-notes"]
    body = {"query": "zebra", "sources": {"kb": {"collections": ["acme-notes"]}}}
    r = await clients["B"].post("/v1/search", json=body)
    assert r.status_code == 404 and r.json()["error"]["valid"] == ["docs", "globex-notes"]
    assert (await clients["B"].get("/v1/requests/ra/searches")).json() == []
    assert (await clients["B"].delete("/v1/chats/ra-chat/searches")).json() == {"deleted": 0}
    names = [c["name"] for c in (await clients["B"].get("/v1/collections")).json()]
    assert names == ["docs", "globex-notes"]


async def test_creating_a_name_another_tenant_holds_answers_as_for_a_free_one(
    clients: dict[str, httpx.AsyncClient],
) -> None:
    # #18: 400 "not available" for A's name and 201 for a free one told B what A holds.
    await seed(clients["A"], TENANTS["A"])
    answers = []
    for name in ("acme-notes", "never-used"):
        r = await clients["B"].post("/v1/collections", json={"name": name, "embedder": None})
        body = r.json()
        answers.append((r.status_code, sorted(body), body["owner"], body["documents"]))
        assert body["name"] == name
    assert answers[0] == answers[1] == (201, answers[0][1], "globex", 0)
    doc = [{"document_id": "b-plan", "text": "globex penguin plan"}]
    r = await clients["B"].post("/v1/collections/acme-notes/documents", json=doc)
    assert r.json()["added"] == 1
    body = {"query": "penguin", "sources": {"kb": {"collections": ["acme-notes"]}}}
    items = (await clients["B"].post("/v1/search", json=body)).json()["items"]
    assert [(i["collection"], i["document_id"]) for i in items] == [("acme-notes", "b-plan")]
    # A's collection of that name is A's alone, untouched; each lists only its own.
    r = await clients["A"].get("/v1/collections/acme-notes/documents")
    assert [d["document_id"] for d in r.json()] == ["acme-plan"]
    listed = {k: [c["name"] for c in (await c.get("/v1/collections")).json()]
              for k, c in clients.items()}  # fmt: skip
    assert listed == {"A": ["acme-notes", "docs"], "B": ["acme-notes", "docs", "never-used"]}
    assert (await clients["B"].delete("/v1/collections/acme-notes")).status_code == 200
    assert (await clients["A"].get("/v1/collections/acme-notes")).json()["documents"] == 1


@pytest.mark.parametrize("name", [".", "..", "-x", "a__b"])
async def test_unsafe_collection_names_are_refused_over_http(
    clients: dict[str, httpx.AsyncClient], name: str
) -> None:
    r = await clients["A"].post("/v1/collections", json={"name": name})
    err = r.json()["error"]
    assert r.status_code == 400 and err["field"] == "name", r.text
    assert "is not valid" in err["message"] and "pattern" in err["message"]


async def test_a_revoked_key_is_refused_everywhere(
    clients: dict[str, httpx.AsyncClient], keys: KeyStore, key_b: str
) -> None:
    await seed(clients["B"], TENANTS["B"])
    keys.revoke(key_b.split("_")[1])
    for method, path, body in requests(TENANTS["B"], TENANTS["B"]):
        r = await call(clients["B"], method, path, body)
        if path in ("/health", "/openapi.json", "/", "/console/console.js"):
            assert r.status_code == 200
        else:
            assert r.status_code == 401, (method, path)
            assert r.headers["www-authenticate"] == "Bearer"
