"""`unifind logs`: the recorded searches (a search made with a request id is recorded).

Like the other commands, these act as the configured ``principal``: they see the records
of its tenant, or the tenant-less ones when none is configured.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from unifind.cli._out import (
    CONFIG_HELP,
    console,
    friendly_errors,
    plural,
    print_json,
    print_table,
    settings_for,
)

logs_app = typer.Typer(help="Recorded searches: list, show, delete.", no_args_is_help=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
ConfigOpt = Annotated[str | None, typer.Option("--config", metavar="FILE", help=CONFIG_HELP)]
OFF = "search records are off (records: false in the config); nothing is recorded"


def register(app: typer.Typer) -> None:
    app.add_typer(logs_app, name="logs")


@contextmanager
def _ops(config: str | None) -> Iterator[Any]:
    """The operation layer over the configured records; exits 1 when records are off."""
    from unifind import Searcher
    from unifind.ops import Operations

    searcher = Searcher(settings_for(config))
    try:
        if searcher.records is None:
            console.print(OFF)
            raise typer.Exit(1)
        yield Operations(searcher)
    finally:
        searcher.close()


@logs_app.command("list")
def list_(
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="How many, newest first.")] = 20,
    as_json: JsonOpt = False,
    config: ConfigOpt = None,
) -> None:
    """List recent searches: request id, time, query, status, references."""
    with friendly_errors(), _ops(config) as ops:
        who = ops.settings.principal
        records = ops.searcher.records.recent(limit, principal=who)
        lang = str(ops.settings.telemetry.lang)  # headers in the progress lines' language
    if as_json:
        print_json([_summary(r) for r in records])
        return
    if not records:
        console.print("no recorded searches (a search is recorded when it has a --request-id)")
        return
    from unifind.trace import label

    table = Table("request", "time", "leg", "query", "status", "references", "chat", box=None)
    for r in records:
        table.add_row(
            escape(r.request_id),
            _when(r.created_at),
            label(lang, "leg", r.leg),
            escape(_short(r.query) if console.is_terminal else r.query),  # piped: whole
            label(lang, "status", r.status.value),
            str(len(r.references)),
            escape(r.chat_id or ""),
        )
    print_table(table, lang=lang)


@logs_app.command("show")
def show(
    request_id: Annotated[str, typer.Argument(metavar="REQUEST_ID", help="See `logs list`.")],
    as_json: JsonOpt = False,
    config: ConfigOpt = None,
) -> None:
    """Show the searches of a request and the references they returned."""
    with friendly_errors(), _ops(config) as ops:
        records = ops.searches(request_id)
    if as_json:
        print_json([r.model_dump(mode="json", exclude_none=True) for r in records])
        return
    if not records:
        console.print(f"no recorded search with request id {escape(request_id)!r}")
        raise typer.Exit(1)
    for r in records:
        console.rule(f"[bold]{escape(r.query)}[/bold]  [dim]{r.leg} · {_when(r.created_at)}[/dim]")
        took = f" · {r.duration_ms:.0f} ms" if r.duration_ms is not None else ""
        chat = f" · chat {escape(r.chat_id)}" if r.chat_id else ""
        console.print(
            f"status {r.status.value}{took}{chat} · {plural(len(r.references), 'reference')}"
        )
        if r.error:
            console.print(f"[red]error:[/red] {escape(r.error)}")
        for ref in r.references:
            where = ref.url or ref.document_id or ref.record_id or ""
            console.print(
                f"  [magenta]{escape(f'[{ref.citation_id or ref.index}]')}[/magenta] "
                f"[bold]{escape(ref.title or '(untitled)')}[/bold] [blue]{escape(where)}[/blue]"
            )


@logs_app.command("delete")
def delete(
    chat: Annotated[
        str, typer.Option("--chat", metavar="CHAT_ID", help="Delete every search of this chat.")
    ],
    config: ConfigOpt = None,
) -> None:
    """Delete the recorded searches of a chat (they stop being listed and shown)."""
    with friendly_errors(), _ops(config) as ops:
        n = ops.delete_searches(chat)
    console.print(
        f"deleted {plural(n, 'recorded search', 'recorded searches')} of chat {escape(chat)}"
    )


def _summary(r: Any) -> dict[str, Any]:
    return {
        "request_id": r.request_id,
        "chat_id": r.chat_id,
        "created_at": r.created_at.isoformat() if r.created_at else None,
        "leg": r.leg,
        "query": r.query,
        "status": r.status.value,
        "references": len(r.references),
        "duration_ms": r.duration_ms,
    }


def _when(created_at: Any) -> str:
    return created_at.astimezone().strftime("%Y-%m-%d %H:%M:%S") if created_at else ""


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
