"""URLs of results: redirect wrappers unwrapped, then a canonical form for dedupe."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

#: host → query parameter carrying the real target of a click-tracking redirect.
_WRAPPERS = {
    "duckduckgo.com": ("/l/", "uddg"),  # //duckduckgo.com/l/?uddg=<url>&rut=…
    "www.google.com": ("/url", "q"),  # /url?q=<url>&sa=…
    "google.com": ("/url", "q"),
}
#: How a fetch asked to stay on its site says it was redirected elsewhere (see ops/_crawl.py).
OFF_SITE = "redirected off the site"
#: Tracking parameters that never change what a page is (utm_*: Google Analytics convention).
_TRACKING = ("utm_", "fbclid", "gclid", "msclkid", "mc_cid", "mc_eid", "ref_src")


def unwrap(url: str) -> str:
    """The destination of a known redirect wrapper; other URLs are returned as given."""
    if url.startswith("//"):
        url = "https:" + url  # scheme-relative, as DuckDuckGo's HTML writes its links
    parts = urlsplit(url)
    rule = _WRAPPERS.get(parts.hostname or "")
    if rule and parts.path.startswith(rule[0]):
        target = dict(parse_qsl(parts.query)).get(rule[1])
        if target and target.startswith(("http://", "https://")):
            return target
    if (parts.hostname or "").endswith("search.yahoo.com") and "/RU=" in parts.path:
        # Yahoo puts the target in the path: /…/RU=<encoded url>/RK=…
        return unquote(parts.path.split("/RU=", 1)[1].split("/", 1)[0])
    return url


def canonical(url: str) -> str:
    """A key that equal pages share: lower-case host, no default port, fragment or tracking."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = parts.port
    netloc = (
        host
        if port is None or (scheme, port) in (("http", 80), ("https", 443))
        else f"{host}:{port}"
    )
    query = urlencode(
        sorted(
            (k, v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not k.startswith(_TRACKING)
        )
    )
    path = parts.path.rstrip("/") or "/"
    # http and https copies of a page are one page for dedupe purposes.
    return urlunsplit(("https" if scheme in ("http", "https") else scheme, netloc, path, query, ""))


def site_of(url: str) -> tuple[str, str, int] | None:
    """The site a crawl stays on: scheme, host without a leading ``www.``, port (default
    filled in); None for a URL without a usable host or port.

    ``www.example.com`` and ``example.com`` count as one site: a site commonly redirects
    one name to the other (the start page itself would otherwise be "off the site"), and
    both names are the same registrant's. Any other subdomain, another scheme or another
    port is another site, as for the browser's same-origin rule (RFC 6454 §4).
    """
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower().rstrip(".")
    if not host or scheme not in ("http", "https"):
        return None
    default = 443 if scheme == "https" else 80
    return scheme, host.removeprefix("www."), port or default


def same_site(url: str, other: str) -> bool:
    """Both URLs are on one site (:func:`site_of`)."""
    site = site_of(url)
    return site is not None and site == site_of(other)


def host_matches(url: str, sites: tuple[str, ...]) -> bool:
    """True when ``url``'s host is one of ``sites`` or a subdomain of one."""
    host = (urlsplit(url).hostname or "").lower()
    return any(host == s.lower() or host.endswith("." + s.lower()) for s in sites)
