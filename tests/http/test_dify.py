"""Issue #21 scope 5: Dify's External Knowledge API at ``POST /retrieval``, over real HTTP.

The expected shapes are Dify's documentation, written down here field by field:
https://docs.dify.ai/en/use-dify/knowledge/external-knowledge-api
(legacy page with the error codes:
https://docs.dify.ai/guides/knowledge-base/external-knowledge-api-documentation)

- request: ``knowledge_id`` (string), ``query`` (string), ``retrieval_setting``
  (``top_k`` int, ``score_threshold`` float 0-1), ``metadata_condition`` (optional:
  ``logical_operator``, ``conditions`` of ``name``, ``comparison_operator``, ``value``);
- response: HTTP 200 ``{"records": [{"content": str, "score": float 0-1, "title": str,
  "metadata": object (never null)}]}``, ``{"records": []}`` when nothing matches;
- errors: ``{"error_code": int, "error_msg": str}``: 1001 invalid Authorization header
  format, 1002 authorization failed (HTTP 403), 2001 the knowledge does not exist (404).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.http.conftest import LiveServer, bearer

from unifind import Searcher
from unifind.http_api import create_app
from unifind.store.keys import KeyStore

RECORD_FIELDS = {"content": str, "score": float, "title": str, "metadata": dict}


@pytest.fixture
def live(searcher: Searcher, keys: KeyStore) -> Iterator[str]:
    searcher.kb.ingest_text("docs", "Returns need the original receipt.", document_id="returns",
                            title="Returns", metadata={"lang": "en", "tag": "policy"})  # fmt: skip
    with LiveServer(create_app(searcher=searcher, keys=keys, mcp=False)) as server:
        yield server.url


def _ask(url: str, key: str | None, body: Any, **headers: str) -> httpx.Response:
    h = {**(bearer(key) if key else {}), **headers}
    return httpx.post(f"{url}/retrieval", json=body, headers=h, timeout=30)


def _body(**over: Any) -> dict[str, Any]:
    return {"knowledge_id": "docs", "query": "how long until refunds are paid",
            "retrieval_setting": {"top_k": 2, "score_threshold": 0.0}, **over}  # fmt: skip


def _assert_error(r: httpx.Response, status: int, code: int) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error_code", "error_msg"}
    assert body["error_code"] == code
    assert isinstance(body["error_msg"], str) and body["error_msg"]
    return str(body["error_msg"])


def test_records_have_dify_shape_field_by_field(live: str, key_a: str) -> None:
    r = _ask(live, key_a, _body())
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == {"records"}
    records = body["records"]
    assert 1 <= len(records) <= 2  # top_k
    for rec in records:
        assert set(rec) == set(RECORD_FIELDS)
        for name, kind in RECORD_FIELDS.items():
            assert isinstance(rec[name], kind), (name, rec)
        assert 0.0 <= rec["score"] <= 1.0
    top = records[0]
    assert top["title"] == "Refunds"
    assert top["content"] == "Refunds are paid within 30 days."
    assert top["metadata"]["document_id"] == "refunds"
    assert top["metadata"]["citation_id"] == "ref_001"
    assert [rec["score"] for rec in records] == sorted((x["score"] for x in records), reverse=True)


def test_top_k_and_score_threshold_are_honoured(live: str, key_a: str) -> None:
    one = _ask(live, key_a, _body(retrieval_setting={"top_k": 1, "score_threshold": 0.0}))
    assert len(one.json()["records"]) == 1
    every = _ask(live, key_a, _body(retrieval_setting={"top_k": 10, "score_threshold": 0.0}))
    scores = [rec["score"] for rec in every.json()["records"]]
    assert len(scores) == 3
    cut = sorted(scores)[1]  # keeps the best two (or more on a tie)
    high = _ask(live, key_a, _body(retrieval_setting={"top_k": 10, "score_threshold": cut}))
    kept = [rec["score"] for rec in high.json()["records"]]
    assert kept and all(s >= cut for s in kept) and len(kept) < 3


def test_metadata_condition_filters_documents(live: str, key_a: str) -> None:
    cond = {"logical_operator": "and", "conditions": [
        {"name": "tag", "comparison_operator": "is", "value": "policy"}]}  # fmt: skip
    r = _ask(live, key_a, _body(metadata_condition=cond))
    assert r.status_code == 200, r.text
    assert [rec["metadata"]["document_id"] for rec in r.json()["records"]] == ["returns"]
    cond["conditions"] = [{"name": "tag", "comparison_operator": "in", "value": ["none"]}]
    assert _ask(live, key_a, _body(metadata_condition=cond)).json() == {"records": []}


def test_unsupported_metadata_operator_names_the_supported_ones(live: str, key_a: str) -> None:
    cond = {"conditions": [{"name": "tag", "comparison_operator": "start with", "value": "p"}]}
    msg = _assert_error(_ask(live, key_a, _body(metadata_condition=cond)), 400, 400)
    assert "'start with'" in msg and "supported: is, in" in msg


def test_auth_errors_use_dify_codes(live: str, key_a: str) -> None:
    assert "Bearer" in _assert_error(_ask(live, None, _body()), 403, 1001)
    _assert_error(_ask(live, None, _body(), Authorization=f"Token {key_a}"), 403, 1001)
    _assert_error(_ask(live, "uf_not_a_key", _body()), 403, 1002)


def test_unknown_knowledge_id_is_2001(live: str, key_a: str) -> None:
    msg = _assert_error(_ask(live, key_a, _body(knowledge_id="nope")), 404, 2001)
    assert "nope" in msg


def test_another_tenants_collection_answers_like_a_missing_one(
    live: str, key_a: str, key_b: str
) -> None:
    made = httpx.post(f"{live}/v1/collections", json={"name": "acme-notes"},
                      headers=bearer(key_a), timeout=30)  # fmt: skip
    assert made.status_code == 201, made.text
    added = httpx.post(f"{live}/v1/collections/acme-notes/documents", timeout=60,
                       json=[{"document_id": "plan", "text": "The zebra quartz plan."}],
                       headers=bearer(key_a))  # fmt: skip
    assert added.status_code == 200, added.text
    own = _ask(live, key_a, _body(knowledge_id="acme-notes", query="zebra quartz"))
    assert own.status_code == 200 and own.json()["records"][0]["content"].startswith("The zebra")
    theirs = _ask(live, key_b, _body(knowledge_id="acme-notes", query="zebra quartz"))
    missing = _ask(live, key_b, _body(knowledge_id="acme-notez", query="zebra quartz"))
    _assert_error(theirs, 404, 2001)
    assert theirs.json()["error_msg"].replace("acme-notes", "X") == missing.json()[
        "error_msg"
    ].replace("acme-notez", "X")


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ({"top_k": 0, "score_threshold": 0.0}, "top_k is 0; valid: 1 to 100"),
        ({"top_k": 10_000, "score_threshold": 0.0}, "top_k is 10000; valid: 1 to 100"),
        ({"top_k": "5", "score_threshold": 0.0}, "top_k must be a number"),
        ({"top_k": 2.5, "score_threshold": 0.0}, "top_k must be a whole number"),
        ({"top_k": 2, "score_threshold": 1.5}, "score_threshold is 1.5; valid: 0 to 1"),
        (None, "retrieval_setting is required"),
    ],
)
def test_bad_retrieval_setting_is_a_400_naming_the_range(
    live: str, key_a: str, setting: Any, expected: str
) -> None:
    body = _body(retrieval_setting=setting)
    assert expected in _assert_error(_ask(live, key_a, body), 400, 400)


def test_missing_fields_and_non_json(live: str, key_a: str) -> None:
    assert "knowledge_id is required" in _assert_error(
        _ask(live, key_a, {"query": "x", "retrieval_setting": {"top_k": 1}}), 400, 400
    )
    assert "query is required" in _assert_error(_ask(live, key_a, _body(query="  ")), 400, 400)
    r = httpx.post(f"{live}/retrieval", content=b"{oops", headers=bearer(key_a), timeout=30)
    assert "not JSON" in _assert_error(r, 400, 400)
