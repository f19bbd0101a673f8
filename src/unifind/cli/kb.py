"""`unifind kb ...`: collections, ingest, documents on the configured store.

These commands act as the configured ``principal`` when there is one; without one they
act as the local operator of the store, who sees and changes every tenant's collections
(creating them for tenants is how a server's collections get provisioned).
"""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Column, Table

from unifind import KnowledgeBase, load_settings
from unifind.cli._out import (
    console,
    err_console,
    friendly_errors,
    plural,
    print_json,
    print_table,
)
from unifind.errors import InputError, UnknownName
from unifind.kb.acl import OPERATOR, Caller, acl_of
from unifind.kb.base import CollectionInfo
from unifind.kb.extract import supported_types
from unifind.kb.ingest import FileOutcome, IngestReport, expand_paths, locate

kb_app = typer.Typer(
    help="Knowledge-base collections: create, ingest, crawl, list, delete.", no_args_is_help=True
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
Name = Annotated[str, typer.Argument(help="Collection name.")]


def register(app: typer.Typer) -> None:
    from unifind.cli import kb_graph, kb_migrate, kb_web  # noqa: F401 - register on kb_app

    app.add_typer(kb_app, name="kb")


def _open() -> KnowledgeBase:
    return KnowledgeBase.open(load_settings())


def _caller(kb: KnowledgeBase) -> Caller:
    configured = kb.settings.principal
    return configured if configured is not None else OPERATOR


@kb_app.command("create")
def create(
    name: Name,
    embedder: Annotated[
        str, typer.Option(help="Embedder spec: bge-small-en-v1.5, onnx:/dir, openai:model.")
    ] = "default",
    no_embedder: Annotated[
        bool, typer.Option("--no-embedder", help="Lexical only (no vectors).")
    ] = False,
    description: Annotated[str, typer.Option(help="What the collection holds.")] = "",
    exist_ok: Annotated[bool, typer.Option("--exist-ok", help="No error if it exists.")] = False,
    tenant: Annotated[
        str | None, typer.Option(help="Owner tenant: only its API keys see it (default: shared).")
    ] = None,
    role: Annotated[
        list[str] | None, typer.Option("--role", help="Only these roles of the tenant see it.")
    ] = None,
    user: Annotated[
        list[str] | None, typer.Option("--user", help="Only these users of the tenant see it.")
    ] = None,
    graph: Annotated[
        bool,
        typer.Option("--graph", help="Keep entities at ingest: a graph arm and `kb graph`."),
    ] = False,
    store: Annotated[
        str | None,
        typer.Option(
            metavar="SPEC",
            help="Keep this collection in another store: postgresql://user@host/db, "
            "qdrant://folder-or-host:port, milvus://..., sqlite:///path.db or a path "
            "(default: the configured kb.store). Give passwords by PGPASSWORD etc.: a URL's "
            "is stored in the catalog (never printed).",
        ),
    ] = None,
) -> None:
    """Create a collection in the configured store (the embedded SQLite file by default),
    or with --store in another one; searches reach it the same way."""
    with friendly_errors(), _open() as kb:
        if not exist_ok and _exists(kb, name):
            raise InputError(f"collection {name!r} already exists (pass --exist-ok to reuse it)")
        info = kb.create(
            name,
            embedder=None if no_embedder else embedder,
            description=description,
            exist_ok=exist_ok,
            tenant=tenant,
            roles=role or (),
            users=user or (),
            principal=_caller(kb),
            metadata={"graph": True} if graph else None,
            store=store,
        )
        where = kb.location(info.name, principal=_caller(kb))
        console.print(
            f"created collection [bold]{escape(info.name)}[/bold] "
            f"(embedder: {info.embedder or 'none'}, analyzer: {info.analyzer}, "
            f"owner: {escape(_owner(info))}, store: {escape(where)})"
        )


@kb_app.command("ingest")
def ingest(
    name: Name,
    paths: Annotated[
        list[str],
        typer.Argument(
            metavar="PATH|URL...",
            help="Files and folders (txt, md, html, pdf, docx), and http(s) URLs.",
        ),
    ],
    allow_private: Annotated[
        bool, typer.Option("--allow-private", help="Let the fetcher reach private/loopback hosts.")
    ] = False,
    include: Annotated[
        list[str] | None,
        typer.Option(
            metavar="GLOB",
            help="Inside folders, only files matching (name or path below the folder; "
            "repeatable), e.g. '*.md' or 'guides/**'.",
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(metavar="GLOB", help="Inside folders, leave out files matching (repeatable)."),
    ] = None,
    sync: Annotated[
        bool,
        typer.Option(
            "--sync",
            help="Also remove the documents of files these folders no longer hold (or that "
            "--include/--exclude now leave out); a file that fails to read is kept.",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Ingest files and URLs; a bad file or page is reported by name and the rest ingested.

    A URL is read by the SSRF-safe fetcher (PDFs included) and kept under its URL as id.
    A file is shown by its path relative to what was given (handbook/refunds.md).
    """
    from unifind.cli.kb_web import ingest_urls, split_urls

    with friendly_errors(), _open() as kb:
        kb.collection(name, principal=_caller(kb))  # unknown → error listing the existing ones
        local, urls = split_urls(paths)
        found, _missing = expand_paths(local)
        files = locate(local, found, include or (), exclude or ()).files
        with Progress(
            TextColumn("[bold]ingest[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[rate]}"),
            TextColumn("{task.description}"),
            console=err_console,
            transient=True,
            disable=as_json,
        ) as bar:
            task = bar.add_task("", total=len(files) + len(_missing) + len(urls), rate="")
            started, written = time.monotonic(), [0]

            def tick(outcome: FileOutcome) -> None:
                label = outcome.path if outcome.path in urls else Path(outcome.path).name
                written[0] += outcome.chunks
                rate = chunk_rate(written[0], time.monotonic() - started)
                bar.update(task, advance=1, description=escape(label), rate=rate)

            report = IngestReport(())
            if local:
                report = kb.ingest(
                    name, local, progress=None if as_json else tick, principal=_caller(kb),
                    include=include or (), exclude=exclude or (), sync=sync,
                )  # fmt: skip
            if urls and not report.stopped:
                fetched = ingest_urls(kb, name, urls, allow_private=allow_private, tick=tick)
                report = replace(report, outcomes=report.outcomes + tuple(fetched))
            elif urls:  # the batch stopped (a full disk): the URLs were not tried either
                report = replace(report, not_tried=report.not_tried + tuple(urls))
    if as_json:
        outcomes = [asdict(o) for o in report.outcomes]
        stop = {"stopped": report.stopped, "not_tried": list(report.not_tried)}
        print_json({"outcomes": outcomes, **_counts(report), "excluded": report.excluded,
                    "removed": len(report.removed), "removed_documents": list(report.removed),
                    **stop})  # fmt: skip
    else:
        _print_report(report)
        if report.excluded:
            console.print(f"left out {plural(report.excluded, 'file')} by --include/--exclude")
        if sync:
            _print_removed(report)
    if report.failed or report.stopped:
        raise typer.Exit(1)


def chunk_rate(chunks: int, seconds: float) -> str:
    """The progress bar's throughput: chunks written so far and per second."""
    per_s = chunks / seconds if seconds > 0 else 0.0
    return f"{chunks:,} chunks · {per_s:,.1f} chunks/s"


def _print_removed(report: IngestReport) -> None:
    for doc in report.removed:
        console.print(f"[magenta]{'removed':>9}[/magenta]  {escape(doc)}")
    note = " (not run: the batch stopped)" if report.stopped else ""
    console.print(f"removed: {len(report.removed)}{note}")


def _exists(kb: KnowledgeBase, name: str) -> bool:
    try:
        kb.collection(name, principal=_caller(kb))
    except UnknownName:
        return False  # absent, or another tenant's: create() says which
    return True


def _owner(info: CollectionInfo) -> str:
    """``shared``, or the owner tenant with the roles and users allowed in it."""
    acl = acl_of(info)
    limits = [f"roles {', '.join(acl.roles)}"] * bool(acl.roles)
    limits += [f"users {', '.join(acl.users)}"] * bool(acl.users)
    return f"{acl.owner} ({'; '.join(limits)})" if limits else acl.owner


def _counts(report: IngestReport) -> dict[str, int]:
    keys = ("added", "replaced", "unchanged", "failed", "skipped")
    return {k: getattr(report, k) for k in keys}


def _print_report(report: IngestReport) -> None:
    style = {"added": "green", "replaced": "cyan", "unchanged": "dim", "failed": "red"}
    for o in report.outcomes:
        if o.reason == "unsupported":
            continue  # counted below: a folder of images needn't list every one
        s = style.get(o.status, "yellow")
        detail = plural(o.chunks, "chunk") if o.error is None else o.error
        console.print(f"[{s}]{o.status:>9}[/{s}]  {escape(o.path)}  [dim]{escape(detail)}[/dim]")
    c = _counts(report)
    console.print(", ".join(f"{v} {k}" for k, v in c.items()))
    if report.unsupported:
        console.print(f"skipped {report.unsupported} unsupported (read: {supported_types()})")
    if report.stopped:
        err_console.print(
            f"[red]stopped:[/red] {escape(report.stopped)} ({len(report.not_tried)} not tried)"
        )


@kb_app.command("list")
def list_(as_json: JsonOpt = False) -> None:
    """List collections with their owner, store, embedder and sizes."""
    with friendly_errors(), _open() as kb:
        infos = kb.collections(principal=_caller(kb))
        where = {i.name: kb.location(i.name, principal=_caller(kb)) for i in infos}
        lang = str(kb.settings.telemetry.lang)  # headers in the progress lines' language
    if as_json:
        print_json([{**asdict(i), "owner": acl_of(i).owner, "store": where[i.name]} for i in infos])
        return
    if not infos:
        console.print("no collections yet: [bold]unifind kb create NAME[/bold]")
        return
    # A store is a path or URL: folded onto more lines rather than cut to "sqlite://…".
    store = Column("store", overflow="fold")
    table = Table(
        "name", "owner", store, "documents", "chunks", "embedder", "analyzer", "description",
        box=None,
    )  # fmt: skip
    for i in infos:
        table.add_row(
            escape(i.name),
            escape(_owner(i)),
            escape(where[i.name]),
            str(i.documents),
            str(i.chunks),
            i.embedder or "none",
            i.analyzer,
            escape(i.description),
        )
    print_table(table, lang=lang)


@kb_app.command("docs")
def docs(
    name: Name,
    limit: Annotated[int, typer.Option(min=1, help="How many documents.")] = 100,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many.")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """List a collection's documents."""
    with friendly_errors(), _open() as kb:
        found = kb.documents(name, limit=limit, offset=offset, principal=_caller(kb))
        lang = str(kb.settings.telemetry.lang)
    if as_json:
        print_json([asdict(d) for d in found])
        return
    table = Table("document_id", "title", "chunks", "chars", "updated", box=None)
    for d in found:
        table.add_row(
            escape(d.document_id), escape(d.title), str(d.chunks), str(d.text_chars), d.updated_at
        )
    print_table(table, lang=lang)


@kb_app.command("rm")
def rm(
    name: Name,
    document_id: Annotated[
        str,
        typer.Argument(
            metavar="DOCUMENT",
            help="Document id (see kb docs); a file's may be given relative to this folder.",
        ),
    ],
) -> None:
    """Remove one document from a collection (from every index)."""
    with friendly_errors(), _open() as kb:
        for candidate in _document_ids(document_id):
            if kb.remove(name, candidate, principal=_caller(kb)):
                console.print(f"removed {escape(candidate)}")
                return
    err_console.print(
        f"[red]error:[/red] no document {document_id!r} in {name!r} (see: unifind kb docs {name})"
    )
    raise typer.Exit(2)


def _document_ids(given: str) -> list[str]:
    """``given``, then the resolved absolute path it may name: files are ingested under
    theirs, so ``kb rm docs ./a.md`` finds ``/home/me/a.md``."""
    try:
        path = str(Path(given).expanduser().resolve())
    except (OSError, RuntimeError):  # a link loop or an unreadable folder: not a file's id
        return [given]
    return list(dict.fromkeys([given, path]))


@kb_app.command("delete")
def delete(
    name: Name,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Don't ask for confirmation.")] = False,
) -> None:
    """Delete a collection and all its documents."""
    with friendly_errors(), _open() as kb:
        who = _caller(kb)
        info = kb.collection(name, principal=who)
        if not yes:
            typer.confirm(f"delete {name!r} and its {plural(info.documents, 'document')}?",
                          abort=True)  # fmt: skip
        kb.delete(name, principal=who)
    console.print(f"deleted collection {escape(name)}")
