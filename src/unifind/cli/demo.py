"""`unifind demo`: ingest the bundled sample handbook and run a few searches."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from unifind import KnowledgeBase, SearchRequest, load_settings
from unifind.cli._out import cited, console, friendly_errors, print_json, print_result

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
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON: the ingest counts and every result.")
    ] = False,
) -> None:
    """Ingest the sample handbook (English and Chinese) into the embedded store and search it."""
    settings = load_settings()
    say = console.print if not as_json else lambda *a, **k: None
    with friendly_errors(), KnowledgeBase.open(settings) as kb:
        say(f"[bold]store:[/bold] {settings.kb_path}")
        info = kb.create(collection, exist_ok=True, description="unifind sample handbook")
        say(f"[bold]collection:[/bold] {info.name} (embedder {info.embedder})")
        report = kb.ingest(collection, [corpus_dir()])
        counts = {k: getattr(report, k) for k in ("added", "replaced", "unchanged", "failed")}
        say("[bold]ingested:[/bold] " + ", ".join(f"{v} {k}" for k, v in counts.items()))
        queries = [(q, "auto") for q in query] if query else list(DEMO_QUERIES)
        results = []
        for q, mode in queries:
            req = SearchRequest(type="kb", query=q, collections=(collection,), mode=mode, limit=3)  # type: ignore[arg-type]
            results.append(cited(kb.search_sync(req)))
            if not as_json:
                console.rule(f"[bold]{escape(q)}[/bold]  [dim](mode {mode})[/dim]")
                print_result(results[-1])
    if as_json:
        searches = [r.model_dump(mode="json", exclude_none=True) for r in results]
        print_json({"store": str(settings.kb_path), "collection": info.name,
                    "ingested": counts, "searches": searches})  # fmt: skip
