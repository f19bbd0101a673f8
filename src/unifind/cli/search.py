"""`unifind search`: one query over the knowledge base, the web and databases, fused.

A thin mapping of :meth:`unifind.ops.Operations.search`: the options become a
:class:`~unifind.ops.SearchInput`, the output is rendered in the asked format.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal

import typer
from rich.markup import escape

from unifind.cli._out import (
    CONFIG_HELP,
    err_console,
    friendly_errors,
    print_json,
    print_json_line,
    print_result,
    settings_for,
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
from unifind.errors import InputError
from unifind.ops import Operations, SearchInput, SearchOutput
from unifind.ops.models import DBSource, KBSource, Sources, WebSource
from unifind.trace import MESSAGES, label, message, pick_locale
from unifind.types import Overall, SearchResult

Format = Literal["text", "json", "ndjson", "references", "prompt"]
FORMATS: tuple[Format, ...] = ("text", "json", "ndjson", "references", "prompt")


def register(app: typer.Typer) -> None:
    app.command("search")(search)


def _filters(pairs: list[str] | None) -> dict[str, Any] | None:
    """``["lang=en", "tag=a", "tag=b", "year=2024"]`` → ``{"lang": "en", "tag": ["a", "b"],
    "year": 2024}``: a repeated key is any-of; a value that is a JSON scalar keeps its type."""
    out: dict[str, Any] = {}
    for pair in pairs or ():
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--filter {pair!r}: write KEY=VALUE, e.g. --filter lang=en")
        try:
            value = json.loads(raw)
        except ValueError:
            value = raw
        if isinstance(value, dict | list):
            value = raw  # only scalars are filter values; a bracket is part of the text
        key = key.strip()
        if key in out:
            prev = out[key]
            out[key] = [*prev, value] if isinstance(prev, list) else [prev, value]
        else:
            out[key] = value
    return out or None


def _db_url(db: str | None) -> str | None:
    """The database URL ``--db`` names; None for ``default`` (config's db.url)."""
    if db is None or db.strip() in ("", "default"):
        return None
    if ":" not in db:
        raise InputError(
            f"--db takes a database URL (sqlite:///shop.db, postgresql://...) or 'default'; "
            f"to search the model {db!r}, use --model {db}"
        )
    return db


def _sources(
    kb: list[str] | None,
    kb_opts: dict[str, Any],
    web: dict[str, Any] | None,
    db: dict[str, Any] | None,
) -> Sources:
    """The legs to search: each named by its own options; the KB alone when none is."""
    want_kb = kb is not None or kb_opts.get("filters") is not None or (web is None and db is None)
    cols = [c for c in kb or () if c] or None
    opts = {k: v for k, v in kb_opts.items() if v is not None}
    return Sources(
        kb=KBSource(collections=cols, **opts) if want_kb else None,
        web=WebSource(**web) if web is not None else None,
        db=DBSource(**db) if db is not None else None,
    )


def _leg(named: bool, **opts: Any) -> dict[str, Any] | None:
    """A leg's options (those given), or None when neither they nor its flag name it."""
    given = {k: v for k, v in opts.items() if v is not None}
    return given if named or given else None


def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for.")],
    kb: Annotated[
        list[str] | None,
        typer.Option(
            "--kb",
            metavar="COLLECTION",
            help="Search this collection (repeatable; '' = every collection). The knowledge "
            "base is searched alone when no leg is named.",
        ),
    ] = None,
    web: Annotated[
        bool, typer.Option("--web", help="Also search the web (zero-key default: DuckDuckGo).")
    ] = False,
    provider: Annotated[
        str | None,
        typer.Option(metavar="NAME", help="Web: pin this provider (see `unifind providers`)."),
    ] = None,
    sites: Annotated[
        list[str] | None,
        typer.Option("--sites", metavar="HOST", help="Web: only these hosts (repeatable or a,b)."),
    ] = None,
    exclude_sites: ExcludeSitesOpt = None,
    time_range: Annotated[
        str | None,
        typer.Option("--time-range", metavar="day|week|month|year", help="Web: only this recent."),
    ] = None,
    start_date: StartDateOpt = None,
    end_date: EndDateOpt = None,
    language: LanguageOpt = None,
    country: CountryOpt = None,
    topic: TopicOpt = None,
    safe_search: SafeSearchOpt = None,
    page: PageOpt = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help="Search this database (SQLAlchemy URL; 'default' = db.url in the config, "
            "else the demo shop).",
        ),
    ] = None,
    models: Annotated[
        str | None,
        typer.Option(metavar="FILE", help="Database: the models YAML file (default: db.models)."),
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", metavar="NAME", help="Database: search this model (repeat)."),
    ] = None,
    mode: Annotated[
        str,
        typer.Option(
            metavar="auto|text|semantic|hybrid",
            help="Knowledge base: how to match (auto = hybrid when the collection has vectors).",
        ),
    ] = "auto",
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            metavar="KEY=VALUE",
            help="Knowledge base: only documents whose metadata KEY is VALUE (repeatable; a "
            "repeated KEY is any-of; 2024, true, null are JSON, '\"2024\"' a string).",
        ),
    ] = None,
    cache: Annotated[
        bool,
        typer.Option("--cache/--no-cache", help="Web: use answers cached from earlier calls."),
    ] = True,
    limit: Annotated[int, typer.Option(min=1, max=100, help="Results per leg and fused.")] = 10,
    rerank: Annotated[
        bool, typer.Option("--rerank", help="Knowledge base: rerank with the cross-encoder.")
    ] = False,
    threshold: Annotated[
        float | None,
        typer.Option(help="Knowledge base: drop hits scoring below this, on the 0-1 score scale."),
    ] = None,
    by_document: Annotated[
        bool,
        typer.Option(
            "--by-document", help="Knowledge base: each document once; --limit counts documents."
        ),
    ] = False,
    request_id: Annotated[
        str | None,
        typer.Option(
            "--request-id",
            metavar="ID",
            help="Continue this request's citation ids, and record the search (`unifind logs`).",
        ),
    ] = None,
    chat_id: Annotated[
        str | None,
        typer.Option("--chat-id", metavar="ID", help="The chat the recorded search belongs to."),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="text (for people), json (the result contract), ndjson (one item per line), "
            "references (the <references> XML) or prompt (the references and the citation "
            "prompt, to pipe into an LLM).",
        ),
    ] = "text",
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    stream: Annotated[
        bool, typer.Option("--stream", help="Print progress as it happens (on stderr).")
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            metavar="en|zh", help="Language of progress messages (default: telemetry.lang, en)."
        ),
    ] = None,
    config: Annotated[str | None, typer.Option(metavar="FILE", help=CONFIG_HELP)] = None,
) -> None:
    """Search: ranked, cited, with every backend's status — never a silent empty list.

    Name the legs with --kb, --web (or a web option) and --db/--model (or --models); they
    run in parallel and are fused into one list (weighted RRF, deduplicated, provenance
    kept), each item with its citation id. Exit status: 0 when every backend answered or
    some did (partial), 1 when none could (unavailable), 2 for bad input.
    """
    with friendly_errors():
        if not query.strip():  # before SearchInput, whose length check would speak first
            raise InputError("the query is empty: say what to search for")
        if fmt not in FORMATS:
            raise InputError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
        if as_json and fmt not in ("text", "json"):
            raise InputError(f"--json means --format json; it can't go with --format {fmt}")
        shown: Format = "json" if as_json else fmt  # type: ignore[assignment]
        site_list = [s.strip() for raw in sites or () for s in raw.split(",") if s.strip()]
        url = _db_url(db)
        inp = SearchInput(
            query=query,
            sources=_sources(
                kb,
                {"mode": mode, "threshold": threshold, "rerank": rerank or None,
                 "filters": _filters(filters), "group": "document" if by_document else None},
                _leg(web, provider=provider, **web_options(
                    sites=site_list or None, exclude_sites=exclude_sites, time_range=time_range,
                    start_date=start_date, end_date=end_date, language=language,
                    country=country, topic=topic, safe_search=safe_search, page=page)),
                _leg(db is not None or models is not None, models=model or None),
            ),
            limit=limit,
            request_id=request_id,
            chat_id=chat_id,
            references=shown in ("references", "prompt"),
        )  # fmt: skip
        settings = settings_for(config, db_url=url, db_models=models)
        if not cache:
            settings.web["cache"] = False  # the web leg opens no cache: every call goes out
        if lang is not None and pick_locale(lang) != lang.replace("_", "-").split("-")[0].lower():
            raise InputError(f"--lang {lang!r}: choose one of {', '.join(MESSAGES)}")
        lang = lang or settings.telemetry.lang
        out = asyncio.run(_run(settings, inp, stream, lang, shown != "text"))
    _render(out, query, shown, pick_locale(lang))
    if out.status is Overall.UNAVAILABLE:
        raise typer.Exit(1)


