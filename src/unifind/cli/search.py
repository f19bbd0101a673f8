"""`unifind search`: one request over the knowledge base (web and db join with their legs)."""

from __future__ import annotations

from typing import Annotated

import typer

from unifind import SearchRequest, Searcher
from unifind.cli._out import friendly_errors, print_json, print_result
from unifind.types import Overall


def register(app: typer.Typer) -> None:
    app.command("search")(search)


def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    kb: Annotated[
        list[str] | None, typer.Option("--kb", help="Collection to search (repeatable; default all).")
    ] = None,
    mode: Annotated[
        str, typer.Option(help="auto | text | semantic | hybrid (auto = hybrid when possible).")
    ] = "auto",
    limit: Annotated[int, typer.Option(min=1, max=1000, help="Results per page.")] = 10,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many results (paging).")] = 0,
    rerank: Annotated[
        bool, typer.Option("--rerank", help="Rerank with the offline cross-encoder.")
    ] = False,
    threshold: Annotated[
        float | None, typer.Option(help="Drop results scoring below this.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result contract as JSON.")] = False,
) -> None:
    """Search the knowledge base: ranked, cited, with every backend's status.

    Exit status: 0 when every backend answered (or some did: partial), 1 when none could
    (unavailable), 2 for bad input.
    """
    with friendly_errors():
        req = SearchRequest(
            type="kb", query=query, collections=tuple(kb) if kb else None, mode=mode,  # type: ignore[arg-type]
            limit=limit, offset=offset, rerank=rerank or None, threshold=threshold,
        )  # fmt: skip
        searcher = Searcher()
        try:
            result = searcher.search_sync(req)
        finally:
            searcher.close()
    if as_json:
        print_json(result.to_dict())
    else:
        print_result(result)
    if result.status is Overall.UNAVAILABLE:
        raise typer.Exit(1)
