"""Shared CLI output: JSON, result listings, leg reports, errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from unifind.errors import InputError, UnifindError, describe
from unifind.types import Overall, SearchResult, Status

if TYPE_CHECKING:
    from unifind.config import Settings

#: The help of every command's ``--config``: where settings come from, and what no flag sets.
CONFIG_HELP = (
    "YAML config file (default: $UNIFIND_CONFIG, else ./unifind.yaml, else "
    "~/.config/unifind/config.yaml). Who you are (principal: tenant, user, roles) is set "
    "there, never by a flag."
)

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

F = TypeVar("F", bound=Callable[..., Any])

_STATUS_STYLE = {
    Status.OK: "green",
    Status.DEGRADED: "red",
    Status.DISABLED: "dim",
    Status.SKIPPED: "yellow",
    Overall.OK: "green",
    Overall.PARTIAL: "yellow",
    Overall.UNAVAILABLE: "red",
}


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 result``, ``2 results``, ``0 results`` (``many`` for an irregular plural)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def settings_for(
    config: str | None = None, *, db_url: str | None = None, db_models: str | None = None
) -> Settings:
    """The settings of ``--config`` (else the discovered file), with ``--db``/``--models``."""
    from unifind.config import Settings, load_settings

    settings = load_settings(config)
    if not (db_url or db_models):
        return settings
    if db_models and not Path(db_models).is_file():
        raise InputError(f"--models {db_models}: no such file")
    data = settings.model_dump()
    db = dict(data.get("db") or {})
    if db_url:
        db["url"] = db_url
    if db_models:
        db["models"] = Path(db_models)
    return Settings.model_validate({**data, "db": db})


def print_table(table: Table, out: Console | None = None, lang: str | None = None) -> None:
    """A table for people on a terminal; piped, tab-separated lines with every value whole.

    Rich fits a table to the terminal's width by cutting values (``req_newcome…``) or
    folding them over lines, which breaks ``grep`` and ``awk``. Output that is not a
    terminal gets, as the GitHub CLI's table printer gives it, one line per row with the
    cells split by tabs and nothing cut; the header (and a title) come first, so
    ``awk -F'\t' 'NR > 1'`` reads the rows. ``--json`` is the machine format. With
    ``lang``, the headers are that language's words (``unifind.trace``'s column labels).
    """
    out = out or console
    if lang is not None:
        from unifind.trace import label

        for column in table.columns:
            if isinstance(column.header, str):
                column.header = label(lang, "column", column.header)
    if out.is_terminal:
        out.print(table)
        return
    lines = [_plain(table.title)] if table.title else []
    if table.show_header:
        lines.append("\t".join(_plain(c.header) for c in table.columns))
    rows = zip(*(c.cells for c in table.columns), strict=True)
    lines += ["\t".join(_plain(cell) for cell in row) for row in rows]
    out.file.write("".join(line + "\n" for line in lines))
    out.file.flush()


def _plain(cell: Any) -> str:
    """A cell's text without markup, on one line (a tab or newline would split the row)."""
    if isinstance(cell, str):
        cell = Text.from_markup(cell)
    text = cell.plain if isinstance(cell, Text) else str(cell)
    return " ".join(text.replace("\t", " ").splitlines())


def print_json(data: Any) -> None:
    """Machine output: plain JSON on stdout, nothing else."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def print_json_line(data: Any) -> None:
    """One compact JSON object per line on stderr (a stream of events)."""
    sys.stderr.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
    sys.stderr.flush()


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn unifind errors into a one-line message and an exit code (2 input, 1 other)."""
    try:
        yield
    except InputError as exc:
        print_error(str(exc))
        raise typer.Exit(2) from exc
    except UnifindError as exc:
        print_error(str(exc))
        raise typer.Exit(1) from exc
    except ValidationError as exc:  # a request that doesn't validate: bad input
        print_error(validation_text(exc))
        raise typer.Exit(2) from exc


def print_error(text: str) -> None:
    """``error: …`` on stderr, one line whatever the terminal's width (scripts grep it)."""
    err_console.print(f"[red]error:[/red] {escape(text)}", soft_wrap=True)


def validation_text(exc: ValidationError) -> str:
    """Pydantic's errors as one line (see :func:`unifind.errors.describe`)."""
    return describe(exc)


def _snippet(text: str, width: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def print_result(result: SearchResult, lang: str = "en") -> None:
    """Human output: ranked items with provenance, then every backend's report; every word
    that is not the data in ``lang``'s (``unifind.trace``'s table)."""
    from unifind.trace import message

    for note in result.notes:
        console.print(f"[yellow]{escape(message(lang, 'note', text=note))}[/yellow]")
    if not result.items:
        console.print(f"[bold]{escape(message(lang, 'no_results'))}[/bold]")
    for i, item in enumerate(result.items, start=1):
        where = item.url or (item.metadata.get("source") if item.metadata else None) or ""
        via = ", ".join(f"{_backend(lang, m.backend)} #{m.rank}" for m in item.matched)
        ref = f"[magenta]{escape(f'[{item.citation_id}]')}[/magenta] " if item.citation_id else ""
        title = item.title or message(lang, "untitled")
        score = message(lang, "score", score=f"{item.score:.4f}")
        console.print(
            f"[bold cyan]{i}.[/bold cyan] {ref}[bold]{escape(title)}[/bold] [dim]{score}[/dim]"
        )
        if where:
            console.print(Padding(f"[blue]{escape(str(where))}[/blue]", (0, 0, 0, 3)))
        console.print(Padding(escape(_snippet(item.content)), (0, 0, 0, 3)))
        if via:
            matched = escape(message(lang, "matched", details=via))
            console.print(Padding(f"[dim]{matched}[/dim]", (0, 0, 0, 3)))
    print_reports(result, lang)


def _backend(lang: str, name: str) -> str:
    """``docs/lexical`` → ``docs/关键词``: a KB backend's stage in ``lang``'s words."""
    from unifind.trace import label

    head, sep, stage = name.rpartition("/")
    return f"{head}/{label(lang, 'stage', stage)}" if sep else name


def cited(result: SearchResult) -> SearchResult:
    """A leg's answer with citation ids, as ``Searcher.search`` gives them (a new request)."""
    from unifind.cite import CitationContext
    from unifind.engine import new_request_id

    ctx = CitationContext(new_request_id())
    items = tuple(ctx.assign(result.items))
    return result.model_copy(update={"items": items, "request_id": ctx.request_id})


def print_reports(result: SearchResult, lang: str = "en") -> None:
    from unifind.trace import label, message

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("leg", "backend", "stage", "status", "reason", "hits", "ms", "detail"):
        table.add_column(label(lang, "column", col))
    for r in result.reports:
        style = _STATUS_STYLE.get(r.status, "")
        table.add_row(
            label(lang, "leg", r.leg),
            escape(r.backend),
            label(lang, "stage", r.stage) if r.stage else "",
            f"[{style}]{label(lang, 'status', r.status.value)}[/{style}]",
            label(lang, "reason", r.reason.value) if r.reason else "",
            str(r.hits),
            f"{r.took_ms:.1f}",
            escape(r.error or r.note or ""),
        )
    console.print()
    print_table(table)
    style = _STATUS_STYLE[result.status]
    shown = len(result.items)
    if result.total is not None:
        count = message(lang, "results_of", hits=shown, n=result.total)
    else:
        count = message(lang, "results", n=shown)
    status = f"[{style}]{label(lang, 'status', result.status.value)}[/{style}]"
    ms = f"{result.took_ms:.1f}"
    console.print(message(lang, "status_line", status=status, count=escape(count), ms=ms))
