"""`unifind kb graph NAME ENTITY`: an entity's neighbours and the chunks that mention it."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from unifind import KnowledgeBase, load_settings
from unifind.cli._out import console, friendly_errors, print_json, print_table
from unifind.cli.kb import kb_app


@kb_app.command("graph")
def graph(
    name: Annotated[str, typer.Argument(help="Collection (created with --graph).")],
    entity: Annotated[str, typer.Argument(help="An entity: a name, acronym or noun phrase.")],
    limit: Annotated[int, typer.Option(min=1, max=100, help="Neighbours and chunks.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Show an entity's neighbours (entities sharing its chunks) and the chunks naming it."""
    from unifind.kb._graphq import explore

    with friendly_errors(), KnowledgeBase.open(load_settings()) as kb:
        kb.infos([name], kb.settings.principal)  # unknown or not visible: a clear error
        out = explore(kb, name, entity, limit=limit)
    if as_json:
        print_json(out)
        return
    console.print(f"entity: [bold]{escape(', '.join(out['entity']))}[/bold]")
    near = Table("neighbour", "shared chunks", box=None)
    for n in out["neighbours"]:
        near.add_row(escape(n["name"]), str(n["chunks"]))
    if out["neighbours"]:
        print_table(near)
    else:
        console.print("no neighbours")
    chunks = Table("document", "chunk", "score", "text", box=None)
    for c in out["chunks"]:
        cut = console.is_terminal and len(c["text"]) > 80  # piped: the whole text
        text = c["text"][:79] + "…" if cut else c["text"]
        chunks.add_row(escape(c["document_id"]), c["chunk_id"], str(c["score"]), escape(text))
    if out["chunks"]:
        print_table(chunks)
    else:
        console.print("no chunk names it")
