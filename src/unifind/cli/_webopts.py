"""The web options that `unifind search` shares with `unifind web search`.

Kept apart from :mod:`unifind.cli.web` so that a search that names no web option doesn't
import the web leg (httpx, the providers) to build its help and its options (#18).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

ExcludeSitesOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude-sites",
        metavar="HOST",
        help="Web: leave out these hosts (repeatable or a,b; wildcards like *.example.com).",
    ),
]
StartDateOpt = Annotated[
    str | None,
    typer.Option("--start-date", metavar="YYYY-MM-DD", help="Web: published on or after."),
]
EndDateOpt = Annotated[
    str | None,
    typer.Option("--end-date", metavar="YYYY-MM-DD", help="Web: published on or before."),
]
LanguageOpt = Annotated[
    str | None,
    typer.Option("--language", metavar="CODE", help="Web: results in this language (en, de)."),
]
CountryOpt = Annotated[
    str | None,
    typer.Option("--country", metavar="CODE", help="Web: results for this country (us, de)."),
]
TopicOpt = Annotated[
    str | None, typer.Option("--topic", metavar="general|news", help="Web: news search.")
]
SafeSearchOpt = Annotated[
    str | None,
    typer.Option("--safe-search", metavar="off|moderate|strict", help="Web: safe search level."),
]
PageOpt = Annotated[
    int | None, typer.Option("--page", min=1, max=1000, help="Web: 1-based page of results.")
]


def host_list(raw: list[str] | None) -> list[str] | None:
    """``--sites a,b --sites c`` → ``["a", "b", "c"]``; None when none given."""
    hosts = [s.strip() for item in raw or () for s in item.split(",") if s.strip()]
    return hosts or None


def web_options(**given: Any) -> dict[str, Any]:
    """The web options given on the command line (lists split), for SearchRequest/WebSource."""
    for key in ("sites", "exclude_sites"):
        if key in given:
            given[key] = host_list(given[key])
    return {k: v for k, v in given.items() if v is not None}
