"""`unifind kb crawl` and the URL half of `kb ingest`: the web into a collection.

Both go through the operation layer (``Operations.kb``), so every page is read by the web
leg's SSRF-safe local fetcher (each hop and redirect checked) exactly as the HTTP API does.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from unifind import KnowledgeBase, load_settings
from unifind.cli._out import console, err_console, friendly_errors, print_json
from unifind.cli.kb import _caller, _print_report, kb_app
from unifind.errors import InputError
from unifind.kb.acl import Caller
from unifind.kb.ingest import FileOutcome, IngestReport

if TYPE_CHECKING:
    from unifind.ops import IngestOutput, Operations
    from unifind.ops._crawl import CrawlPage

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

AllowPrivateOpt = Annotated[
    bool,
    typer.Option("--allow-private", help="Let the fetcher reach private/loopback hosts."),
]


def split_urls(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """(paths, urls) of ``kb ingest``'s arguments; a non-http(s) URL is refused."""
    paths: list[str] = []
    urls: list[str] = []
    for arg in args:
        if not _SCHEME.match(arg):
            paths.append(arg)
        elif arg.lower().startswith(("http://", "https://")):
            urls.append(arg)
        else:
            raise InputError(f"{arg!r}: only http(s) URLs can be ingested (or give a file path)")
    return paths, urls


@asynccontextmanager
async def _operations(kb: KnowledgeBase, allow_private: bool) -> AsyncIterator[Operations]:
    """Operations over this open KB and a web leg of its own (closed here; the KB is not)."""
    from unifind.engine import Searcher
    from unifind.ops import Operations
    from unifind.web.leg import WebLeg

    settings = kb.settings
    if allow_private:
        settings = settings.model_copy(update={"web": {**settings.web, "allow_private": True}})
    leg = WebLeg.from_settings(settings)
    try:
        yield Operations(Searcher(settings, kb=kb, legs={"web": leg}))
    finally:
        await leg.aclose()


def ingest_urls(
    kb: KnowledgeBase,
    name: str,
    urls: Sequence[str],
    *,
    allow_private: bool,
    tick: Callable[[FileOutcome], None],
) -> list[FileOutcome]:
    """Ingest each URL as one document (its id is the URL); a failed fetch is one outcome."""
    from unifind.ops import TextDocumentIn

    # The CLI acts as the local operator when no principal is configured (see cli.kb);
    # KBOps hands the caller to the KB as is, which accepts the operator.
    who: Any = _caller(kb)

    async def main() -> list[FileOutcome]:
        done: list[FileOutcome] = []
        async with _operations(kb, allow_private) as ops:
            for url in urls:  # one at a time: the bar moves per page
                out = await ops.kb.ingest(name, [TextDocumentIn(url=url)], principal=who)
                done.append(_outcome(out)[0])
                tick(done[-1])
        return done

    return asyncio.run(main())


def _outcome(out: IngestOutput) -> list[FileOutcome]:
    return [
        FileOutcome(o.name, o.document_id, o.status, o.chunks, o.error)  # type: ignore[arg-type]
        for o in out.outcomes
    ]


def _bar(label: str, quiet: bool) -> Progress:
    return Progress(
        TextColumn(f"[bold]{label}[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=err_console,
        transient=True,
        disable=quiet,
    )


@kb_app.command("crawl")
def crawl(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    url: Annotated[str, typer.Argument(help="Where to start: an http(s) URL of the site.")],
    max_pages: Annotated[
        int, typer.Option("--max-pages", min=1, max=100_000, help="Pages to fetch at most.")
    ] = 50,
    allow_private: AllowPrivateOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Crawl one site into a collection (sitemap, links, robots.txt); changed pages replaced.

    Every hop and redirect goes through the SSRF-safe fetcher; pages off the start's host
    are not followed. Each page is a document whose id is its URL, so a re-crawl adds new
    pages, replaces changed ones and leaves the rest unchanged.
    Exit status: 0 when no page failed, 1 when any did, 2 for bad input.
    """
    with friendly_errors(), KnowledgeBase.open(load_settings()) as kb:
        who: Caller = _caller(kb)
        kb.collection(name, principal=who)  # unknown → error listing the existing ones
        with _bar("crawl", as_json) as bar:
            task = bar.add_task("", total=max_pages)

            def tick(page: CrawlPage) -> None:
                fetched = not (page.error or "").startswith("disallowed by robots")
                bar.update(task, advance=int(fetched), description=escape(page.url))

            async def main() -> IngestOutput:
                async with _operations(kb, allow_private) as ops:
                    p: Any = who  # the operator, as in ingest_urls
                    return await ops.kb.crawl(
                        name, url, max_pages=max_pages, progress=tick, principal=p
                    )

            out = asyncio.run(main())
    if as_json:
        print_json(out.model_dump(mode="json"))
    else:
        _print_report(IngestReport(tuple(_outcome(out))))
        if out.stopped:
            console.print(f"[yellow]note:[/yellow] {escape(out.stopped)}")
    if out.failed:
        raise typer.Exit(1)
