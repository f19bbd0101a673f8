"""`unifind ask --lang`: progress lines on stderr in the chosen language (default the
settings' telemetry.lang); an unsupported language is refused with exit 2."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from unifind.cli import app


def _config(tmp_path: Path, extra: str = "") -> str:
    config = tmp_path / "unifind.yaml"
    config.write_text(f"home: {tmp_path / 'home'}\nkb: {{embedder: hash}}\n{extra}",
                      encoding="utf-8")  # fmt: skip
    return str(config)


def _ask(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(app, ["ask", *args, "--answer", "none"])
    return res.exit_code, res.stdout, res.stderr


def test_ask_progress_in_the_chosen_language(tmp_path: Path) -> None:
    config = _config(tmp_path)
    # No search is needed and no LLM answers: nothing is answered, exit 1 (issue #20).
    code, out, err = _ask("你好", "--lang", "zh-CN", "--config", config)
    assert code == 1, err
    assert "无需搜索" in err and "正在核对引用" in err and "checking" not in err
    assert "无需搜索" not in out  # progress is not the answer
    code, _, err = _ask("hello", "--config", config)
    assert code == 1 and "searching nothing (no search needed)" in err and "无需" not in err
    code, out, err = _ask("你好", "--lang", "zh", "--json", "--config", config)
    assert code == 1 and "无需搜索" not in err and out.lstrip().startswith("{")  # JSON alone


def test_ask_progress_defaults_to_telemetry_lang(tmp_path: Path) -> None:
    code, _, err = _ask("hello", "--config", _config(tmp_path, "telemetry: {lang: zh}\n"))
    assert code == 1 and "无需搜索" in err, err


def test_an_unsupported_language_is_refused(tmp_path: Path) -> None:
    code, _, err = _ask("hello", "--lang", "xx", "--config", _config(tmp_path))
    assert code == 2 and "--lang 'xx'" in err and "en, zh" in err
