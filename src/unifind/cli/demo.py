"""`unifind demo`: ingest the bundled sample handbook and run a few searches."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.cli._out import cited, console, friendly_errors, print_result

DEMO_QUERIES = (
    ("how do refunds work", "hybrid"),
    ("what is the on-call escalation policy", "hybrid"),
    ("退款流程", "text"),
    ("年假有几天", "auto"),
)


def corpus_dir() -> Path:
    return Path(str(files("unifind.demo").joinpath("corpus")))


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(
    collection: Annotated[str, typer.Option(help="Collection to create for the demo.")] = "demo",
    query: Annotated[
        list[str] | None, typer.Option("--query", "-q", help="Your own query (repeatable).")
    ] = None,
) -> None:
    """Ingest the sample handbook (English and Chinese) into the embedded store and search it."""
    settings = load_settings()
    with friendly_errors(), KnowledgeBase.open(settings) as kb:
        console.print(f"[bold]store:[/bold] {settings.kb_path}")
        info = kb.create(collection, exist_ok=True, description="unifind sample handbook")
        console.print(f"[bold]collection:[/bold] {info.name} (embedder {info.embedder})")
        report = kb.ingest(collection, [corpus_dir()])
        console.print(
            f"[bold]ingested:[/bold] {report.added} added, {report.replaced} replaced, "
            f"{report.unchanged} unchanged, {report.failed} failed"
        )
        queries = [(q, "auto") for q in query] if query else list(DEMO_QUERIES)
        for q, mode in queries:
            console.rule(f"[bold]{escape(q)}[/bold]  [dim](mode {mode})[/dim]")
            req = SearchRequest(type="kb", query=q, collections=(collection,), mode=mode, limit=3)  # type: ignore[arg-type]
            print_result(cited(kb.search_sync(req)))
