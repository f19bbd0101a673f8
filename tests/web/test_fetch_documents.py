"""Fetch, second round: PDFs through the ingest extractor (encrypted, bombs, oversize),
several URLs in one call, paging, and HTTPS_PROXY/HTTP_PROXY with the SSRF check kept."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from unifind._http import Http, HttpPolicy
from unifind.errors import InputError
from unifind.testing.web_server import FakeWebServer, Respond, closed_port_url
from unifind.types import Reason, Status
from unifind.web.leg import WebLeg
from unifind.web.render import render_fetch

from ._documents import encrypt_pdf, make_pdf

PDF = "application/pdf"
_OPEN: list[WebLeg] = []


@pytest.fixture(autouse=True)
async def _close_legs() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        yield s


def leg(tmp_path: Path, max_bytes: int = 5_000_000, **web: object) -> WebLeg:
    http = Http(HttpPolicy(retries=0, timeout_s=5, max_bytes=max_bytes))
    w = WebLeg({"allow_private": True, **web}, home=tmp_path, env={}, http=http)
    _OPEN.append(w)
    return w


async def test_a_pdf_is_read_by_the_ingest_extractor(server: FakeWebServer, tmp_path: Path) -> None:
    server.route("GET", "/paper.pdf", Respond(body=make_pdf(["Hello PDF", "Line two"], "A Paper"),
                                               content_type=PDF))  # fmt: skip
    octets = "application/octet-stream"
    server.route("GET", "/raw", Respond(body=make_pdf(["Sniffed"]), content_type=octets))
    got = await leg(tmp_path).fetch(f"{server.url}/paper.pdf")
    assert got.ok, got.report
    assert "Hello PDF" in got.text and "Line two" in got.text
    assert (got.title, got.content_type) == ("A Paper", PDF)
    sniffed = await leg(tmp_path).fetch(f"{server.url}/raw")
    assert sniffed.ok and "Sniffed" in sniffed.text


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (encrypt_pdf(make_pdf(["secret"]), "pw"), "encrypted with a password"),
        (make_pdf(["x"], bomb_bytes=100_000_000), "LimitReachedError"),
        (b"%PDF-1.4\nnot really", "damaged or unreadable"),
    ],
    ids=["encrypted", "zip-bomb", "damaged"],
)
async def test_an_unreadable_pdf_is_a_clear_failure(
    server: FakeWebServer, tmp_path: Path, body: bytes, why: str
) -> None:
    server.route("GET", "/x.pdf", Respond(body=body, content_type=PDF))
    got = await leg(tmp_path).fetch(f"{server.url}/x.pdf")
    assert got.report.status is Status.DEGRADED and got.report.reason is Reason.BAD_RESPONSE
    assert why in (got.report.error or "") and got.text == ""


async def test_a_pdf_over_the_byte_cap_is_refused_not_half_read(
    server: FakeWebServer, tmp_path: Path
) -> None:
    server.route("GET", "/big.pdf", Respond(body=make_pdf(["x" * 50] * 40), content_type=PDF))
    got = await leg(tmp_path, max_bytes=1000).fetch(f"{server.url}/big.pdf")
    assert got.report.reason is Reason.BAD_RESPONSE
    assert "larger than the 1,000-byte cap" in (got.report.error or "")


async def test_a_gzip_bomb_and_a_10_mb_page_are_cut_at_the_cap(
    server: FakeWebServer, tmp_path: Path
) -> None:
    bomb = gzip.compress(b"<p>" + b"a " * 25_000_000 + b"</p>", 9)  # 50 MB inflated
    server.route("GET", "/bomb", Respond(body=bomb, content_type="text/html",
                                         headers={"Content-Encoding": "gzip"}))  # fmt: skip
    server.route("GET", "/huge", Respond(body="word " * 2_000_000, content_type="text/plain"))
    w = leg(tmp_path, max_bytes=1_000_000)
    for path in ("/bomb", "/huge"):
        got = await w.fetch(f"{server.url}{path}", max_chars=100)
        assert got.ok, got.report
        assert "body cut at 1,0" in (got.report.note or "")
        assert got.total_chars <= 1_000_000


async def test_paging_with_start_char_announces_the_next_start(
    server: FakeWebServer, tmp_path: Path
) -> None:
    text = " ".join(f"w{i:04d}" for i in range(1000))  # 5,999 characters
    server.route("GET", "/t", Respond(body=text, content_type="text/plain"))
    w, url = leg(tmp_path), f"{server.url}/t"
    first = await w.fetch(url, max_chars=2000)
    second = await w.fetch(url, max_chars=2000, start_char=first.next_start or 0)
    assert first.next_start is not None and second.start_char == first.next_start
    assert text.startswith(first.text) and text[second.start_char :].startswith(second.text)
    assert f"continue from start_char={first.next_start}" in render_fetch(first)
    last = await w.fetch(url, max_chars=100_000, start_char=5000)
    assert last.next_start is None and last.text == text[5000:].strip()
    with pytest.raises(InputError, match="start_char"):
        await w.fetch(url, start_char=-1)


async def test_several_urls_in_one_call_keep_their_order(
    server: FakeWebServer, tmp_path: Path
) -> None:
    for i in range(3):
        server.route("GET", f"/p{i}", Respond(body=f"page {i}", content_type="text/plain"))
    urls = [f"{server.url}/p{i}" for i in range(3)] + [f"{server.url}/missing"]
    got = await leg(tmp_path).fetch_many(urls, concurrency=2)
    assert [g.text for g in got[:3]] == ["page 0", "page 1", "page 2"]
    assert got[3].report.status is Status.DEGRADED
    with pytest.raises(InputError, match="http"):
        await leg(tmp_path).fetch_many([f"{server.url}/p0", "file:///etc/passwd"])


# -- proxies -------------------------------------------------------------------------------

PUBLIC = "http://93.184.216.34/doc"  # a public address: passes the SSRF check, never reached


async def test_the_environment_proxy_is_asked_for_a_checked_target(
    server: FakeWebServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", server.url)  # the fake server plays a forward proxy
    server.route("GET", "/doc", Respond(body="through the proxy", content_type="text/plain"))
    w = WebLeg({}, home=tmp_path, env={}, http=Http(HttpPolicy(retries=0)))
    _OPEN.append(w)
    got = await w.fetch(PUBLIC)
    assert got.ok and got.text == "through the proxy"
    assert server.requests[0].headers["host"] == "93.184.216.34"
    refused = await w.fetch("http://127.0.0.1:9/admin")  # private: refused before the proxy
    assert refused.report.reason is Reason.FORBIDDEN
    assert server.count() == 1


async def test_a_proxy_that_refuses_is_named_in_the_failure(
    server: FakeWebServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", closed_port_url())
    w = WebLeg({}, home=tmp_path, env={}, http=Http(HttpPolicy(retries=0)))
    _OPEN.append(w)
    got = await w.fetch(PUBLIC)
    assert got.report.reason is Reason.UNREACHABLE
    assert "through the proxy http://127.0.0.1:" in (got.report.error or "")
    monkeypatch.setenv("HTTP_PROXY", server.url)
    server.route("GET", "/doc", Respond(407, body="Proxy Authentication Required"))
    w2 = WebLeg({}, home=tmp_path, env={}, http=Http(HttpPolicy(retries=0)))
    _OPEN.append(w2)
    denied = await w2.fetch(PUBLIC)
    assert denied.report.reason is Reason.AUTH and "407" in (denied.report.error or "")
