"""DuckDuckGo, keyless: the no-JavaScript HTML endpoint ``POST https://html.duckduckgo.com/html/``.

There is no official web-results API; this page is what DuckDuckGo serves to browsers
without JavaScript, so the parser reads its markup (``div.result``, ``a.result__a``,
``.result__snippet``) and treats anything else as a failure, never as an empty answer.
Result links are redirect wrappers (``//duckduckgo.com/l/?uddg=<url>``) that the leg
unwraps. Under load it serves a bot-check page (HTTP 202, "anomaly") instead.

Parameters (duckduckgo.com/duckduckgo-help-pages/settings/params): ``kl`` region
(``us-en``, ``de-de``: a country with its language), ``df`` recency, ``kp`` safe search
(1 strict, -1 moderate, -2 off), ``s`` offset. No news vertical and no date range here.
"""

from __future__ import annotations

from typing import ClassVar

import httpx
from lxml import html as lxml_html

from unifind._http import Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web.base import SearchProvider, looks_like_captcha
from unifind.web.model import Capabilities, PlugConfig, WebHit, WebQuery

#: The ``df`` (date filter) values of DuckDuckGo's search settings.
DF = {"day": "d", "week": "w", "month": "m", "year": "y"}
KP = {"strict": "1", "moderate": "-1", "off": "-2"}
#: Regions whose language isn't the country code (``kl`` is ``<country>-<language>``).
REGION_LANGUAGE = {
    "us": "en", "gb": "en", "uk": "en", "au": "en", "ca": "en", "ie": "en", "nz": "en",
    "in": "en", "sg": "en", "za": "en", "at": "de", "ch": "de", "cn": "zh", "tw": "tzh",
    "hk": "tzh", "jp": "jp", "kr": "kr", "br": "pt", "mx": "es", "ar": "es", "cl": "es",
    "co": "es", "be": "nl", "se": "sv", "dk": "da", "gr": "el", "il": "he", "ua": "uk",
    "vn": "vi", "cz": "cs", "ee": "et", "my": "en", "ph": "en",
}  # fmt: skip
_BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


class DuckDuckGo(SearchProvider):
    name: ClassVar[str] = "duckduckgo"
    default_base_url: ClassVar[str] = "https://html.duckduckgo.com"
    docs: ClassVar[str] = "https://duckduckgo.com/duckduckgo-help-pages/settings/params/"
    capabilities: ClassVar[Capabilities] = Capabilities(
        keyed=False,
        sites="operator",
        time_range=True,
        country=True,
        safe_search=True,
        max_results=30,
        paging=True,
        # Undocumented; past about one query a second it answers with its bot check.
        rate=1.0,
        burst=2,
    )

    def build_request(self, query: WebQuery, config: PlugConfig) -> httpx.Request:
        region = str(config.options.get("region", "wt-wt"))
        if query.country:
            region = f"{query.country}-{REGION_LANGUAGE.get(query.country, query.country)}"
        form = {"q": query.text_with_sites(), "kl": region}
        if query.safe_search:
            form["kp"] = KP[query.safe_search]
        if query.time_range:
            form["df"] = DF[query.time_range]
        if query.offset:
            form["s"] = str(query.offset)
        headers = {"User-Agent": str(config.options.get("user_agent", _BROWSER_UA))}
        return httpx.Request("POST", config.url("/html/"), data=form, headers=headers)

    def parse_response(self, reply: Reply, query: WebQuery) -> list[WebHit]:
        text = reply.text
        if not text.strip():
            raise SourceError(Reason.BAD_RESPONSE, "empty page")
        doc = lxml_html.fromstring(text)
        found = [h for h in map(_hit, doc.find_class("result")) if h is not None]
        if found:
            return found
        if doc.find_class("no-results") or doc.xpath("//*[contains(@class,'result--no-result')]"):
            return []
        if reply.status == 202 or looks_like_captcha(text):
            raise SourceError(
                Reason.RATE_LIMITED,
                "answered with a bot-check (captcha) page instead of results; retry later "
                "or configure a keyed provider",
            )
        raise SourceError(Reason.BAD_RESPONSE, "page has neither results nor a no-results marker")


def _hit(node: lxml_html.HtmlElement) -> WebHit | None:
    classes = (node.get("class") or "").split()
    if "result--ad" in classes or "result__body" in classes:
        return None  # ads, and the inner body div that also carries "result" in its name
    links = node.find_class("result__a")
    if not links or not links[0].get("href"):
        return None
    snippet = node.find_class("result__snippet")
    return WebHit(
        title=" ".join(links[0].text_content().split()),
        url=links[0].get("href", ""),
        snippet=" ".join(snippet[0].text_content().split()) if snippet else "",
    )
