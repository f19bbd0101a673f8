"""The local fetcher: httpx + trafilatura, no third-party service (the zero-key default).

Safety (DESIGN §5): only http(s); every hop, redirects included, is resolved and checked by
:mod:`unifind.web.ssrf` and connected to by address; redirects, bytes and time are capped;
text-like content types are read with the charset from the header or the page; PDF and
Word files go through the knowledge base's extractor (the ``document_readers`` registry, so
neither layer imports the other), which refuses encrypted files and decompression bombs.

A proxy from ``HTTPS_PROXY``/``HTTP_PROXY``/``ALL_PROXY`` (``NO_PROXY`` honoured) is used
as httpx does. The target is still checked first: its name must resolve only to public
addresses here before the proxy is asked for it. The proxy resolves the name again itself
(it can't be handed an address for an HTTPS tunnel without breaking the certificate
check), so against DNS rebinding the proxy's own egress rules are the last line.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar
from urllib.parse import urljoin, urlsplit, urlunsplit
from urllib.request import (  # type: ignore[attr-defined]  # absent from typeshed
    getproxies_environment,
    proxy_bypass_environment,
)

import httpx

from unifind._http import Http, HttpError, Reply
from unifind._redis import redact
from unifind.errors import InputError, SourceError
from unifind.registry import registry
from unifind.types import Reason
from unifind.web import ssrf
from unifind.web.base import Fetcher
from unifind.web.model import Page, PlugConfig
from unifind.web.urls import OFF_SITE, same_site

ACCEPT = (
    "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,"
    "application/pdf;q=0.8,*/*;q=0.1"
)
DOCUMENT_TYPES = (
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
)
_HTML = ("text/html", "application/xhtml+xml")
_TEXT_APP = ("application/json", "application/xml", "application/javascript")


class LocalFetcher(Fetcher):
    name: ClassVar[str] = "local"
    docs: ClassVar[str] = "https://trafilatura.readthedocs.io/"
    needs_base_url: ClassVar[bool] = False

    async def fetch(self, url: str, *, http: Http, config: PlugConfig) -> Page:
        allow_private = bool(config.options.get("allow_private", False))
        max_redirects = int(config.options.get("max_redirects", 5))
        # A crawl asks for this: a redirect to another site is reported, never requested.
        stay_on_site = bool(config.options.get("stay_on_site", False))
        current = url
        for _ in range(max_redirects + 1):
            if stay_on_site and current != url and not same_site(url, current):
                raise SourceError(Reason.FORBIDDEN, f"{OFF_SITE} to {current}: not followed")
            proxy = proxy_for(current)
            try:
                reply = await http.send(await _request(current, allow_private, proxy))
            except HttpError as exc:
                if proxy and exc.status is None:  # no HTTP answer: the proxy is at fault
                    raise SourceError(
                        exc.reason, f"through the proxy {redact(proxy)}: {exc}"
                    ) from exc
                raise
            if not 300 <= reply.status < 400:
                if is_document(reply, current):
                    return await _document(reply, url, current)
                return _page(reply, url, current)
            location = reply.headers.get("location")
            if not location:
                raise SourceError(Reason.BAD_RESPONSE, f"HTTP {reply.status} without a Location")
            current = urljoin(current, location)
        raise SourceError(Reason.BAD_RESPONSE, f"more than {max_redirects} redirects")


def proxy_for(url: str) -> str | None:
    """The proxy the environment names for ``url`` (as httpx reads it), or None."""
    parts = urlsplit(url)
    if proxy_bypass_environment(parts.hostname or ""):
        return None
    proxies = getproxies_environment()
    return proxies.get(parts.scheme) or proxies.get("all")


def is_document(reply: Reply, url: str) -> bool:
    """A PDF or Word file, by type, or by name and signature when served as octet-stream."""
    ctype = reply.content_type
    if ctype in DOCUMENT_TYPES:
        return True
    if ctype in ("", "application/octet-stream", "binary/octet-stream"):
        return reply.content[:5] == b"%PDF-" or urlsplit(url).path.lower().endswith(".docx")
    return False


async def _document(reply: Reply, url: str, final: str) -> Page:
    """Text of a PDF/Word body through the KB's extractor, in a thread (it is CPU work)."""
    ctype = reply.content_type
    if ctype not in DOCUMENT_TYPES:
        ctype = "application/pdf" if reply.content[:5] == b"%PDF-" else DOCUMENT_TYPES[-1]
    if reply.truncated:
        raise SourceError(
            Reason.BAD_RESPONSE,
            f"{ctype} is larger than the {len(reply.content):,}-byte cap; a cut file "
            "can't be read (raise the HTTP policy's max_bytes)",
        )
    read = registry("document_readers").get(ctype)
    name = urlsplit(final).path.rsplit("/", 1)[-1] or final
    try:
        extracted = await asyncio.to_thread(read, reply.content, name=name, mime=ctype)
    except InputError as exc:
        raise SourceError(Reason.BAD_RESPONSE, str(exc)) from exc
    return Page(
        url=url,
        text=extracted.text,
        title=extracted.title or None,
        final_url=final if final != url else None,
        content_type=ctype,
    )


async def _request(url: str, allow_private: bool, proxy: str | None = None) -> httpx.Request:
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
    if proxy:
        return httpx.Request("GET", url, headers=headers)  # checked; the proxy connects
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
            Reason.BAD_RESPONSE,
            f"{ctype} is not a text page; HTML, text, PDF and Word (.docx) are read",
        )
    title, links = None, tuple[str, ...]()
    if is_html:
        links = page_links(text, final)
        title, text = extract_html(text, final)
    notes = (f"body cut at {len(reply.content):,} bytes",) if reply.truncated else ()
    return Page(
        url=url,
        text=text.strip(),
        title=title,
        final_url=final if final != url else None,
        content_type=ctype or None,
        notes=notes,
        links=links,
    )


def page_links(markup: str, base: str) -> tuple[str, ...]:
    """Absolute http(s) links of a page (``<base href>`` honoured), fragments dropped."""
    from lxml import etree
    from lxml import html as lxml_html

    try:
        doc = lxml_html.fromstring(markup)
    except (etree.ParserError, ValueError):
        return ()
    bases = doc.xpath("//base/@href")
    base = urljoin(base, str(bases[0])) if bases else base
    out: dict[str, None] = {}
    for href in doc.xpath("//a/@href"):
        url = urljoin(base, str(href).strip()).split("#", 1)[0]
        if url.startswith(("http://", "https://")):
            out[url] = None
    return tuple(out)


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
