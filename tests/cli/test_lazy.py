"""The CLI imports a command's module only when that command runs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from unifind.cli import COMMANDS, app

runner = CliRunner()
HEAVY = (
    *("numpy", "onnxruntime", "sqlalchemy", "httpx", "jieba", "pydantic"),
    *("unifind.cli.kb", "unifind.cli.db", "unifind.cli.search", "unifind.engine"),
)


def _imported_after(argv: list[str]) -> set[str]:
    code = (
        "import sys\nfrom unifind.cli import app\n"
        f"try:\n    app({argv!r})\nexcept SystemExit:\n    pass\n"
        f"print('MODULES:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(filter(None, out.stdout.rsplit("MODULES:", 1)[1].strip().split(",")))


def test_help_imports_no_command_module_nor_heavy_library() -> None:
    assert _imported_after(["--help"]) == set()


def test_a_command_imports_only_its_module() -> None:
    loaded = _imported_after(["kb", "--help"])
    assert "unifind.cli.kb" in loaded
    assert not {"onnxruntime", "jieba", "unifind.cli.db", "unifind.cli.search"} & loaded


def test_help_lists_every_command_with_its_short_help() -> None:
    res = runner.invoke(app, ["--help"], terminal_width=200)
    assert res.exit_code == 0
    for name, (_, short) in COMMANDS.items():
        assert name in res.output and short[:40] in res.output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_table_matches_each_command_s_own_help(name: str) -> None:
    module, short = COMMANDS[name]
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not written yet")
    root = typer.main.get_command(app)
    ctx = root.make_context("unifind", [name], resilient_parsing=True)
    cmd = root.get_command(ctx, name)  # type: ignore[attr-defined]
    first = " ".join((cmd.help or "").strip().split("\n\n")[0].split())
    assert first.startswith(short.rstrip(".")), (first, short)


def test_a_missing_module_fails_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(COMMANDS, "ghost", ("unifind.cli._no_such_module", "Haunt."))
    res = runner.invoke(app, ["ghost", "--anything", "x"])
    assert res.exit_code == 1
    assert res.output.strip().splitlines() == [
        "error: `unifind ghost` is not available: this build has no unifind.cli._no_such_module "
        "module"
    ]
    monkeypatch.setitem(COMMANDS, "ghost", ("unifind.errors", "Haunt."))
    res = runner.invoke(app, ["ghost"])
    assert res.exit_code == 1 and "has no register() or Typer app" in res.output


def test_a_module_may_expose_a_typer_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "ghost_cmds.py").write_text(
        "import typer\n"
        "app = typer.Typer(help='Haunt.')\n"
        "@app.command('boo')\n"
        "def boo() -> None:\n"
        "    '''Say boo.'''\n"
        "    print('boo!')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(COMMANDS, "ghost", ("ghost_cmds", "Haunt."))
    res = runner.invoke(app, ["ghost", "boo"])
    assert res.exit_code == 0 and res.output.strip() == "boo!"
