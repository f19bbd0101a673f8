# ruff: noqa: E501  (verbatim markup of the provider page)
from __future__ import annotations

from unifind.testing.web_provider import WebProviderTests
from unifind.testing.web_server import FakeWebServer, Respond
from unifind.types import Reason
from unifind.web.model import WebQuery
from unifind.web.providers.duckduckgo import DuckDuckGo
from unifind.web.urls import unwrap

# The markup of html.duckduckgo.com/html/ (trimmed): an ad, two results with redirect wrappers.
PAGE = """<!DOCTYPE html><html><head><title>unifind conformance at DuckDuckGo</title></head><body>
<div class="serp__results"><div id="links" class="results">
 <div class="result results_links results_links_deep result--ad">
  <div class="links_main links_deep result__body">
   <h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_provider=x">Buy now</a></h2>
   <a class="result__snippet" href="#">An advert.</a></div></div>
 <div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
   <h2 class="result__title"><a rel="nofollow" class="result__a"
     href="//duckduckgo.com/l/?uddg=https%3A%2F%2Ftokio.rs%2Ftokio%2Ftutorial%3Fa%3D1&amp;rut=abc">Tokio <b>tutorial</b></a></h2>
   <a class="result__snippet" href="//duckduckgo.com/l/?uddg=x">Learn <b>async</b> Rust.</a>
  </div></div>
 <div class="result results_links results_links_deep web-result ">
  <div class="links_main links_deep result__body">
   <h2 class="result__title"><a class="result__a" href="https://async.rs/">async-std</a></h2>
   <a class="result__snippet">Async version of std.</a></div></div>
</div></div></body></html>"""
NO_RESULTS = """<html><body><div id="links" class="results"><div class="no-results">No results.</div></div>
</body></html>"""
# What DuckDuckGo serves bots under load, with HTTP 202.
ANOMALY = """<html><body><div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<div class="anomaly-modal__description">Please complete the following challenge.</div></body></html>"""


class TestDuckDuckGo(WebProviderTests):
    provider_cls = DuckDuckGo
    method, path = "POST", "/html/"

    def success(self) -> Respond:
        return Respond(body=PAGE, content_type="text/html; charset=utf-8")

    def empty(self) -> Respond:
        return Respond(body=NO_RESULTS, content_type="text/html")

    def malformed(self) -> Respond:
        return Respond(
            body="<html><body><p>Something else entirely</p></body></html>",
            content_type="text/html",
        )

    def truncated(self) -> Respond | None:
        return None  # lxml reads a cut page up to the cut: those results are real

    async def test_parses_results_skipping_ads(self, server: FakeWebServer) -> None:
        self.query = WebQuery("q", sites=("tokio.rs",), time_range="week")
        hits, _ = await self.answer(server, self.success())
        assert [h.title for h in hits] == ["Tokio tutorial", "async-std"]
        assert unwrap(hits[0].url) == "https://tokio.rs/tokio/tutorial?a=1"
        assert hits[0].snippet == "Learn async Rust."
        form = server.requests[0].form()
        assert form["q"] == ["q site:tokio.rs"] and form["df"] == ["w"]

    async def test_anomaly_page_is_rate_limited(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(
            server, Respond(202, body=ANOMALY, content_type="text/html")
        )
        self.assert_degraded(hits, report, Reason.RATE_LIMITED)

    async def test_empty_200_body_is_bad_response(self, server: FakeWebServer) -> None:
        hits, report = await self.answer(server, Respond(body="", content_type="text/html"))
        self.assert_degraded(hits, report, Reason.BAD_RESPONSE)
