"""The local fetcher: SSRF refusals (with the usual bypass tricks) and the normal path."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from unifind._http import Http, HttpPolicy
from unifind.errors import InputError
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Reason, Status
from unifind.web import ssrf
from unifind.web.leg import WebLeg

_OPEN: list[WebLeg] = []


@pytest.fixture(autouse=True)
async def _close_legs() -> AsyncIterator[None]:
    yield
    while _OPEN:
        await _OPEN.pop().aclose()


def track(w: WebLeg) -> WebLeg:
    _OPEN.append(w)
    return w


FAST = HttpPolicy(retries=0, timeout_s=2)
ARTICLE = """<!DOCTYPE html><html><head><title>Async Rust, explained</title>
<script>var tracking = "SHOULD NOT APPEAR";</script><style>body{color:red}</style></head>
<body><nav>Home | About</nav><article><h1>Async Rust, explained</h1>
<p>Futures in Rust are lazy: nothing happens until they are polled by an executor such as Tokio.
This paragraph is long enough for a readability extractor to treat it as the main content
of the page.</p>
<p>Second paragraph about wakers, pinning and the poll loop, again long enough to be kept
as content.</p>
</article><footer>© 2024</footer></body></html>"""


@pytest.fixture
def server() -> Iterator[FakeWebServer]:
    with FakeWebServer() as s:
        yield s


def leg(tmp_path: Path, **web: object) -> WebLeg:
    return track(WebLeg(web, home=tmp_path, env={}, http=Http(FAST)))


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:8080/admin",
        "http://2130706433/",  # decimal 127.0.0.1
        "http://0177.0.0.1/",  # octal
        "http://0x7f.1/",  # hex, short form
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",  # IPv4-mapped IPv6
        "http://169.254.169.254/latest/meta-data/",  # cloud metadata
        "http://[::ffff:a9fe:a9fe]/",  # metadata, mapped and written in hex
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://[fd00:ec2::254]/",  # AWS IMDS over IPv6 (unique local)
        "http://0.0.0.0/",
    ],
)
async def test_private_targets_are_refused_without_a_connection(tmp_path: Path, url: str) -> None:
    fetched = await leg(tmp_path).fetch(url)
    assert fetched.report.status is Status.DEGRADED
    assert fetched.report.reason is Reason.FORBIDDEN, fetched.report.error
    assert "allow_private" in (fetched.report.error or "")
    assert fetched.text == ""


@pytest.mark.parametrize(
    ("address", "blocked"),
    [
        ("8.8.8.8", False),
        ("2606:4700::1111", False),
        ("100.64.0.1", True),
        ("64:ff9b::7f00:1", True),
        ("2002:7f00:1::", True),
        ("224.0.0.1", True),
        ("::", True),
    ],
)
def test_address_classification(address: str, blocked: bool) -> None:
    assert (ssrf.why_blocked(ipaddress.ip_address(address)) is not None) is blocked


async def test_redirect_to_a_private_address_is_refused(
    server: FakeWebServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Let this test's server (127.0.0.1) stand in for a public site; all else keeps the rules.
    real = ssrf.why_blocked
    monkeypatch.setattr(
        ssrf, "why_blocked", lambda ip: None if str(ip) == "127.0.0.1" else real(ip)
    )
    for target in (
        "http://169.254.169.254/latest/meta-data/",
        "http://127.0.0.2/",
        "http://[::ffff:10.0.0.1]/",
    ):
        server.route("GET", "/go", Respond(302, headers={"Location": target}))
        fetched = await leg(tmp_path).fetch(server.url + "/go")
        assert fetched.report.reason is Reason.FORBIDDEN, (target, fetched.report)
    assert server.count() == 3  # only the first hop was ever connected to


async def test_pinned_connection_keeps_the_host_header(
    server: FakeWebServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ssrf, "why_blocked", lambda ip: None)
    server.route("GET", "/a", Respond(body=ARTICLE, content_type="text/html"))
    port = server.url.rsplit(":", 1)[1]
    fetched = await leg(tmp_path).fetch(f"http://localhost:{port}/a")
    assert fetched.ok
    assert server.requests[0].headers["host"] == f"localhost:{port}"


async def test_reads_an_article_as_text(server: FakeWebServer, tmp_path: Path) -> None:
    server.route("GET", "/start", Respond(301, headers={"Location": "/article"}))
    server.route("GET", "/article", Respond(body=ARTICLE, content_type="text/html; charset=utf-8"))
    fetched = await leg(tmp_path, allow_private=True).fetch(server.url + "/start")
    assert fetched.ok, fetched.report
    assert fetched.title == "Async Rust, explained"
    assert fetched.final_url == server.url + "/article"
    assert "Futures in Rust are lazy" in fetched.text
    assert "<p>" not in fetched.text and "SHOULD NOT APPEAR" not in fetched.text
    assert fetched.report.note == "zero-key default"


async def test_charset_from_header_and_from_meta(server: FakeWebServer, tmp_path: Path) -> None:
    latin = "<html><body><p>Café crème à Zürich, naïve façade.</p></body></html>"
    server.route(
        "GET",
        "/h",
        Respond(body=latin.encode("iso-8859-1"), content_type="text/html; charset=iso-8859-1"),
    )
    meta = (
        '<html><head><meta charset="windows-1252"></head>'
        "<body><p>“Smart” quotes – dash</p></body></html>"
    )
    server.route("GET", "/m", Respond(body=meta.encode("cp1252"), content_type="text/html"))
    w = leg(tmp_path, allow_private=True)
    assert "Café crème à Zürich" in (await w.fetch(server.url + "/h")).text
    assert "“Smart” quotes – dash" in (await w.fetch(server.url + "/m")).text


async def test_plain_text_is_kept_and_capped(server: FakeWebServer, tmp_path: Path) -> None:
    server.route("GET", "/t", Respond(body="line of text\n" * 1000, content_type="text/plain"))
    fetched = await leg(tmp_path, allow_private=True).fetch(server.url + "/t", max_chars=100)
    assert len(fetched.text) <= 100 and fetched.total_chars == 13 * 1000 - 1
    assert fetched.truncated_chars == fetched.total_chars - len(fetched.text)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (Respond(body=b"\x89PNG...", content_type="image/png"), Reason.BAD_RESPONSE),
        (Respond(404, body="missing"), Reason.ERROR),
        (Respond(302, headers={"Location": "/loop"}), Reason.BAD_RESPONSE),
        (Respond(delay_s=1.0, body="late"), Reason.TIMEOUT),
        (Respond(body="   ", content_type="text/plain"), Reason.BAD_RESPONSE),
    ],
)
async def test_fetch_failures(
    server: FakeWebServer, tmp_path: Path, answer: Respond, reason: Reason
) -> None:
    server.route("GET", "/loop", answer)
    fetched = await leg(tmp_path, allow_private=True).fetch(server.url + "/loop", timeout_s=0.3)
    assert fetched.report.status is Status.DEGRADED and fetched.report.reason is reason, (
        fetched.report
    )
    assert (fetched.report.error or "").startswith("local:") and fetched.text == ""


async def test_byte_cap_is_reported(server: FakeWebServer, tmp_path: Path) -> None:
    server.route("GET", "/big", Respond(body="x " * 50_000, content_type="text/plain"))
    w = track(
        WebLeg(
            {"allow_private": True},
            home=tmp_path,
            env={},
            http=Http(HttpPolicy(retries=0, max_bytes=1000)),
        )
    )
    fetched = await w.fetch(server.url + "/big")
    assert fetched.ok and fetched.total_chars <= 1000
    assert "body cut at 1,000 bytes" in (fetched.report.note or "")


async def test_non_http_urls_are_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="http"):
        await leg(tmp_path).fetch("file:///etc/passwd")
