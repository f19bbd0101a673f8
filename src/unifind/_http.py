"""The one HTTP policy (L1): timeouts, bounded retries with backoff, Retry-After, status → Reason.

Every outbound call of unifind goes through :class:`Http`. Its network seam is httpx's
transport (``transport=`` or a whole ``client=``), so tests and users can inject
``httpx.MockTransport`` or a proxy without touching callers. A failure leaves here as
:class:`HttpError`, a :class:`~unifind.errors.SourceError` that already carries the
machine reason; callers prefix the backend name and turn it into a report.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

import httpx

from unifind.errors import SourceError
from unifind.types import Reason

USER_AGENT = "unifind/0.1 (+https://github.com/unifind/unifind)"

#: Statuses worth another try: the server or a gateway failed, not our request (RFC 9110 §15.6).
TRANSIENT_STATUSES = frozenset({500, 502, 503, 504})


@dataclass(frozen=True)
class HttpPolicy:
    """How patient one call is."""

    timeout_s: float = 10.0
    """Per read/write/pool wait; the caller's overall deadline is separate."""
    connect_timeout_s: float = 5.0
    retries: int = 2
    """Extra attempts after a transient failure (connect error, 5xx, short 429)."""
    backoff_s: float = 0.25
    """First backoff; doubled per retry, capped by ``max_backoff_s``, with full jitter."""
    max_backoff_s: float = 4.0
    max_retry_after_s: float = 2.0
    """A 429 whose Retry-After is at most this is waited out inline; longer ones fail fast."""
    max_bytes: int = 5_000_000
    """Bodies are cut here (``Reply.truncated``) so a hostile server can't exhaust memory."""
    user_agent: str = USER_AGENT


@dataclass(frozen=True)
class Reply:
    """A fully read response: what a parser needs, nothing that still holds a socket."""

    status: int
    url: str
    headers: httpx.Headers
    content: bytes
    truncated: bool = False
    """The body was longer than the policy's ``max_bytes`` and was cut."""

    @property
    def content_type(self) -> str:
        value: str = self.headers.get("content-type", "")
        return value.split(";")[0].strip().lower()

    @property
    def text(self) -> str:
        """The body decoded with the header charset, else UTF-8 (replacing bad bytes)."""
        return decode(self.content, self.headers.get("content-type", ""))

    def json(self) -> Any:
        """The body as JSON; malformed or truncated JSON raises ``bad_response``."""
        import json

        try:
            return json.loads(self.text)
        except ValueError as exc:
            kind = "truncated" if self.truncated else "malformed"
            raise SourceError(Reason.BAD_RESPONSE, f"{kind} JSON ({exc})") from exc


def header_problem(value: str) -> str | None:
    """Why ``value`` can't go out as an HTTP header value, or None when it can.

    httpx encodes header values as ASCII and h11 refuses control characters (RFC 9110
    §5.5), so either would surface as a bare UnicodeEncodeError or protocol error deep in
    a send. Only the offending character's code point is named: the value may be a secret.
    """
    for i, ch in enumerate(value):
        if ord(ch) > 0x7E:
            return (
                f"contains non-ASCII characters (U+{ord(ch):04X} at position {i}); "
                "it looks like a placeholder"
            )
        if (ord(ch) < 0x20 and ch != "\t") or ord(ch) == 0x7F:
            return f"contains a control character (U+{ord(ch):04X} at position {i})"
    return None


