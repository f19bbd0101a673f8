"""The tools: names, descriptions a model can act on, input schemas and annotations.

Annotations come from the operation's declaration (:data:`unifind.ops.OPERATIONS`):
read-only, and open-world only where the operation may reach the public web.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from unifind.mcp_server import ask
from unifind.mcp_server.args import (
    DEFAULT_MAX_CHARS,
    FETCH_PAGE_DEFAULT,
    LEGS,
    MAX_CHARS_RANGE,
    MODES,
    TIME_RANGES,
)
from unifind.ops import OPERATIONS

_NAMES = {"type": "array", "items": {"type": "string"}}

SEARCH = """\
Search the team's knowledge base (kb), the public web (web) and databases (db) in one \
request, run in parallel and fused into one ranked list. Each result carries a citation id \
like [ref_001]: cite results by it. The answer ends with every source's status (ok, \
degraded with the reason, disabled, skipped), so an empty or short list says why.
Default: the knowledge base only; add "web" to sources for the public web. Call the \
`sources` tool first to see which collections and database models exist. To continue \
citation numbering across several searches for one answer, pass the request_id of the \
first result."""

FETCH = """\
Read a web page as plain text (markdown-ish, never raw HTML), e.g. a result url from \
`search`. Long pages come in pages of max_chars characters: the text ends with the \
`start` offset of the next page when there is more. Several pages at once: give `urls` \
(at most 10). Private and local network addresses are refused."""

SOURCES = """\
List what can be searched: the knowledge-base collections you can see (with document \
counts), the database models and their columns, and the web search providers and page \
fetchers, each with whether it is usable here and why not."""

_SEARCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to find: a question or keywords."},
        "sources": {
            **_NAMES,
            "items": {"type": "string", "enum": list(LEGS)},
            "description": 'Which sources to search: "kb" (knowledge base), "web" (public web), '
            '"db" (databases). Default ["kb"]. Also accepts per-source options: '
            '{"kb": {"collections": ["docs"], "mode": "hybrid"}, "web": {"provider": "brave"}}.',
        },
        "collections": {
            **_NAMES,
            "description": "Knowledge-base collections to search (default: all you can see). "
            "Implies kb.",
        },
        "models": {
            **_NAMES,
            "description": "Database models to search (default: chosen from the query). "
            "Implies db.",
        },
        "dsl": {
            "type": "object",
            "description": "A database query you write instead of relying on the question: "
            'a QueryDSL such as {"model": "orders", "wheres": [{"field": '
            '"customers.country", "value": "France"}]}; its JSON Schema and the models\' '
            "columns and relations come from the `sources` tool. Run as written, checked "
            "against the declared models and the caller's permissions. Implies db.",
        },
        "mode": {
            "type": "string",
            "enum": list(MODES),
            "default": "all",
            "description": "all: wait for every source; any: the first source with results; "
            "race: the first source to answer.",
        },
        "max_results": {
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": 10,
            "description": "Results per source and in the fused list.",
        },
        "domains": {
            **_NAMES,
            "description": "Only web results from these sites, e.g. docs.python.org. Implies web.",
        },
        "exclude_domains": {
            **_NAMES,
            "description": "Leave out web results from these sites (wildcards like *.example.com). "
            "Implies web.",
        },
        "time_range": {
            "type": "string",
            "enum": list(TIME_RANGES),
            "description": "Only web results from the last day/week/month/year. Implies web.",
        },
        "start_date": {
            "type": "string",
            "format": "date",
            "description": "Only web results published on or after this day (YYYY-MM-DD).",
        },
        "end_date": {
            "type": "string",
            "format": "date",
            "description": "Only web results published on or before this day (YYYY-MM-DD).",
        },
        "language": {
            "type": "string",
            "description": "Web results in this language (ISO 639-1: en, de).",
        },
        "country": {
            "type": "string",
            "description": "Web results for this country (ISO 3166-1: us, de).",
        },
        "topic": {
            "type": "string",
            "enum": ["general", "news"],
            "description": "news: the provider's news search. Implies web.",
        },
        "safe_search": {"type": "string", "enum": ["off", "moderate", "strict"]},
        "page": {"type": "integer", "minimum": 1, "description": "1-based page of web results."},
        "request_id": {
            "type": "string",
            "description": "Continue the citation ids of an earlier search (its request_id).",
        },
        "max_chars": {
            "type": "integer",
            "minimum": MAX_CHARS_RANGE[0],
            "maximum": MAX_CHARS_RANGE[1],
            "default": DEFAULT_MAX_CHARS,
            "description": "Size budget of the answer in characters; results beyond it are "
            "cut and announced.",
        },
    },
    "required": ["query"],
}

_FETCH_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "url": {"type": "string", "description": "The http(s) address of the page."},
        "urls": {
            "type": "array",
            "items": {"type": "string"},
            "maxItems": 10,
            "description": "Several pages to read in one call (with or instead of url; "
            "at most 10, read in parallel, each paged by max_chars and start).",
        },
        "max_chars": {
            "type": "integer",
            "minimum": 100,
            "maximum": 50_000,
            "default": FETCH_PAGE_DEFAULT,
            "description": "Characters of text per page.",
        },
        "start": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": "Character offset to start from (the next page's start is given "
            "at the end of the previous page).",
        },
    },
}

_REPORTS = {
    "type": "array",
    "description": "One report per backend: leg, backend, status, reason, error, hits.",
    "items": {"type": "object"},
}

_OUTPUT: dict[str, dict[str, Any]] = {
    "search": {
        "type": "object",
        "properties": {
            "request_id": {"type": "string"},
            "status": {"type": "string", "enum": ["ok", "partial", "unavailable"]},
            "items": {"type": "array", "items": {"type": "object"}},
            "sources": _REPORTS,
        },
        "required": ["request_id", "status", "items", "sources"],
    },
    "fetch": {
        "type": "object",
        "properties": {
            "url": {"type": "string"},
            "status": {"type": "string"},
            "text": {"type": "string"},
            "start": {"type": "integer"},
            "total_chars": {"type": "integer"},
            "next_start": {"type": ["integer", "null"]},
            "report": {"type": "object"},
            "pages": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Several URLs asked for: each page as a single fetch gives it.",
            },
        },
        "required": ["status"],
    },
    "ask": ask.OUTPUT,
    "sources": {
        "type": "object",
        "properties": {
            "collections": {"type": "array", "items": {"type": "object"}},
            "models": {"type": "array", "items": {"type": "object"}},
            "providers": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["collections", "models", "providers"],
    },
}

_TOOLS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    ("search", "Search knowledge base, web and databases", SEARCH, _SEARCH_SCHEMA),
    ("fetch", "Read a web page", FETCH, _FETCH_SCHEMA),
    ("sources", "List searchable sources", SOURCES, {"type": "object", "properties": {}}),
    ("ask", "Answer a question with cited sources", ask.ASK, ask.SCHEMA),
)


def tools() -> list[types.Tool]:
    """Every tool this server offers."""
    out = []
    for name, title, description, schema in _TOOLS:
        spec = OPERATIONS[name]
        out.append(
            types.Tool(
                name=name,
                title=title,
                description=description,
                input_schema=schema,
                output_schema=_OUTPUT[name],
                annotations=types.ToolAnnotations(
                    title=title,
                    read_only_hint=spec.read_only,
                    open_world_hint=spec.open_world,
                ),
            )
        )
    return out


NAMES = tuple(t[0] for t in _TOOLS)
