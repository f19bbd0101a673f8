"""A request's web options, planned for one provider: what it is sent, what the leg filters
locally afterwards, and what is reported as ignored (DESIGN §5: "a provider that can't
honour one says so in its capabilities and the leg filters or reports it").

Domains and dates are always checked locally too, whatever the provider claims: a provider
that silently ignores ``exclude_domains`` still can't put an excluded site in the answer.
Dates can only be checked on results that carry one; undated results are kept and counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import cast

from unifind.errors import InputError
from unifind.types import SearchRequest
from unifind.web.base import SearchProvider
from unifind.web.domains import DomainSet
from unifind.web.model import Capabilities, SafeSearch, TimeRange, Topic, WebHit, WebQuery

#: Days each relative range reaches back (a year may hold a leap day).
SPAN_DAYS: dict[TimeRange, int] = {"day": 1, "week": 7, "month": 31, "year": 366}


@dataclass
class LocalFilter:
    """What the leg enforces on the hits, and what it removed (for the note)."""

    include: DomainSet = field(default_factory=DomainSet)
    exclude: DomainSet = field(default_factory=DomainSet)
    start: date | None = None
    end: date | None = None
    dropped_sites: int = 0
    dropped_dates: int = 0
    undated: int = 0

    def keep(self, url: str, hit: WebHit) -> bool:
        if self.include and not self.include.match_url(url):
            self.dropped_sites += 1
            return False
        if self.exclude and self.exclude.match_url(url):
            self.dropped_sites += 1
            return False
        if self.start or self.end:
            when = parse_published(hit.published)
            if when is None:
                self.undated += 1
            elif (self.start and when < self.start) or (self.end and when > self.end):
                self.dropped_dates += 1
                return False
        return True

    def notes(self, provider: str) -> list[str]:
        out = []
        if self.dropped_sites:
            out.append(f"sites: {self.dropped_sites} {provider} result(s) outside the domain "
                       "filters were removed locally")  # fmt: skip
        if self.dropped_dates:
            out.append(f"dates: {self.dropped_dates} {provider} result(s) published outside "
                       "the date range were removed locally")  # fmt: skip
        if self.undated:
            out.append(f"dates: {self.undated} result(s) carry no date and could not be "
                       "checked against the range; kept")  # fmt: skip
        return out


@dataclass
class Plan:
    """The provider's query, the leg's local filter, and notes on what was not honoured."""

    query: WebQuery
    local: LocalFilter
    notes: list[str]


def plan(req: SearchRequest, provider: SearchProvider, *, today: date | None = None) -> Plan:
    """Map ``req``'s web options onto ``provider``'s capabilities."""
    caps, name = provider.capabilities, provider.name
    today = today or datetime.now(UTC).date()
    notes: list[str] = []
    local = LocalFilter()
    sites, over = _include(req, caps, name, local, notes)
    excluded = _exclude(req, caps, name, local, notes)
    time_range, start, end = _dates(req, caps, name, local, notes, today)
    limit, offset = req.limit, req.offset
    if req.page:
        offset = (req.page - 1) * req.limit
    if offset and not caps.paging:
        limit, offset = offset + limit, 0  # ask for more and slice (see the leg's _items)
    if over or (local.start and not caps.dates and not time_range):
        limit = caps.max_results  # the local filter will drop some: ask for a full page
    query = WebQuery(
        text=req.query,
        limit=min(limit, caps.max_results),
        offset=offset,
        sites=sites,
        exclude_sites=excluded,
        time_range=time_range,
        start_date=start,
        end_date=end,
        language=_supported(req.language, caps.language, "language", name, notes),
        country=_supported(req.country, caps.country, "country", name, notes),
        topic=_topic(req, caps, name, notes),
        safe_search=cast(
            "SafeSearch | None",
            _supported(req.safe_search, caps.safe_search, "safe_search", name, notes),
        ),
        engine=req.engine,
    )
    if query.language:
        query = _replace(query, language=query.language.lower().replace("_", "-"))
    if query.country:
        query = _replace(query, country=query.country.lower())
    return Plan(query, local, notes)


def _replace(query: WebQuery, **kw: object) -> WebQuery:
    from dataclasses import replace

    return replace(query, **kw)  # type: ignore[arg-type]


def _include(
    req: SearchRequest, caps: Capabilities, name: str, local: LocalFilter, notes: list[str]
) -> tuple[tuple[str, ...], bool]:
    """Domains sent to the provider, and whether the list was left to the local filter."""
    wanted = DomainSet.parse(req.sites, field_name="sites")
    if not wanted:
        return (), False
    if wanted.everything:
        notes.append("sites: a wildcard matches every site; results are not restricted")
        return (), False
    local.include = wanted
    sendable = wanted.native_domains() if caps.sites != "none" else None
    if sendable is not None and len(sendable) <= caps.max_sites:
        return sendable, False
    if caps.sites == "none":
        why = f"{name} can't restrict sites"
    elif sendable is None:
        why = f"{name} takes no wildcard of that form"
    else:
        why = f"{len(sendable):,} domains exceed the {caps.max_sites} {name} takes in one call"
    notes.append(f"sites: {why}; results were filtered locally, so fewer may come back")
    return (), True


def _exclude(
    req: SearchRequest, caps: Capabilities, name: str, local: LocalFilter, notes: list[str]
) -> tuple[str, ...]:
    unwanted = DomainSet.parse(req.exclude_sites, field_name="exclude_sites")
    if not unwanted:
        return ()
    if unwanted.everything:
        raise InputError(
            "exclude_sites: a wildcard there matches every site, so nothing could be returned; "
            "list the domains to leave out instead"
        )
    local.exclude = unwanted
    if caps.exclude_sites == "none":
        notes.append(f"exclude_sites: {name} can't exclude sites; results were filtered locally")
        return ()
    # Sending part of an exclusion list is still correct: the rest is filtered here.
    sendable = [p[2:] if p.startswith("*.") else p for p in unwanted.patterns]
    sendable = [p for p in sendable if "*" not in p]
    if len(sendable) < len(unwanted):
        notes.append(f"exclude_sites: {name} got {min(len(sendable), caps.max_sites)} of "
                     f"{len(unwanted):,} domains; the rest were filtered locally")  # fmt: skip
    elif len(sendable) > caps.max_sites:
        notes.append(f"exclude_sites: {name} got {caps.max_sites} of {len(sendable):,} domains "
                     "(its limit); the rest were filtered locally")  # fmt: skip
    return tuple(sendable[: caps.max_sites])


def _dates(
    req: SearchRequest,
    caps: Capabilities,
    name: str,
    local: LocalFilter,
    notes: list[str],
    today: date,
) -> tuple[TimeRange | None, date | None, date | None]:
    start, end = req.start_date, req.end_date
    if end and end > today:
        end = None  # "until next year" is "until now": nothing newer exists
    if req.time_range:
        local.start = today - timedelta(days=SPAN_DAYS[req.time_range])
        if caps.time_range:
            return req.time_range, None, None
        if caps.dates:
            return None, local.start, None
        notes.append(f"time_range: {name} can't filter by date; results carrying a date "
                     "were filtered locally")  # fmt: skip
        return None, None, None
    if not (start or end):
        return None, None, None
    local.start, local.end = start, end
    if caps.dates:
        return None, start, end
    if caps.time_range and start and end is None:
        span = next((r for r, d in SPAN_DAYS.items() if today - timedelta(days=d) <= start), None)
        if span:
            notes.append(f"dates: {name} takes no date range; asked for the past {span} and "
                         "filtered by date locally")  # fmt: skip
            return span, None, None
    notes.append(f"dates: {name} can't filter by date range; results carrying a date were "
                 "filtered locally")  # fmt: skip
    return None, None, None


def _supported(value: str | None, ok: bool, what: str, name: str, notes: list[str]) -> str | None:
    if value is None:
        return None
    if not ok:
        notes.append(f"{what}: {name} has no {what} parameter; {value!r} ignored")
        return None
    return value


def _topic(req: SearchRequest, caps: Capabilities, name: str, notes: list[str]) -> Topic | None:
    if req.topic is None or req.topic == "general":
        return req.topic if req.topic in caps.topics else None
    if req.topic not in caps.topics:
        notes.append(f"topic: {name} has no {req.topic} search; searched the general web")
        return None
    return req.topic


_AGO = re.compile(r"^(\d+)\s+(minute|hour|day|week|month|year)s?\s+ago$", re.IGNORECASE)
_AGO_DAYS = {"minute": 0, "hour": 0, "day": 1, "week": 7, "month": 30, "year": 365}
_FORMATS = ("%b %d, %Y", "%B %d, %Y", "%d %b %Y", "%d %B %Y", "%Y/%m/%d", "%m/%d/%Y")


def parse_published(text: str | None, *, today: date | None = None) -> date | None:
    """The day a provider's ``published`` text names: ISO, RFC 2822, ``Mar 5, 2024``,
    ``3 days ago``; None when it can't be read."""
    if not text:
        return None
    raw = text.strip()
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    if m := _AGO.match(raw):
        today = today or datetime.now(UTC).date()
        return today - timedelta(days=int(m.group(1)) * _AGO_DAYS[m.group(2).lower()])
    for fmt in _FORMATS:
        try:
            return datetime.strptime(raw, fmt).date()
        except ValueError:
            continue
    try:
        return parsedate_to_datetime(raw).date()
    except (TypeError, ValueError, IndexError):
        return None
