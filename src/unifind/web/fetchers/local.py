"""The local fetcher: httpx + trafilatura, no third-party service (the zero-key default).

Safety (DESIGN §5): only http(s); every hop, redirects included, is resolved and checked by
:mod:`unifind.web.ssrf` and connected to by address; redirects, bytes and time are capped;
only text-like content types are read, with the charset from the header or the page.
"""

from __future__ import annotations

from typing import ClassVar
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from unifind._http import Http, Reply
from unifind.errors import SourceError
from unifind.types import Reason
from unifind.web import ssrf
from unifind.web.base import Fetcher
from unifind.web.model import Page, PlugConfig

ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,*/*;q=0.1"
_HTML = ("text/html", "application/xhtml+xml")
_TEXT_APP = ("application/json", "application/xml", "application/javascript")


class LocalFetcher(Fetcher):
    name: ClassVar[str] = "local"
    docs: ClassVar[str] = "https://trafilatura.readthedocs.io/"
    needs_base_url: ClassVar[bool] = False

    async def fetch(self, url: str, *, http: Http, config: PlugConfig) -> Page:
        allow_private = bool(config.options.get("allow_private", False))
        max_redirects = int(config.options.get("max_redirects", 5))
        current = url
        for _ in range(max_redirects + 1):
            reply = await http.send(await _request(current, allow_private))
            if not 300 <= reply.status < 400:
                return _page(reply, url, current)
            location = reply.headers.get("location")
            if not location:
                raise SourceError(Reason.BAD_RESPONSE, f"HTTP {reply.status} without a Location")
            current = urljoin(current, location)
        raise SourceError(Reason.BAD_RESPONSE, f"more than {max_redirects} redirects")


async def _request(url: str, allow_private: bool) -> httpx.Request:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise SourceError(
            Reason.FORBIDDEN,
            f"only http(s) URLs are fetched, not {parts.scheme or 'a bare'!r} ones",
        )
    host = parts.hostname
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise SourceError(Reason.ERROR, f"invalid port in {url!r}") from exc
    if not host:
        raise SourceError(Reason.ERROR, f"no host in {url!r}")
    headers = {"Accept": ACCEPT}
    if allow_private:
        return httpx.Request("GET", url, headers=headers)
    ip = await ssrf.checked_address(host, port)
    # Connect to the checked address, not the name, so a second DNS answer can't differ;
    # Host and SNI keep the name so virtual hosting and certificate checks still work.
    literal = f"[{ip}]" if ip.version == 6 else str(ip)
    netloc = f"{literal}:{parts.port}" if parts.port else literal
    pinned = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    headers["Host"] = f"{host}:{parts.port}" if parts.port else host
    return httpx.Request("GET", pinned, headers=headers, extensions={"sni_hostname": host})


def _page(reply: Reply, url: str, final: str) -> Page:
    ctype = reply.content_type
    text = reply.text
    is_html = ctype in _HTML or (not ctype and text.lstrip()[:1] == "<")
    if ctype and not is_html and not (ctype.startswith("text/") or ctype in _TEXT_APP):
        raise SourceError(
            Reason.BAD_RESPONSE, f"{ctype} is not a text page; only HTML and text are read"
        )
    title = None
    if is_html:
        title, text = extract_html(text, final)
    notes = (f"body cut at {len(reply.content):,} bytes",) if reply.truncated else ()
    return Page(
        url=url,
        text=text.strip(),
        title=title,
        final_url=final if final != url else None,
        content_type=ctype or None,
        notes=notes,
    )


def extract_html(markup: str, url: str) -> tuple[str | None, str]:
    """(title, readable markdown) of an HTML page; never returns the raw markup."""
    import trafilatura  # heavy: imported on first fetch
    from lxml import html as lxml_html

    if not markup.strip():
        return None, ""
    body = trafilatura.extract(
        markup, url=url, output_format="markdown", include_tables=True, favor_recall=True
    )
    doc = lxml_html.fromstring(markup)
    titles = doc.xpath("//title/text()")
    title = " ".join(titles[0].split()) if titles else None
    if not body:
        # trafilatura finds no "main content" on very short pages; the visible text will do.
        for bad in doc.xpath("//script|//style|//noscript|//template"):
            bad.drop_tree()
        nodes = doc.xpath("//body") or [doc]
        body = "\n".join(
            line.strip() for line in nodes[0].text_content().splitlines() if line.strip()
        )
    return title, body
