"""The HTTP policy: Retry-After parsing, status mapping, charset decoding."""

from __future__ import annotations

import email.utils

import httpx
import pytest

from unifind._http import Http, HttpError, HttpPolicy, decode, parse_retry_after, reason_for_status
from unifind.types import Reason


def test_retry_after_seconds_and_http_date() -> None:
    assert parse_retry_after("120") == 120.0
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == pytest.approx(30.0)
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    # Unicode digits aren't delay-seconds (they made float() raise); a huge value is capped.
    assert parse_retry_after("²") is None and parse_retry_after("１２") is None
    assert parse_retry_after("9" * 30) == 86_400.0
    assert parse_retry_after(email.utils.formatdate(now + 1e9, usegmt=True), now=now) == 86_400.0


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        (401, Reason.AUTH),
        (403, Reason.AUTH),
        (402, Reason.RATE_LIMITED),
        (429, Reason.RATE_LIMITED),
        (432, Reason.RATE_LIMITED),
        (504, Reason.TIMEOUT),
        (503, Reason.UNREACHABLE),
        (500, Reason.ERROR),
        (404, Reason.ERROR),
    ],
)
def test_status_mapping(status: int, reason: Reason) -> None:
    assert reason_for_status(status) is reason


def test_decode_prefers_header_then_meta() -> None:
    assert decode("é".encode("latin-1"), "text/html; charset=ISO-8859-1") == "é"
    assert (
        decode(b'<meta charset="windows-1252">\x93q\x94', "text/html")
        == '<meta charset="windows-1252">“q”'
    )
    assert decode(b"ok", "text/plain; charset=bogus") == "ok"


async def test_injected_transport_and_bounded_retries() -> None:
    calls: list[int] = []
    slept: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(503, text="down")

    async def sleep(s: float) -> None:
        slept.append(s)

    http = Http(
        HttpPolicy(retries=3, backoff_s=0.5, max_backoff_s=1.0),
        transport=httpx.MockTransport(handler),
        sleep=sleep,
    )
    with pytest.raises(HttpError) as info:
        await http.send(httpx.Request("GET", "http://api.test/x"))
    await http.aclose()
    assert info.value.reason is Reason.UNREACHABLE and info.value.status == 503
    assert len(calls) == 4 and len(slept) == 3
    assert all(
        0 <= s <= c for s, c in zip(slept, [0.5, 1.0, 1.0], strict=True)
    )  # full jitter, capped
