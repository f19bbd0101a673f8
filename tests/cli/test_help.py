"""Every CLI command has help, and the README's opening commands exist."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import typer.main
from typer.testing import CliRunner

from unifind.cli import COMMANDS, app

ROOT = Path(__file__).resolve().parents[2]


def _commands(group: Any, ctx: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    # typer >= 0.29 vendors click, so duck-type groups instead of isinstance(click.Group).
    # list_commands/get_command, not .commands: the root group loads its commands lazily.
    out = []
    for name in group.list_commands(ctx):
        if not _built(name, prefix):
            continue
        path = (*prefix, name)
        out.append(path)
        cmd = group.get_command(ctx, name)
        if hasattr(cmd, "list_commands"):
            out.extend(_commands(cmd, ctx, path))
    return out


def _built(name: str, prefix: tuple[str, ...]) -> bool:
    """Whether a top-level command's module exists yet (others are added concurrently)."""
    return bool(prefix) or importlib.util.find_spec(COMMANDS[name][0]) is not None


def test_every_command_has_help() -> None:
    root = typer.main.get_command(app)
    ctx = root.make_context("unifind", ["--help"], resilient_parsing=True)
    paths = _commands(root, ctx)
    assert ("kb", "ingest") in paths and ("search",) in paths and ("demo",) in paths
    runner = CliRunner()
    for path in [(), *paths]:
        res = runner.invoke(app, [*path, "--help"])
        assert res.exit_code == 0, (path, res.output)
        assert "Usage" in res.output
        cmd = root
        for part in path:
            cmd = cmd.get_command(ctx, part)  # type: ignore[attr-defined]
        assert (cmd.help or "").strip(), f"{' '.join(path)} has no help text"


def test_readme_opens_with_two_working_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", text, re.S)
    assert block, "README must open with a code block"
    lines = [ln.split("#")[0].strip() for ln in block.group(1).splitlines() if ln.strip()]
    assert len(lines) == 2, lines
    for line in lines:
        script = line.split()[1]
        assert (ROOT / script).is_file(), f"README names {script}, which doesn't exist"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert lines[1].split()[1] in ci, ".ci/run must run the README's test command"


#: How typer shows a Python type (``<list[str]>``, ``<bool>``, ``{query}``), and click's
#: upper-case type names: not words a person reads as "a collection" or "a file".
PYTHON_TYPES = re.compile(
    r"<(?:str|bool|int|float|list|tuple|dict|Path)\b|\{[a-z_]+\}|\b(?:TEXT|INTEGER|LIST)\b"
)


def test_help_reads_as_words_without_internal_references() -> None:
    root = typer.main.get_command(app)
    ctx = root.make_context("unifind", ["--help"], resilient_parsing=True)
    runner = CliRunner()
    for path in [(), *_commands(root, ctx)]:
        res = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert res.exit_code == 0, (path, res.output)
        text = res.output
        assert not PYTHON_TYPES.search(text), (path, PYTHON_TYPES.search(text), text)
        assert "§" not in text and "DESIGN" not in text, (path, text)


def test_options_show_what_they_take() -> None:
    runner = CliRunner()
    text = runner.invoke(app, ["search", "--help"], terminal_width=200).output
    for shown in ("QUERY", "--kb  COLLECTION", "--filter  KEY=VALUE", "--config  FILE",
                  "--limit  N", "--db  URL"):  # fmt: skip
        assert re.search(re.escape(shown).replace("\\ \\ ", r"\s+"), text), (shown, text)
    text = runner.invoke(app, ["kb", "ingest", "--help"], terminal_width=200).output
    assert "PATH|URL..." in text and "Usage: unifind kb ingest [OPTIONS] NAME PATH|URL..." in text
