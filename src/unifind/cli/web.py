"""`unifind web search`, `unifind fetch`, `unifind providers`: the web leg from a shell."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Annotated, Any, TypeVar

import typer
from rich.markup import escape
from rich.table import Table

from unifind.cli._out import (
    CONFIG_HELP,
    cited,
    console,
    friendly_errors,
    plural,
    print_json,
    print_result,
    print_table,
)
from unifind.cli._webopts import (
    CountryOpt,
    EndDateOpt,
    ExcludeSitesOpt,
    LanguageOpt,
    PageOpt,
    SafeSearchOpt,
    StartDateOpt,
    TopicOpt,
    web_options,
)
from unifind.config import load_settings
from unifind.types import LegReport, Overall, SearchRequest, Status
from unifind.web.leg import DEFAULT_MAX_CHARS, WebLeg
from unifind.web.render import render_fetch, render_results

T = TypeVar("T")

web_app = typer.Typer(
    name="web",
    help="Search the public web through the configured provider (zero-key default: DuckDuckGo).",
    no_args_is_help=True,
)

ConfigOpt = Annotated[str | None, typer.Option("--config", metavar="FILE", help=CONFIG_HELP)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]
FallbackOpt = Annotated[
    bool | None,
    typer.Option(
        "--fallback/--no-fallback",
        help="On failure, try the next resolvable provider (default: web.fallback in config).",
    ),
]


def register(app: typer.Typer) -> None:
    """Add ``web search`` and the top-level ``fetch`` and ``providers`` commands."""
    app.add_typer(web_app, name="web")
    app.command("fetch")(fetch)
    app.command("providers")(providers)


def _leg(config: str | None, **web_overrides: Any) -> WebLeg:
    settings = load_settings(config)
    settings.web.update({k: v for k, v in web_overrides.items() if v is not None})
    return WebLeg.from_settings(settings)


def _run(leg: WebLeg, call: Callable[[WebLeg], Awaitable[T]]) -> T:
    async def main() -> T:
        try:
            return await call(leg)
        finally:
            await leg.aclose()

    return asyncio.run(main())


@web_app.command("search")
def search(
    query: Annotated[str, typer.Argument(help="What to search the web for.")],
    limit: Annotated[int, typer.Option(min=1, max=100, help="Most results to return.")] = 10,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many results (paging).")] = 0,
    provider: Annotated[
        str | None, typer.Option(help="Pin a provider (see `unifind providers`); no silent switch.")
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(help="Upstream engine for meta-search providers (serpapi, searxng)."),
    ] = None,
    sites: Annotated[
        list[str] | None, typer.Option("--sites", help="Only these hosts (repeatable or a,b).")
    ] = None,
    exclude_sites: ExcludeSitesOpt = None,
    time_range: Annotated[
        str | None, typer.Option("--time-range", help="day | week | month | year.")
    ] = None,
    start_date: StartDateOpt = None,
    end_date: EndDateOpt = None,
    language: LanguageOpt = None,
    country: CountryOpt = None,
    topic: TopicOpt = None,
    safe_search: SafeSearchOpt = None,
    page: PageOpt = None,
    timeout: Annotated[
        float | None, typer.Option(min=0.1, help="Seconds for the whole search.")
    ] = None,
    fallback: FallbackOpt = None,
    cache: Annotated[
        bool,
        typer.Option("--cache/--no-cache", help="Use answers cached from earlier calls."),
    ] = True,
    llm: Annotated[bool, typer.Option("--llm", help="Print the text an LLM would get.")] = False,
    as_json: JsonOpt = False,
    config: ConfigOpt = None,
) -> None:
    """Search the web; every provider consulted is reported, never a silent empty list.

    The provider is resolved so: a pin (--provider or web.search_provider) wins even
    without its key (then degraded/no_key naming the variable); else the first provider
    whose key is set; else SearXNG if a base URL is configured, else DuckDuckGo.

    Exit status: 0 when a provider answered (ok, or partial after a fallback), 1 when none
    could (unavailable: the report says why), 2 for bad input.
    """
    with friendly_errors():
        options = web_options(
            sites=sites, exclude_sites=exclude_sites, time_range=time_range,
            start_date=start_date, end_date=end_date, language=language, country=country,
            topic=topic, safe_search=safe_search, page=page,
        )  # fmt: skip
        req = SearchRequest.model_validate(
            {"type": "web", "query": query, "limit": limit, "offset": offset,
             "provider": provider, "engine": engine, "timeout_s": timeout, **options}
        )  # fmt: skip
        leg = _leg(config)
        if not cache:
            leg.cache = None
        result = cited(_run(leg, lambda w: w.search(req, fallback=fallback)))
    if as_json:
        print_json(result.to_dict())
    elif llm:
        console.print(escape(render_results(result)))
    else:
        print_result(result)
    if result.status is Overall.UNAVAILABLE:
        raise typer.Exit(1)


def fetch(
    urls: Annotated[list[str], typer.Argument(metavar="URL...", help="The http(s) URLs to read.")],
    max_chars: Annotated[
        int, typer.Option("--max-chars", min=1, help="Cap on the text; the overflow is announced.")
    ] = DEFAULT_MAX_CHARS,
    start_char: Annotated[
        int, typer.Option("--start-char", min=0, help="Start this far into the text (paging).")
    ] = 0,
    provider: Annotated[
        str | None, typer.Option(help="Pin a fetcher: local | jina | firecrawl | exa.")
    ] = None,
    allow_private: Annotated[
        bool | None,
        typer.Option("--allow-private", help="Let the local fetcher reach private/loopback hosts."),
    ] = None,
    timeout: Annotated[float | None, typer.Option(min=0.1, help="Seconds for the fetch.")] = None,
    fallback: FallbackOpt = None,
    as_json: JsonOpt = False,
    config: ConfigOpt = None,
) -> None:
    """Fetch a page as readable text (markdown-ish, never raw HTML), or several at once.

    PDF and Word files are read by the ingest extractor; text is capped at --max-chars and
    paged with --start-char (the next start is announced).

    The local fetcher (the zero-key default) refuses loopback, private, link-local and
    cloud-metadata targets, after DNS and on every redirect, unless --allow-private;
    HTTPS_PROXY/HTTP_PROXY are used, the target still checked first.
    Exit status: 0 all fetched, 1 any failed (the report says why), 2 bad input.
    """
    with friendly_errors():
        leg = _leg(config, allow_private=allow_private)
        got = _run(
            leg,
            lambda w: w.fetch_many(
                urls, max_chars=max_chars, provider=provider, fallback=fallback,
                timeout_s=timeout, start_char=start_char,
            ),
        )  # fmt: skip
    if as_json:
        print_json(got[0].to_dict() if len(got) == 1 else [f.to_dict() for f in got])
    else:
        text = "\n\n---\n\n".join(render_fetch(f) for f in got)
        console.print(escape(text), soft_wrap=True)
    if not all(f.ok for f in got):
        raise typer.Exit(1)


def providers(
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Ask each usable search provider one tiny query (and each fetcher --url); "
            "exit 1 when any failed.",
        ),
    ] = False,
    url: Annotated[
        str | None,
        typer.Option(metavar="URL", help="With --check: the page each usable fetcher reads."),
    ] = None,
    as_json: JsonOpt = False,
    config: ConfigOpt = None,
) -> None:
    """List every search provider and fetcher, whether it can run here and why, and which
    one automatic resolution picks (a local check of keys and URLs, no network call)."""
    if check:
        _check(url, as_json, config)
        return
    if url is not None:
        raise typer.BadParameter("--url goes with --check", param_hint="--url")
    with friendly_errors():
        leg = _leg(config)
        data: dict[str, Any] = {}
        for kind, resolver in (("search", leg.searchers), ("fetch", leg.fetchers)):
            choices, notes = resolver.candidates(resolver.pin())
            data[kind] = {
                "resolves_to": asdict(choices[0]) if choices else None,
                "notes": notes,
                "plugs": [asdict(resolver.info(n)) for n in resolver.names()],
            }
    if as_json:
        print_json(data)
        return
    for kind, section in data.items():
        table = Table(title=f"{kind} plugs", box=None, header_style="bold", title_justify="left")
        for col in ("name", "usable", "key", "why", "base URL"):
            table.add_column(col)
        for p in section["plugs"]:
            mark = "[green]yes[/green]" if p["usable"] else "[red]no[/red]"
            table.add_row(
                p["name"], mark, p["key_env"] or "-", escape(p["why"]), escape(p["base_url"])
            )
        print_table(table)
        chosen = section["resolves_to"]
        line = f"{chosen['name']} ({chosen['note']})" if chosen else "nothing usable"
        console.print(f"[bold]{kind} resolves to:[/bold] {escape(line)}")
        for note in section["notes"]:
            console.print(f"[yellow]note:[/yellow] {escape(note)}")
        console.print()


def _check(url: str | None, as_json: bool, config: str | None) -> None:
    """Ask every usable plug for real; one row each: ok, or failed and why."""
    with friendly_errors():
        leg = _leg(config)
        leg.cache = None  # a check must reach the provider, not an answer kept from before
        rows = _run(leg, lambda w: _probe(w, url))
    if as_json:
        print_json(rows)
    else:
        for row in rows:
            mark = "[green]ok[/green]    " if row["ok"] else "[red]failed[/red]"
            name = f"{row['kind']} {row['name']}"
            console.print(f"{mark} {escape(name):<22} {escape(row['detail'])}")
        failed = sum(not row["ok"] for row in rows)
        console.print(f"{plural(len(rows) - failed, 'provider')} ok, {failed} failed")
    if any(not row["ok"] for row in rows):
        raise typer.Exit(1)


async def _probe(leg: WebLeg, url: str | None) -> list[dict[str, Any]]:
    async def search(name: str) -> dict[str, Any]:
        req = SearchRequest(type="web", query="unifind", limit=1, provider=name)
        return _row("search", (await leg.search(req, fallback=False)).reports[0])

    async def fetch(name: str) -> dict[str, Any]:
        got = await leg.fetch(url or "", max_chars=200, provider=name, fallback=False)
        return _row("fetch", got.report)

    jobs = [search(n) for n in leg.searchers.names() if leg.searchers.info(n).usable]
    if url is not None:
        jobs += [fetch(n) for n in leg.fetchers.names() if leg.fetchers.info(n).usable]
    return list(await asyncio.gather(*jobs))


def _row(kind: str, report: LegReport) -> dict[str, Any]:
    ok = report.status is Status.OK
    if ok:
        detail = f"answered in {report.took_ms:.0f} ms"
    else:
        reason = report.reason.value if report.reason else report.status.value
        detail = f"{reason}: {report.error or report.note or 'no answer'}"
    return {"kind": kind, "name": report.backend, "ok": ok, "detail": detail,
            "took_ms": report.took_ms}  # fmt: skip
