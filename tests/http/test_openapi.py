"""/openapi.json: OpenAPI 3.1, every route with its request and response schemas."""

from __future__ import annotations

from typing import Any

import httpx

#: (method, path) → (request body schema, 200/201 response schema); "" = none.
ROUTES = {
    ("post", "/v1/search"): ("SearchInput", "SearchOutput"),
    ("post", "/v1/ask"): ("AskInput", "AskOutput"),
    ("post", "/v1/fetch"): ("FetchInput", "FetchOutput"),
    ("get", "/v1/sources"): ("", "SourcesOutput"),
    ("get", "/v1/models"): ("", "[ModelOut]"),
    ("get", "/v1/collections"): ("", "[CollectionOut]"),
    ("post", "/v1/collections"): ("CollectionIn", "CollectionOut"),
    ("get", "/v1/collections/{name}"): ("", "CollectionOut"),
    ("delete", "/v1/collections/{name}"): ("", "DeletedName"),
    ("get", "/v1/collections/{name}/documents"): ("", "[DocumentOut]"),
    ("post", "/v1/collections/{name}/documents"): ("[TextDocumentIn]", "IngestOutput"),
    ("post", "/v1/collections/{name}/files"): ("multipart", "IngestOutput"),
    ("post", "/v1/collections/{name}/crawl"): ("CrawlIn", "IngestOutput"),
    ("delete", "/v1/collections/{name}/documents/{doc_id}"): ("", "DeletedName"),
    ("get", "/v1/requests/{request_id}/searches"): ("", "[SearchRecord]"),
    ("get", "/v1/requests/{request_id}/trace"): ("", "TraceNode"),
    ("get", "/v1/requests/{request_id}/references/{index}"): ("", "object"),
    ("delete", "/v1/chats/{chat_id}/searches"): ("", "Deleted"),
    ("get", "/ready"): ("", "Readiness"),
    ("get", "/health"): ("", "Health"),
}
PUBLIC = {"/health"}


def name(schema: dict[str, Any]) -> str:
    """``{"$ref": ".../SearchInput"}`` → ``SearchInput``; an array of X → ``[X]``."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if schema.get("type") == "array":
        return f"[{name(schema['items'])}]"
    return str(schema.get("type", "?"))


async def test_openapi_31_lists_every_route_with_its_schemas(app: Any) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        spec = (await c.get("/openapi.json")).json()  # no key needed
    assert spec["openapi"].startswith("3.1")
    ops = {(m, p): op for p, item in spec["paths"].items() for m, op in item.items()}
    assert set(ops) == set(ROUTES)
    schemas = spec["components"]["schemas"]
    for (method, path), (body, out) in ROUTES.items():
        op = ops[method, path]
        assert op["summary"], path
        ok = op["responses"].get("201") or op["responses"]["200"]
        assert name(ok["content"]["application/json"]["schema"]) == out, path
        content = op.get("requestBody", {}).get("content", {})
        if body == "multipart":
            form = name(content["multipart/form-data"]["schema"])
            files = schemas[form]["properties"]["files"]
            assert files["type"] == "array"
            assert files["items"]["contentMediaType"] == "application/octet-stream"
        elif body:
            assert name(content["application/json"]["schema"]) == body, path
        else:
            assert not content, path
        if path in PUBLIC:
            assert "security" not in op
            continue
        assert op["security"] == [{"HTTPBearer": []}], path
        for status in ("400", "401", "404", "413", "422"):
            assert name(op["responses"][status]["content"]["application/json"]["schema"]) == (
                "ErrorOut"
            ), (path, status)
    # The documented models carry their fields and descriptions from unifind.ops.
    assert {"query", "sources", "mode", "limit", "request_id"} <= set(
        schemas["SearchInput"]["properties"]
    )
    assert "Citation ids" in schemas["SearchInput"]["properties"]["request_id"]["description"]
    assert set(schemas["ErrorDetail"]["properties"]) == {"code", "message", "field", "valid"}
    for path in ("/v1/search", "/v1/ask"):
        assert "text/event-stream" in ops["post", path]["responses"]["200"]["content"], path
    assert {"message", "parts", "sources", "uses", "request_id"} <= set(
        schemas["AskInput"]["properties"]
    )
    assert "HTTPValidationError" not in schemas  # 422 uses the one error shape too
