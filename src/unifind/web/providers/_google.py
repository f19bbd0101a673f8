"""Google's own parameters, shared by the providers that pass them through (Serper,
SerpAPI's google engine, Firecrawl): ``tbs`` for recency and date ranges, ``gl``/``hl``."""

from __future__ import annotations

from datetime import date

from unifind.web.model import WebQuery

#: ``tbs=qdr:`` recency values.
QDR = {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}


def _us(day: date) -> str:
    return f"{day.month}/{day.day}/{day.year}"  # Google's cd_min/cd_max are M/D/YYYY


def tbs(query: WebQuery) -> str | None:
    """``qdr:w`` for a time range, ``cdr:1,cd_min:…,cd_max:…`` for dates, else None."""
    if query.time_range:
        return QDR[query.time_range]
    if not (query.start_date or query.end_date):
        return None
    parts = ["cdr:1"]
    if query.start_date:
        parts.append(f"cd_min:{_us(query.start_date)}")
    if query.end_date:
        parts.append(f"cd_max:{_us(query.end_date)}")
    return ",".join(parts)
