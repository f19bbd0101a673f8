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


def _imported_after(argv: list[str], heavy: tuple[str, ...] = HEAVY, prelude: str = "") -> set[str]:
    code = (
        f"import sys\n{prelude}from unifind.cli import app\n"
        f"try:\n    app({argv!r})\nexcept SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        f"print('MODULES:' + ','.join(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(filter(None, out.stdout.rsplit("MODULES:", 1)[1].strip().split(",")))


def test_help_imports_no_command_module_nor_heavy_library() -> None:
    assert _imported_after(["--help"]) == set()


def test_a_command_imports_only_its_module() -> None:
    loaded = _imported_after(["kb", "--help"])
    assert "unifind.cli.kb" in loaded
    assert not {"onnxruntime", "jieba", "unifind.cli.db", "unifind.cli.search"} & loaded


#: What a text search or a plan must not import (#18): the HTTP and MCP servers, the records
#: store and the DB's SQLAlchemy, the web leg and its HTTP client, the embedder's runtime,
#: page extraction, jieba (an English question; the KB's words come from the intent cache),
#: urllib.request (xml.sax.saxutils imported it for the references' escape()).
NOT_FOR_A_SEARCH = (
    *("fastapi", "starlette", "mcp", "sqlalchemy", "httpx", "onnxruntime", "tokenizers"),
    *("trafilatura", "jieba", "unifind.web.leg", "unifind.store.records", "unifind.ops.spec"),
    *("urllib.request", "xml.sax.saxutils"),
)


@pytest.fixture
def kb_home(unifind_home: Path) -> Path:
    """A home with an English and a Chinese handbook page, lexical only, and no database."""
    from unifind import load_settings
    from unifind.kb.service import KnowledgeBase

    kb = KnowledgeBase.open(load_settings(home=unifind_home))
    try:
        kb.create("handbook", embedder=None)
        kb.ingest_text("handbook", "# Refunds\n\nRefunds take five days.", document_id="r.md")
        kb.ingest_text("handbook", "# 退款流程\n\n退款在五个工作日内到账。", document_id="z.md")
    finally:
        kb.close()
    return unifind_home


def test_a_text_search_imports_no_agent_web_db_or_model(kb_home: Path) -> None:
    # Records on (the default): the search keeps its citation numbers in the records file
    # (#20) through sqlite3, not the SQLAlchemy records store (#18).
    argv = ["search", "refunds", "--kb", "handbook", "--mode", "text"]
    loaded = _imported_after(
        argv, (*NOT_FOR_A_SEARCH, "unifind.agent.intent", "yaml", "unifind.kb.ingest")
    )
    assert loaded == set()
    assert (kb_home / "records.sqlite").is_file()  # the numbering was kept, not skipped


def test_a_plan_imports_no_web_client_model_or_server(kb_home: Path) -> None:
    argv = ["ask", "hi there", "--plan", "--json"]
    _imported_after(argv)  # the first plan of this KB reads it and keeps what it read
    assert _imported_after(argv, NOT_FOR_A_SEARCH) == set()


def test_a_plan_on_an_unchanged_kb_imports_neither_the_kb_nor_numpy(kb_home: Path) -> None:
    # The intent stage keeps the KB's words under the embedded store file's stat; a file
    # written within the last 2 s is read again, so the test's fresh home counts as settled.
    settled = "import unifind.agent._kbcache as kbc\nkbc.SETTLED_NS = 0\n"
    argv = ["ask", "hi there", "--plan", "--json"]
    _imported_after(argv, prelude=settled)  # reads the KB and keeps its words
    kb = ("numpy", "unifind.kb.service", "unifind.kb.sqlite", "unifind.kb.routing")
    assert _imported_after(argv, (*NOT_FOR_A_SEARCH, *kb), prelude=settled) == set()


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


_SCANS = (
    "import pydantic.plugin._loader as _loader\n"
    "_calls = []\n"
    "_real = _loader.entry_points\n"
    "_loader.entry_points = lambda **kw: _calls.append(kw) or _real(**kw)\n"
)


def _plugin_scans(argv: list[str], env: dict[str, str]) -> int:
    code = (
        f"import sys\n{_SCANS}from unifind.cli import app\n"
        f"try:\n    app({argv!r})\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "print('SCANS:', len(_calls))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env)  # fmt: skip
    return int(out.stdout.rsplit("SCANS:", 1)[1])


def test_a_search_does_not_scan_every_package_for_pydantic_plugins(kb_home: Path) -> None:
    """pydantic's plugin lookup reads every installed distribution's entry points (~0.1 s in
    a large virtualenv): the CLI turns it off for itself, unless the user set the variable."""
    import os

    argv = ["search", "refunds", "--kb", "handbook", "--mode", "text"]
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    assert _plugin_scans(argv, env) == 0
    assert _plugin_scans(argv, {**env, "PYDANTIC_DISABLE_PLUGINS": ""}) == 1  # the user's wins


def _built_after(argv: list[str], module: str, names: tuple[str, ...]) -> list[str]:
    """Which of ``module``'s pydantic models ``names`` were built after ``unifind argv``."""
    code = (
        f"import importlib\nfrom unifind.cli import app\n"
        f"try:\n    app({argv!r})\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        f"m = importlib.import_module({module!r})\n"
        f"print('BUILT:' + ','.join(n for n in {names!r} if getattr(m, n).__pydantic_complete__))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(filter(None, out.stdout.rsplit("BUILT:", 1)[1].strip().split(",")))


# Models are built on first use (pydantic's defer_build, #18), not at import: building
# one costs about a millisecond, and each command uses a few of them.


def test_a_text_search_builds_only_the_operation_models_it_uses(kb_home: Path) -> None:
    argv = ["search", "refunds", "--kb", "handbook", "--mode", "text"]
    names = ("SearchInput", "SearchOutput", "CollectionOut", "IngestOutput", "Readiness")
    assert _built_after(argv, "unifind.ops.models", names) == ["SearchInput", "SearchOutput"]


def test_a_plan_builds_only_the_agent_and_core_models_it_uses(kb_home: Path) -> None:
    argv = ["ask", "hi there", "--plan", "--json"]
    names = ("Plan", "Answer", "CitationReport", "Verdict")
    assert _built_after(argv, "unifind.agent.models", names) == ["Plan"]
    names = ("SearchResult", "SearchResults", "Item", "LegReport")  # a plan searches nothing
    assert _built_after(argv, "unifind.types", names) == []
