"""The ``unifind`` command line (L5): uses the public API only.

Command modules are imported only when their command runs: ``unifind --help`` lists them
from :data:`COMMANDS` without importing any of them (imports were most of a CLI call's
start-up). A module adds its commands with ``register(app)``, or exposes a Typer app
named ``app`` or ``<command>_app`` that becomes the group ``<command>``.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from pathlib import PurePath
from types import SimpleNamespace
from typing import Annotated, Any, get_args, get_origin

# pydantic looks for plugins by reading the entry points of every installed distribution
# (~0.1 s in a virtualenv of ~450 packages) when the first model is built. A CLI process
# has no use for them; a user who wants them sets PYDANTIC_DISABLE_PLUGINS themselves
# (empty: all plugins load), and that wins. docs/config.md.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from unifind.cli import _gc

#: command → (module that defines it, one-line help shown by ``unifind --help``).
#: The help must match the command's own first line (tests/cli/test_lazy.py checks it).
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": (
        "unifind.cli.demo",
        "Ingest the sample handbook (English and Chinese) into the embedded store and search it.",
    ),
    "ask": (
        "unifind.cli.ask",
        "Answer a message from the searches it needs, with every citation checked.",
    ),
    "search": (
        "unifind.cli.search",
        "Search: ranked, cited, with every backend's status — never a silent empty list.",
    ),
    "kb": ("unifind.cli.kb", "Knowledge-base collections: create, ingest, crawl, list, delete."),
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
    "tools": (
        "unifind.cli.tools",
        "Print the search, fetch, sources and ask tools as function-calling schemas.",
    ),
    "keys": ("unifind.cli.keys", "Create, list and revoke API keys"),
    "logs": ("unifind.cli.logs", "Recorded searches: list, show, delete."),
    "config": (
        "unifind.cli.config",
        "Which config file is used, the effective settings, and checking a file.",
    ),
}

#: Shells whose completion script ``--show-completion`` prints (typer writes the scripts).
SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")


class LazyGroup(TyperGroup):
    """A Typer group whose commands are imported on first use, listed from a table."""

    _listing = False

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if os.environ.get(COMPLETE_VAR):  # the shell asks for completions: typer answers
            from typer._completion_classes import completion_init

            completion_init()
        return super().main(*args, **kwargs)

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)
        for param in params:
            _in_words(param)
        return params

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
    for command in commands.values():
        _humanize(command)
        _resume_gc_in(command)
    return commands


#: How a value's type reads in ``--help`` when its option names no metavar.
_WORDS: dict[Any, str] = {int: "N", float: "NUMBER"}
#: Enough of a click context for ``Command.get_help_option`` (it reads only this).
_HELP_CTX = SimpleNamespace(help_option_names=["--help"])


class _Argument(TyperArgument):
    """An argument shown by its metavar alone (``QUERY``), as click and most CLIs show it."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # typer would add the Python type (``<str>``): the metavar says it

    def _usage_display_name(self) -> str:
        name = str(self.metavar)
        return name if self.required else f"[{name}]"


def _humanize(command: Any) -> None:
    """Give every parameter of ``command`` (and of its sub-commands) a type in words, and
    reflow its docstring's paragraphs (typer keeps their source line breaks)."""
    if command.help:
        command.help = _reflow(command.help)
    for param in command.params:
        _in_words(param)
    help_option = command.get_help_option(_HELP_CTX)
    if help_option is not None:
        _in_words(help_option)
    for sub in getattr(command, "commands", {}).values():
        _humanize(sub)


def _resume_gc_in(command: Any) -> None:
    """Turn the collector back on when ``command``'s (or a sub-command's) code starts."""
    if command.callback is not None:
        command.callback = _gc.resuming(command.callback)
    for sub in getattr(command, "commands", {}).values():
        _resume_gc_in(sub)


def _reflow(text: str) -> str:
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in paragraphs)


def _in_words(param: Any) -> None:
    """``--limit N``, ``--config PATH``, ``QUERY``, flags bare: not ``<list[str]>``, ``<bool>``."""
    if isinstance(param, TyperArgument):
        if param.metavar is None:
            param.metavar = _word(param) + ("..." if param.nargs != 1 else "")
        param.__class__ = _Argument
    elif param.metavar is None:
        param.metavar = "" if getattr(param, "is_flag", False) else _word(param)


def _word(param: Any) -> str:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    if annotation in _WORDS:
        return _WORDS[annotation]
    if isinstance(annotation, type) and issubclass(annotation, PurePath):
        return "PATH"
    return (param.name or "value").upper()


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
    # typer's own completion options detect the shell and take no name; ours take one.
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: The variable the completion scripts set when the shell asks for completions.
COMPLETE_VAR = "_UNIFIND_COMPLETE"


def _version(value: bool) -> None:
    if value:
        from unifind import __version__

        typer.echo(f"unifind {__version__}")
        raise typer.Exit()


def _shell(value: str | None) -> str | None:
    if value is not None and value not in SHELLS:
        raise typer.BadParameter(f"{value!r} is not a shell unifind completes: {', '.join(SHELLS)}")
    return value


def _show_completion(value: str | None) -> None:
    if value is not None and _shell(value):
        from typer._completion_shared import get_completion_script

        typer.echo(
            get_completion_script(prog_name="unifind", complete_var=COMPLETE_VAR, shell=value)
        )
        raise typer.Exit()


def _install_completion(value: str | None) -> None:
    if _shell(value):
        from typer._completion_shared import install

        shell, path = install(shell=value, prog_name="unifind", complete_var=COMPLETE_VAR)
        typer.echo(f"{shell} completion installed in {path}; it works in new shells.")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
    show_completion: Annotated[
        str | None,
        typer.Option(
            "--show-completion",
            metavar="SHELL",
            callback=_show_completion,
            is_eager=True,
            help=f"Print the completion script for SHELL ({', '.join(SHELLS)}).",
        ),
    ] = None,
    install_completion: Annotated[
        str | None,
        typer.Option(
            "--install-completion",
            metavar="SHELL",
            callback=_install_completion,
            is_eager=True,
            help="Install completion for SHELL (in its start-up file).",
        ),
    ] = None,
) -> None:
    """One search layer for AI agents: web, knowledge base and databases, cited and honest."""


def main() -> None:
    """Console entry point: start-up runs with the cyclic collector off (``_gc``)."""
    with _gc.paused():
        app()
