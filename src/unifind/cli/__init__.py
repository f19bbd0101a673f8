"""The ``unifind`` command line (L5): uses the public API only."""

from __future__ import annotations

import typer

from unifind.cli import db, demo, kb, search, web

app = typer.Typer(
    name="unifind",
    help="One search layer for AI agents: web, knowledge base and databases, cited and honest.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in (demo, search, kb, web, db):
    _module.register(app)


def main() -> None:
    """Console entry point."""
    app()
