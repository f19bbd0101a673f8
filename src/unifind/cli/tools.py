"""`unifind tools`: the tools as OpenAI / Anthropic / MCP function-calling schemas."""

from __future__ import annotations

import json
from typing import Annotated

import typer

HELP = (
    "Print the search, fetch, sources and ask tools as function-calling schemas.\n\n"
    "openai: the Chat Completions `tools` list; anthropic: the Messages API `tools` list; "
    "mcp: the `tools/list` result. Generated from the MCP server's own declarations. "
    "Execute a call a model made with unifind.tools.call(name, arguments) "
    "(docs/integrations.md)."
)
FORMATS = ("openai", "anthropic", "mcp")


def register(app: typer.Typer) -> None:
    app.command("tools", help=HELP)(tools)


def tools(
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="openai, anthropic or mcp.", metavar="FORMAT")
    ] = "openai",
) -> None:
    """Print the search, fetch, sources and ask tools as function-calling schemas."""
    from unifind import MissingDependency

    wanted = fmt.strip().lower()
    if wanted not in FORMATS:
        typer.echo(f"error: unknown --format {fmt!r}; valid: {', '.join(FORMATS)}", err=True)
        raise typer.Exit(2)
    try:
        from unifind.tools import schemas
    except MissingDependency as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(json.dumps(schemas(wanted), indent=2, ensure_ascii=False))
