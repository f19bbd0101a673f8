"""Issue #21 scope 6: a SearXNG-compatible ``GET /search``, over real loopback HTTP.

SearXNG's JSON answer (searxng/searxng ``searx/webapp.py``, ``output_format == 'json'``):
``query``, ``number_of_results``, ``results``, ``answers``, ``corrections``, ``infoboxes``,
``suggestions``, ``unresponsive_engines`` (pairs ``[engine, error message]``); a result
(``searx/result_types``): ``url``, ``title``, ``content``, ``engine``, ``engines``,
``positions``, ``score``, ``category``, ``publishedDate``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from tests.http.conftest import LiveServer, bearer

from unifind import Searcher
from unifind.http_api import create_app
from unifind.store.keys import KeyStore

TOP = {"query", "number_of_results", "results", "answers", "corrections", "infoboxes",
       "suggestions", "unresponsive_engines"}  # fmt: skip
RESULT = {"url": str, "title": str, "content": str, "engine": str, "engines": list,
          "positions": list, "score": float, "category": str}  # fmt: skip


@pytest.fixture
def live(searcher: Searcher, keys: KeyStore) -> Iterator[str]:
    with LiveServer(create_app(searcher=searcher, keys=keys, mcp=False)) as server:
        yield server.url


def _get(url: str, key: str | None = None, **params: Any) -> httpx.Response:
    headers = bearer(key) if key else {}
    return httpx.get(f"{url}/search", params=params, headers=headers, timeout=60)


def _error(r: httpx.Response, status: int, field: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    err: dict[str, Any] = r.json()["error"]
    assert err["field"] == field
    return err


def test_kb_results_in_searxng_shape(live: str, key_a: str) -> None:
    r = _get(live, key_a, q="refunds paid", format="json", engines="kb")
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == TOP
    assert body["query"] == "refunds paid"
    assert body["number_of_results"] == len(body["results"]) == 2
    assert body["answers"] == body["corrections"] == body["infoboxes"] == []
    assert body["suggestions"] == [] and body["unresponsive_engines"] == []
    for pos, res in enumerate(body["results"], start=1):
        assert set(RESULT) <= set(res)
        for name, kind in RESULT.items():
            assert isinstance(res[name], kind), (name, res)
        assert res["positions"] == [pos]
        assert res["engine"] == "docs" and res["engines"] == ["docs"]
        assert res["publishedDate"] is None
    top = body["results"][0]
    assert top["title"] == "Refunds" and top["content"] == "Refunds are paid within 30 days."
    # A KB hit's url is its reference on this server, readable with the same key.
    assert top["url"].startswith(f"{live}/v1/requests/")
    ref = httpx.get(top["url"], headers=bearer(key_a), timeout=30)
    assert ref.status_code == 200, ref.text
    assert ref.json()["document_id"] == "refunds"


def test_failing_backends_are_unresponsive_engines(live: str, key_a: str) -> None:
    # general = kb + web; the web is unreachable in tests: it must say so, kb still answers.
    body = _get(live, key_a, q="shipping", format="json").json()
    assert [res["title"] for res in body["results"]][:1] == ["Shipping"]
    assert body["unresponsive_engines"], body
    for name, why in body["unresponsive_engines"]:
        assert isinstance(name, str) and name
        assert why.startswith(("degraded", "disabled", "skipped")), why


def test_categories_map_onto_legs(live: str, key_a: str) -> None:
    news = _get(live, key_a, q="shipping", format="json", categories="news").json()
    assert news["results"] == [] and news["unresponsive_engines"]  # the web only, unreachable
    err = _error(_get(live, key_a, q="x", format="json", categories="images"), 400, "categories")
    assert err["valid"] == ["general", "news"]


def test_unknown_engine_names_the_valid_ones(live: str, key_a: str) -> None:
    err = _error(_get(live, key_a, q="x", format="json", engines="kb,bing"), 400, "engines")
    assert "'bing'" in err["message"]
    assert {"kb", "web", "db", "docs", "duckduckgo"} <= set(err["valid"])


def test_another_tenants_collection_is_no_engine(live: str, key_a: str, key_b: str) -> None:
    made = httpx.post(f"{live}/v1/collections", json={"name": "acme-notes"},
                      headers=bearer(key_a), timeout=30)  # fmt: skip
    assert made.status_code == 201
    own = _get(live, key_a, q="x", format="json", engines="acme-notes")
    assert own.status_code == 200, own.text
    err = _error(_get(live, key_b, q="x", format="json", engines="acme-notes"), 400, "engines")
    assert "acme-notes" not in err["valid"]


@pytest.mark.parametrize(
    ("params", "field", "valid"),
    [
        ({"q": "x"}, "format", ["json"]),
        ({"q": "x", "format": "html"}, "format", ["json"]),
        ({"format": "json"}, "q", None),
        ({"q": "x", "format": "json", "time_range": "decade"}, "time_range",
         ["day", "week", "month", "year"]),
        ({"q": "x", "format": "json", "pageno": "0"}, "pageno", None),
        ({"q": "x", "format": "json", "pageno": "11"}, "pageno", None),
        ({"q": "x", "format": "json", "pageno": "two"}, "pageno", None),
        ({"q": "x", "format": "json", "safesearch": "9"}, "safesearch", ["0", "1", "2"]),
        ({"q": "x", "format": "json", "language": "english!"}, "language", None),
    ],
)  # fmt: skip
def test_bad_parameters_are_400_naming_what_is_valid(
    live: str, key_a: str, params: dict[str, str], field: str, valid: list[str] | None
) -> None:
    err = _error(_get(live, key_a, **params), 400, field)
    assert err["valid"] == valid


def test_pages_of_ten(searcher: Searcher, live: str, key_a: str) -> None:
    searcher.kb.create("many", embedder="hash:64")
    for i in range(12):
        searcher.kb.ingest_text("many", f"Lighthouse keeper log entry {i}.", document_id=f"d{i}")
    one = _get(live, key_a, q="lighthouse keeper", format="json", engines="many").json()
    two = _get(live, key_a, q="lighthouse keeper", format="json", engines="many", pageno="2")
    assert two.status_code == 200, two.text
    first, second = one["results"], two.json()["results"]
    assert len(first) == 10 and len(second) == 2
    assert [r["positions"] for r in second] == [[11], [12]]
    assert not {r["content"] for r in first} & {r["content"] for r in second}


def test_key_in_a_query_parameter(live: str, key_a: str) -> None:
    for name in ("token", "api_key"):
        r = _get(live, None, q="refunds", format="json", engines="kb", **{name: key_a})
        assert r.status_code == 200, r.text
    assert _get(live, None, q="refunds", format="json").status_code == 401
    assert _get(live, None, q="refunds", format="json", token="uf_nope").status_code == 401


def test_no_auth_on_loopback_and_unrecorded_urls(
    settings_of: Callable[..., Any],
) -> None:
    s = Searcher(settings_of(server={"auth": False}, records=False))
    s.kb.create("docs", embedder="hash:64")
    s.kb.ingest_text("docs", "Refunds are paid within 30 days.", document_id="refunds")
    try:
        with LiveServer(create_app(searcher=s, mcp=False)) as server:
            r = _get(server.url, None, q="refunds", format="json", engines="kb")
        assert r.status_code == 200, r.text
        assert r.json()["results"][0]["url"] == "unifind://kb/docs/refunds"
    finally:
        s.close()


def test_only_get_is_served(live: str, key_a: str) -> None:
    r = httpx.post(f"{live}/search", data={"q": "refunds", "format": "json"},
                   headers=bearer(key_a), timeout=30)  # fmt: skip
    assert r.status_code == 405