class HttpError(SourceError):
    """A call that failed, with the HTTP status and the server's Retry-After when known."""

    def __init__(
        self,
        reason: Reason,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(reason, message)
        self.status, self.retry_after = status, retry_after


def reason_for_status(status: int) -> Reason:
    """Map an HTTP error status to the machine reason of DESIGN §3."""
    if status in (401, 403, 407):
        return Reason.AUTH
    # 402 Payment Required is how Firecrawl/Serper-style APIs say "credits exhausted";
    # 432/433 are Tavily's plan and pay-as-you-go limits (tavily-python errors.py).
    if status in (402, 429, 432, 433):
        return Reason.RATE_LIMITED
    if status in (408, 504):
        return Reason.TIMEOUT
    if status in (502, 503):
        return Reason.UNREACHABLE
    return Reason.ERROR


_MAX_RETRY_AFTER_S = 86_400.0


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from Retry-After: delay-seconds or an HTTP-date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    value = value.strip()
    # delay-seconds is 1*DIGIT in ASCII: str.isdigit() also passes "²" and "１２", which
    # float() then refuses. A day caps a huge value: a typo must not bench a provider forever.
    if value.isascii() and value.isdigit():
        return min(float(value), _MAX_RETRY_AFTER_S)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None  # junk: the caller falls back to its default wait
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = time.time() if now is None else now
    return min(max(0.0, when.timestamp() - now), _MAX_RETRY_AFTER_S)


def decode(content: bytes, content_type: str = "") -> str:
    """Decode a body: the header charset, then a ``<meta charset>`` sniff, then UTF-8."""
    charset = _charset_param(content_type) or _sniff_meta_charset(content[:2048])
    for candidate in (charset, "utf-8"):
        if not candidate:
            continue
        try:
            return content.decode(candidate, errors="replace")
        except LookupError:  # an unknown charset name from the server
            continue
    return content.decode("utf-8", errors="replace")


def _charset_param(content_type: str) -> str | None:
    for part in content_type.split(";")[1:]:
        name, _, val = part.partition("=")
        if name.strip().lower() == "charset" and val.strip():
            return val.strip().strip("\"'")
    return None


def _sniff_meta_charset(head: bytes) -> str | None:
    # The WHATWG prescan looks at the first 1024 bytes for <meta charset=...> or the
    # http-equiv form; a regex over both forms covers what real pages send.
    m = re.search(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", head, re.IGNORECASE)
    return m.group(1).decode("ascii") if m else None


def describe_exception(exc: BaseException) -> HttpError:
    """Turn an httpx transport exception into an :class:`HttpError` with the right reason."""
    if isinstance(exc, httpx.TimeoutException):
        return HttpError(Reason.TIMEOUT, f"timed out ({type(exc).__name__})")
    if isinstance(exc, httpx.ConnectError):
        text = str(exc) or type(exc).__name__
        low = text.lower()
        if "name or service" in low or "nodename" in low or "getaddrinfo" in low:
            return HttpError(Reason.UNREACHABLE, f"DNS lookup failed ({text})")
        if "refused" in low:
            return HttpError(Reason.UNREACHABLE, f"connection refused ({text})")
        return HttpError(Reason.UNREACHABLE, f"cannot connect ({text})")
    if isinstance(exc, httpx.TooManyRedirects):
        return HttpError(Reason.BAD_RESPONSE, "too many redirects")
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return HttpError(Reason.ERROR, f"invalid URL ({exc})")
    return HttpError(Reason.UNREACHABLE, f"connection failed ({type(exc).__name__}: {exc})")


_TRANSIENT_EXC = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.RemoteProtocolError,
    httpx.ReadError,
)


def _transient(exc: httpx.HTTPError, error: HttpError) -> bool:
    # A read timeout is not retried: the deadline is the caller's, and a slow server stays
    # slow. A failed DNS lookup is not either: NXDOMAIN doesn't heal in milliseconds.
    return isinstance(exc, _TRANSIENT_EXC) and not str(error).startswith("DNS")


@dataclass
class Http:
    """An async HTTP client with unifind's policy; one per process is plenty."""

    policy: HttpPolicy = field(default_factory=HttpPolicy)
    transport: httpx.AsyncBaseTransport | None = None
    client: httpx.AsyncClient | None = None
    """A caller-owned client; used as is (its own timeouts and transport) and never closed here."""
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    _own: dict[int, httpx.AsyncClient] = field(default_factory=dict, repr=False)

    def _client(self) -> httpx.AsyncClient:
        if self.client is not None:
            return self.client
        # An AsyncClient's pool belongs to the loop that opened it, and a sync facade may
        # run many loops in turn, so keep one client per running loop.
        loop = id(asyncio.get_running_loop())
        if loop not in self._own:
            p = self.policy
            self._own[loop] = httpx.AsyncClient(
                transport=self.transport,
                timeout=httpx.Timeout(p.timeout_s, connect=p.connect_timeout_s),
                headers={"User-Agent": p.user_agent},
                follow_redirects=False,
            )
        return self._own[loop]

    def prepare(self) -> None:
        """Open this loop's client now (creating one loads the CA bundle: ~0.1 s), so a
        call timed by a rate limit leaves when its slot says, not that much later."""
        self._client()

    async def aclose(self) -> None:
        clients, self._own = list(self._own.values()), {}
        for c in clients:
            await c.aclose()

    async def send(self, request: httpx.Request, *, retry: bool = True) -> Reply:
        """Send with bounded retries; 2xx and 3xx come back, anything else raises HttpError."""
        attempts = 1 + (self.policy.retries if retry else 0)
        for attempt in range(1, attempts + 1):
            last = attempt == attempts
            try:
                reply = await self._once(request)
            except httpx.HTTPError as exc:
                error = describe_exception(exc)
                if last or not _transient(exc, error):
                    raise error from exc
                await self.sleep(self._backoff(attempt))
                continue
            if reply.status < 400:
                return reply
            wait = self._retry_wait(reply, attempt)
            if last or wait is None:
                raise _status_error(reply)
            await self.sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _once(self, request: httpx.Request) -> Reply:
        client = self._client()
        response = await client.send(request, stream=True)
        try:
            chunks: list[bytes] = []
            size, truncated = 0, False
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > self.policy.max_bytes:
                    truncated = True
                    break
            body = b"".join(chunks)[: self.policy.max_bytes]
        finally:
            await response.aclose()
        return Reply(response.status_code, str(response.url), response.headers, body, truncated)

    def _retry_wait(self, reply: Reply, attempt: int) -> float | None:
        if reply.status == 429:
            after = parse_retry_after(reply.headers.get("retry-after"))
            if after is not None and after <= self.policy.max_retry_after_s:
                return after
            return None
        if reply.status in TRANSIENT_STATUSES:
            return self._backoff(attempt)
        return None

    def _backoff(self, attempt: int) -> float:
        # "Full jitter" (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015):
        # spreads retries of many clients instead of synchronising them.
        cap = min(self.policy.max_backoff_s, self.policy.backoff_s * 2 ** (attempt - 1))
        return random.uniform(0, cap)


_QUOTA = re.compile(r"credit|quota|usage limit|run out of searches", re.IGNORECASE)


def _status_error(reply: Reply) -> HttpError:
    reason = reason_for_status(reply.status)
    detail = _error_detail(reply)
    if reason is Reason.ERROR and _QUOTA.search(detail):
        reason = Reason.RATE_LIMITED  # Serper says "Not enough credits" with a plain 400
    retry_after = parse_retry_after(reply.headers.get("retry-after"))
    msg = f"HTTP {reply.status}"
    if reply.status == 402:
        msg += " (payment required: credits or quota exhausted)"
    elif reply.status == 429:
        msg += " (rate limited"
        msg += f"; Retry-After {retry_after:.0f}s)" if retry_after is not None else ")"
    if detail:
        msg += f": {detail}"
    return HttpError(reason, msg, status=reply.status, retry_after=retry_after)


def _error_detail(reply: Reply, limit: int = 200) -> str:
    """The server's own words, shortened: a JSON ``error``/``message`` field or the text."""
    text = reply.text.strip()
    if reply.content_type.endswith("json"):
        try:
            data = reply.json()
        except SourceError:
            data = None
        if isinstance(data, dict):
            for key in ("error", "message", "detail", "msg"):
                val = data.get(key)
                if isinstance(val, dict):
                    val = val.get("message") or val.get("detail")
                if isinstance(val, str) and val:
                    return val[:limit]
    if reply.content_type.startswith("text/html"):
        return ""  # an HTML error page says nothing useful in one line
    return " ".join(text.split())[:limit]
