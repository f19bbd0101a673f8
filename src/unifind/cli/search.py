"""`unifind search`: one query over the knowledge base, the web and databases, fused."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer
from rich.markup import escape

from unifind import Searcher, SearchRequest, SearchResult, SearchResults
from unifind.cli._out import err_console, friendly_errors, print_json, print_json_line, print_result
from unifind.types import Overall


def register(app: typer.Typer) -> None:
    app.command("search")(search)


def _requests(
    query: str, kb: list[str] | None, web: bool, db: list[str] | None, opts: dict[str, Any]
) -> list[SearchRequest]:
    kb_opts = {k: v for k, v in opts.items() if k in ("mode", "rerank", "threshold")}
    common = {k: v for k, v in opts.items() if k in ("limit", "offset")}
    reqs = []
    if kb is not None or not (web or db):
        cols = tuple(c for c in kb or () if c) or None
        reqs.append(SearchRequest(type="kb", query=query, collections=cols, **kb_opts, **common))
    if web:
        reqs.append(SearchRequest(type="web", query=query, **common))
    if db:
        models = tuple(m for m in db if m) or None
        reqs.append(SearchRequest(type="db", query=query, models=models, **common))
    return reqs


async def _stream(
    searcher: Searcher, reqs: list[SearchRequest], lang: str, as_json: bool
) -> SearchResults:
    results: SearchResults | None = None
    async for ev in searcher.stream(reqs, locale=lang):
        if ev.kind == "done":
            results = ev.data["results"]
        if as_json:
            data = {k: v for k, v in ev.data.items() if k not in ("results", "result")}
            print_json_line({"event": ev.kind, "message": ev.message, "ts": ev.ts, **data})
        else:
            err_console.print(f"[dim]{ev.kind:>8}[/dim] {escape(ev.message)}")
    assert results is not None
    return results


def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    kb: Annotated[
        list[str] | None,
        typer.Option(
            "--kb",
            help="Collection to search (repeatable; all when no leg is named).",
        ),
    ] = None,
    web: Annotated[
        bool, typer.Option("--web", help="Also search the web (zero-key default).")
    ] = False,
    db: Annotated[
        list[str] | None, typer.Option("--db", help="Database model to search (repeatable).")
    ] = None,
    mode: Annotated[
        str,
        typer.Option(
            help="KB mode: auto | text | semantic | hybrid (auto = hybrid when possible)."
        ),
    ] = "auto",
    limit: Annotated[int, typer.Option(min=1, max=1000, help="Results per leg (and fused).")] = 10,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many results (paging).")] = 0,
    rerank: Annotated[
        bool, typer.Option("--rerank", help="Rerank KB hits with the offline cross-encoder.")
    ] = False,
    threshold: Annotated[
        float | None, typer.Option(help="Drop KB hits scoring below this.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result contract as JSON.")
    ] = False,
    stream: Annotated[
        bool,
        typer.Option("--stream", help="Print progress events as they happen (on stderr)."),
    ] = False,
    lang: Annotated[str, typer.Option(help="Language of progress messages: en, zh.")] = "en",
) -> None:
    """Search: ranked, cited, with every backend's status — never a silent empty list.

    With several legs (--kb/--web/--db) they run in parallel and are fused into one list
    (weighted RRF, deduplicated, provenance kept). Exit status: 0 when every backend
    answered or some did (partial), 1 when none could (unavailable), 2 for bad input.
    """
    opts = {
        "mode": mode,
        "limit": limit,
        "offset": offset,
        "rerank": rerank or None,
        "threshold": threshold,
    }
    with friendly_errors():
        reqs = _requests(query, kb, web, db, opts)
        searcher = Searcher()
        try:
            if stream:
                results = asyncio.run(_stream(searcher, reqs, lang, as_json))
            else:
                results = searcher.all_sync(reqs)
            fused = searcher.fuse(results, top_n=limit) if len(reqs) > 1 else None
        finally:
            searcher.close()
    if len(reqs) == 1:
        single = results.results[0]
        if as_json:
            print_json(single.to_dict())
        else:
            print_result(single)
        status = single.status
    else:
        merged = SearchResult(
            type=reqs[0].type,
            query=query,
            items=tuple(fused or ()),
            took_ms=results.took_ms,
            reports=tuple(r for res in results.results for r in res.reports),
            notes=tuple(n for res in results.results for n in res.notes),
        )
        if as_json:
            print_json(
                {
                    "query": query,
                    "request_id": results.request_id,
                    "status": results.status.value,
                    "items": [i.model_dump(mode="json", exclude_none=True) for i in fused or ()],
                    "results": [r.to_dict() for r in results.results],
                }
            )
        else:
            print_result(merged)
        status = results.status
    if status is Overall.UNAVAILABLE:
        raise typer.Exit(1)