async def _run(settings: Any, inp: SearchInput, stream: bool, lang: str, jsonl: bool) -> Any:
    from unifind import Searcher

    searcher = Searcher(settings)
    ops = Operations(searcher)
    try:
        if not stream:
            return await ops.search(inp)
        out, said = None, ""
        async for ev in ops.search_stream(inp, locale=lang):
            if ev.kind == "done":
                out = ev.data["output"]
            elif jsonl:
                print_json_line({"event": ev.kind, "message": ev.message, **ev.data})
            elif ev.kind == "plan":
                _progress("loading", message(lang, "loading", n=len(ev.data["legs"])), lang)
            elif ev.message and ev.message != said:  # one line per leg, not per report
                _progress(ev.kind, said := ev.message, lang)
        if out is not None and not jsonl:
            _progress(*_summary(out, lang), lang)
            _progress("done", message(lang, "done"), lang)
        return out
    finally:
        await searcher.aclose()


def _progress(kind: str, text: str, lang: str) -> None:
    err_console.print(f"[dim]{label(lang, 'kind', kind):>8}[/dim] {escape(text)}")


def _summary(out: SearchOutput, lang: str) -> tuple[str, str]:
    """The closing progress line: found N, partial, failed or none (localised)."""
    failed = sum(leg.status is not Overall.OK for leg in out.legs)
    n, total = len(out.items), len(out.legs)
    if out.status is Overall.UNAVAILABLE:
        return "failed", message(lang, "failed", total=total)
    if out.status is Overall.PARTIAL:
        return "partial", message(lang, "partial", n=n, failed=failed, total=total)
    return ("found", message(lang, "found", n=n)) if n else ("none", message(lang, "none"))


