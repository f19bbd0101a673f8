"""Conformance suite for web search providers: subclass it in a test module.

::

    class TestMine(WebProviderTests):
        provider_cls = Mine
        method, path = "POST", "/search"

        def success(self) -> Respond:
            return Respond(json={"results": [{"title": "A", "url": "https://a.example/"}]})

        def empty(self) -> Respond:
            return Respond(json={"results": []})

Every test runs the provider through the real runner and HTTP client against a loopback
:class:`~unifind.testing.web_server.FakeWebServer`: success, empty, and each failure of
DESIGN §3 (auth, credits, 429 with suspension, bounded 5xx retries, timeout, refused,
DNS, malformed and truncated bodies, a captcha page) must become the right status.
Requires pytest and pytest-asyncio (``asyncio_mode = "auto"``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import pytest

from unifind._http import Http, HttpPolicy
from unifind.testing.web_server import FakeWebServer, Respond, closed_port_url
from unifind.types import LegReport, Reason, Status
from unifind.web.base import SearchProvider
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery
from unifind.web.runner import Suspensions, run_search
from unifind.web.urls import unwrap

CAPTCHA_PAGE = (
    "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
    "<div class='challenge-platform'>Please complete the CAPTCHA to verify you are human."
    "</div></body></html>"
)
FAST = HttpPolicy(timeout_s=5, retries=2, backoff_s=0.001, max_retry_after_s=0.05)


class WebProviderTests:
    """The contract every SearchProvider must keep (see ``unifind.web.base``)."""

    provider_cls: ClassVar[type[SearchProvider]]
    method: ClassVar[str] = "GET"
    path: ClassVar[str] = "/search"
    # Not a ClassVar: a test may set ``self.query`` for its own request.
    query: WebQuery = WebQuery("unifind conformance", limit=5)

    def success(self) -> Respond:
        raise NotImplementedError("return a documented-shape answer with at least one hit")

    def empty(self) -> Respond:
        raise NotImplementedError("return a documented-shape answer with no hits")

    def malformed(self) -> Respond:
        return Respond(body='{"results": [{"title": "x", ', content_type="application/json")

    def truncated(self) -> Respond | None:
        """The success body cut in half; None where a partial body still parses (HTML)."""
        raw, ctype = self.success().encoded()
        return Respond(body=raw[: len(raw) // 2], content_type=ctype)

    # -- plumbing --------------------------------------------------------------------------

    @pytest.fixture
    def server(self) -> Iterator[FakeWebServer]:
        with FakeWebServer() as server:
            yield server

    def config(self, base_url: str) -> PlugConfig:
        key = "test-key-123" if self.provider_cls.key_env else None
        return PlugConfig(base_url=base_url, api_key=key)

    async def ask(
        self,
        base_url: str,
        *,
        timeout_s: float = 5.0,
        suspensions: Suspensions | None = None,
        config: PlugConfig | None = None,
    ) -> tuple[list[WebHit], LegReport]:
        http = Http(FAST)
        try:
            return await run_search(
                self.provider_cls(),
                self.query,
                config or self.config(base_url),
                http=http,
                suspensions=suspensions or Suspensions(),
                timeout_s=timeout_s,
            )
        finally:
            await http.aclose()

    async def answer(
        self, server: FakeWebServer, *responses: Respond, **kw: object
    ) -> tuple[list[WebHit], LegReport]:
        server.route(self.method, self.path, *responses)
        return await self.ask(server.url, **kw)  # type: ignore[arg-type]

    def assert_degraded(self, hits: list[WebHit], report: LegReport, reason: Reason) -> None:
        assert hits == [], "a failure must never produce hits"
        assert report.status is Status.DEGRADED, report
        assert report.reason is reason, report
        assert report.error and report.error.startswith(self.provider_cls.name), report.error

    # -- the contract ----------------------------------------------------------------------

    def test_declares_itself(self) -> None:
        cls = self.provider_cls
        assert isinstance(cls.name, str) and cls.name
        assert isinstance(cls.capabilities, Capabilities)
        assert cls.capabilities.keyed == (cls.key_env is not None)
        assert cls.capabilities.max_results >= 1

    async def test_success(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(server, self.success())
        assert report.status is Status.OK, report
        assert report.hits == len(hits) >= 1
        for h in hits:
            assert h.title.strip()
            assert unwrap(h.url).startswith(("http://", "https://")), h.url
        assert server.count() == 1

    async def test_request_goes_to_the_documented_endpoint(self, server: FakeWebServer) -> None:
        await self.answer(server, self.success())
        seen = server.requests[0]
        assert (seen.method, seen.path) == (self.method, self.path)
        sent = str(seen.query) + seen.body.decode(errors="replace")
        assert "unifind conformance" in sent.replace("+", " ") or "unifind%20conformance" in sent
        if self.provider_cls.key_env:
            assert "test-key-123" in str(seen.headers) + sent, "the key must be sent"

    async def test_empty_is_ok_with_no_hits(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(server, self.empty())
        assert (hits, report.status, report.hits) == ([], Status.OK, 0)

    async def test_missing_key_is_no_key_without_a_call(self, server: FakeWebServer) -> None:
        if not self.provider_cls.key_env:
            pytest.skip("keyless provider")
        server.route(self.method, self.path, self.success())
        hits, report = await self.ask(server.url, config=PlugConfig(base_url=server.url))
        self.assert_degraded(hits, report, Reason.NO_KEY)
        assert self.provider_cls.key_env in (report.error or "")
        assert server.count() == 0

    @pytest.mark.parametrize("status", [401, 403])
    async def test_auth_failure(self, server: FakeWebServer, status: int) -> None:
        hits, report = await self.answer(server, Respond(status, json={"error": "Invalid API key"}))
        self.assert_degraded(hits, report, Reason.AUTH)
        assert server.count() == 1, "auth failures are not retried"

    async def test_credits_exhausted(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(
            server, Respond(402, json={"error": "Insufficient credits"})
        )
        self.assert_degraded(hits, report, Reason.RATE_LIMITED)
        assert "402" in (report.error or "")

    async def test_429_suspends_for_retry_after(self, server: FakeWebServer) -> None:
        suspensions = Suspensions()
        hits, report = await self.answer(
            server,
            Respond(429, json={"error": "slow down"}, headers={"Retry-After": "120"}),
            suspensions=suspensions,
        )
        self.assert_degraded(hits, report, Reason.RATE_LIMITED)
        assert 100 < suspensions.remaining(self.provider_cls.name) <= 120
        hits, report = await self.ask(server.url, suspensions=suspensions)
        self.assert_degraded(hits, report, Reason.RATE_LIMITED)
        assert "not called" in (report.error or "")
        assert server.count() == 1, "a suspended provider must not be called"

    async def test_short_retry_after_is_waited_out(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(
            server, Respond(429, headers={"Retry-After": "0"}), self.success()
        )
        assert report.status is Status.OK and hits
        assert server.count() == 2

    async def test_5xx_is_retried_and_bounded(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(server, Respond(503, body="upstream down"))
        self.assert_degraded(hits, report, Reason.UNREACHABLE)
        assert server.count() == 1 + FAST.retries

    async def test_5xx_then_success(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(server, Respond(500), self.success())
        assert report.status is Status.OK and hits
        assert server.count() == 2

    async def test_timeout(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(server, Respond(delay_s=1.0, json={}), timeout_s=0.2)
        self.assert_degraded(hits, report, Reason.TIMEOUT)

    async def test_connection_refused(self) -> None:
        hits, report = await self.ask(closed_port_url())
        self.assert_degraded(hits, report, Reason.UNREACHABLE)

    async def test_dns_failure(self) -> None:
        # RFC 6761 §6.4: names under .invalid never resolve.
        hits, report = await self.ask("http://provider.invalid")
        self.assert_degraded(hits, report, Reason.UNREACHABLE)
        assert "DNS" in (report.error or "")

    async def test_malformed_body(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(server, self.malformed())
        self.assert_degraded(hits, report, Reason.BAD_RESPONSE)

    async def test_truncated_body(self, server: FakeWebServer) -> None:
        cut = self.truncated()
        if cut is None:
            pytest.skip("a truncated page of this provider still parses")
        hits, report = await self.answer(server, cut)
        self.assert_degraded(hits, report, Reason.BAD_RESPONSE)

    async def test_captcha_page(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(
            server, Respond(body=CAPTCHA_PAGE, content_type="text/html")
        )
        self.assert_degraded(hits, report, Reason.RATE_LIMITED)
        assert "captcha" in (report.error or "").lower()
