"""The ``unifind`` command line (L5): uses the public API only.

Command modules are imported only when their command runs: ``unifind --help`` lists them
from :data:`COMMANDS` without importing any of them (imports were most of a CLI call's
start-up). A module adds its commands with ``register(app)``, or exposes a Typer app
named ``app`` or ``<command>_app`` that becomes the group ``<command>``.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

#: command → (module that defines it, one-line help shown by ``unifind --help``).
#: The help must match the command's own first line (tests/cli/test_lazy.py checks it).
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": (
        "unifind.cli.demo",
        "Ingest the sample handbook (English and Chinese) into the embedded store and search it.",
    ),
    "search": (
        "unifind.cli.search",
        "Search: ranked, cited, with every backend's status — never a silent empty list.",
    ),
    "kb": ("unifind.cli.kb", "Knowledge-base collections: create, ingest, list, delete."),
    "web": (
        "unifind.cli.web",
        "Search the public web through the configured provider (zero-key default: DuckDuckGo).",
    ),
    "fetch": ("unifind.cli.web", "Fetch a page as readable text (markdown-ish, never raw HTML)."),
    "providers": (
        "unifind.cli.web",
        "List every search provider and fetcher, whether it can run here and why.",
    ),
    "db": (
        "unifind.cli.db",
        "Database leg: declared models, natural-language search, a demo shop.",
    ),
    "serve": ("unifind.cli.serve", "Run the HTTP API and streamable MCP server"),
    "mcp": ("unifind.cli.mcp", "Run the MCP server on stdio"),
    "keys": ("unifind.cli.keys", "Create, list and revoke API keys"),
}


class LazyGroup(TyperGroup):
    """A Typer group whose commands are imported on first use, listed from a table."""

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        loaded = super().list_commands(ctx)
        return [*loaded, *(name for name in COMMANDS if name not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        if self._listing:  # help for the group: the table's line, nothing imported
            short = COMMANDS[cmd_name][1]
            return TyperCommand(cmd_name, help=short, short_help=short)
        self.commands.update(_load(cmd_name))
        return self.commands[cmd_name]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def _load(name: str) -> dict[str, Any]:
    """Import the module of command ``name``; the click commands it registers, by name."""
    module_name = COMMANDS[name][0]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            why = f"this build has no {module_name} module"
        else:
            why = f"it needs the Python package {exc.name!r}, which is not installed"
        return {name: _unavailable(name, why)}
    sub = typer.Typer()
    register = getattr(module, "register", None)
    if callable(register):
        register(sub)
    else:
        found = getattr(module, "app", None) or getattr(module, f"{name}_app", None)
        if not isinstance(found, typer.Typer):
            return {name: _unavailable(name, f"{module_name} has no register() or Typer app")}
        sub.add_typer(found, name=name)
    commands = dict(typer.main.get_group(sub).commands)
    if name not in commands:
        return {name: _unavailable(name, f"{module_name} did not register {name!r}")}
    return commands


def _unavailable(name: str, why: str) -> TyperCommand:
    """A command that says in one line why ``name`` can't run, whatever its arguments."""

    def fail() -> None:
        sys.stderr.write(f"error: `unifind {name}` is not available: {why}\n")
        raise typer.Exit(1)

    settings = {"ignore_unknown_options": True, "allow_extra_args": True}
    return TyperCommand(
        name, callback=fail, help=COMMANDS[name][1], context_settings=settings,
        add_help_option=False,
    )  # fmt: skip


app = typer.Typer(
    name="unifind",
    help="One search layer for AI agents: web, knowledge base and databases, cited and honest.",
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """One search layer for AI agents: web, knowledge base and databases, cited and honest."""


def main() -> None:
    """Console entry point."""
    app()