def _render(out: SearchOutput, query: str, fmt: Format, lang: str) -> None:
    renderers: dict[str, Callable[[SearchOutput], None]] = {
        "json": lambda o: print_json(o.model_dump(mode="json", exclude_none=True)),
        "ndjson": _ndjson,
        "references": lambda o: _text(o.references.xml if o.references else ""),
        # The prompt speaks of "the references above": they come first.
        "prompt": lambda o: _text(
            f"{o.references.xml}\n\n{o.references.prompt}" if o.references else ""
        ),
    }
    if fmt == "text":
        print_result(_as_result(out, query), lang)
        return
    renderers[fmt](out)
    if fmt != "json":
        _status_to_stderr(out, lang)


def _text(text: str) -> None:
    sys.stdout.write(text.rstrip("\n") + "\n")


def _ndjson(out: SearchOutput) -> None:
    for item in out.items:
        line = json.dumps(item.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
        sys.stdout.write(line + "\n")


def _status_to_stderr(out: SearchOutput, lang: str) -> None:
    """Pipe formats carry items only: what failed, or that nothing matched, goes to stderr."""
    for rep in out.reports:
        if rep.status.value == "degraded":
            reason = label(lang, "reason", rep.reason.value if rep.reason else "error")
            where = f"{label(lang, 'leg', rep.leg)}/{rep.backend}"
            err_console.print(f"[yellow]{escape(where)}:[/yellow] {escape(reason)}: "
                              f"{escape(rep.error or '')}")  # fmt: skip
    for note in out.notes:
        err_console.print(f"[yellow]{escape(message(lang, 'note', text=note))}[/yellow]")
    if out.status is not Overall.OK or not out.items:
        line = message(lang, "status_request", status=out.status.value, request=out.request_id)
        err_console.print(escape(line))


def _as_result(out: SearchOutput, query: str) -> SearchResult:
    """The output as one result, for the human listing (the fused items, every report)."""
    single = out.legs[0] if len(out.legs) == 1 else None
    return SearchResult(
        type=out.legs[0].type if out.legs else "kb",  # type: ignore[arg-type]
        query=query,
        items=tuple(out.items),
        reports=tuple(out.reports),
        notes=tuple(out.notes),
        took_ms=out.took_ms,
        total=single.total if single else None,
    )
