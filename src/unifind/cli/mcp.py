"""`unifind mcp`: the MCP server on stdio, for Claude Desktop, Cursor, VS Code and friends."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

HELP = (
    "Run the MCP server on stdio.\n\n"
    "Tools: search (knowledge base, web, databases), fetch (read a page), sources (what can "
    "be searched). Every call acts as the configured principal (settings.principal). "
    "Client configuration snippets: docs/mcp.md."
)


def register(app: typer.Typer) -> None:
    app.command("mcp", help=HELP)(mcp)


def mcp(
    config: Annotated[
        Path | None, typer.Option(help="Config file (default: UNIFIND_CONFIG).", exists=True)
    ] = None,
) -> None:
    """Run the MCP server on stdio."""
    import anyio

    from unifind import MissingDependency, load_settings

    try:
        from unifind.mcp_server import serve_stdio
        from unifind.mcp_server.stdio import announce
    except MissingDependency as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    settings = load_settings(config)
    announce(settings, config)
    anyio.run(serve_stdio, settings)
