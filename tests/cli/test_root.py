"""`unifind --version` and shell completion (issue #9)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind import __version__
from unifind.cli import app

runner = CliRunner()


def test_version() -> None:
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.output == f"unifind {__version__}\n"
    assert __version__ == "0.1.0"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_the_script_for_a_shell(shell: str) -> None:
    res = runner.invoke(app, ["--show-completion", shell])
    assert res.exit_code == 0, res.output
    assert "_UNIFIND_COMPLETE" in res.output and f"complete_{shell}" in res.output


def test_an_unknown_shell_is_refused_naming_the_valid_ones() -> None:
    res = runner.invoke(app, ["--show-completion", "tcsh"])
    assert res.exit_code == 2 and "bash, zsh, fish, powershell, pwsh" in res.output


def test_the_script_s_call_completes_lazily_loaded_commands() -> None:
    def complete(words: str, cword: int) -> list[str]:
        env = {"_UNIFIND_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
        res = runner.invoke(app, [], env=env, prog_name="unifind")
        assert res.exit_code == 0, res.output
        return res.output.split()

    assert complete("unifind se", 1) == ["search", "serve"]
    assert complete("unifind kb cr", 2) == ["create", "crawl"]
    assert "--time-range" in complete("unifind search x --ti", 3)


def test_install_completion_writes_the_shell_s_start_up_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    res = runner.invoke(app, ["--install-completion", "bash"])
    assert res.exit_code == 0, res.output
    assert "bash completion installed" in res.output
    assert "_UNIFIND_COMPLETE" in (tmp_path / ".bash_completions" / "unifind.sh").read_text()
    assert "unifind.sh" in (tmp_path / ".bashrc").read_text()
