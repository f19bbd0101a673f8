"""Every CLI command has help, and the README's opening commands exist."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer.main
from typer.testing import CliRunner

from unifind.cli import app

ROOT = Path(__file__).resolve().parents[2]


def _commands(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    # typer >= 0.29 vendors click, so duck-type groups instead of isinstance(click.Group).
    out = []
    for name, cmd in group.commands.items():
        path = (*prefix, name)
        out.append(path)
        if hasattr(cmd, "commands"):
            out.extend(_commands(cmd, path))
    return out


def test_every_command_has_help() -> None:
    root = typer.main.get_command(app)
    assert hasattr(root, "commands")
    paths = _commands(root)
    assert ("kb", "ingest") in paths and ("search",) in paths and ("demo",) in paths
    runner = CliRunner()
    for path in [(), *paths]:
        res = runner.invoke(app, [*path, "--help"])
        assert res.exit_code == 0, (path, res.output)
        assert "Usage" in res.output
        cmd = root
        for part in path:
            cmd = cmd.commands[part]  # type: ignore[attr-defined]
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
