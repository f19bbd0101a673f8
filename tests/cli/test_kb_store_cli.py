"""`kb create --store`, `kb list`'s store column and `kb migrate` re-pointing one collection,
as a user runs them: the same search answers whichever store holds the collection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from unifind.cli import app

pytest.importorskip("qdrant_client", reason="needs pip install 'unifind[qdrant]'")

runner = CliRunner()


@pytest.fixture(autouse=True)
def _fast_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNIFIND_EMBEDDER", "hash:64")


def run(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.output


def js(*args: str) -> Any:
    code, out = run(*args, "--json")
    assert code == 0, out
    return json.loads(out)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, topic in (("docs", "handbook"), ("notes", "memo")):
        folder = tmp_path / name
        folder.mkdir()
        for i in range(3):
            text = f"# {topic} {i}\n\nRefunds are paid within {i + 3} days of a {topic} return.\n"
            (folder / f"{topic}{i}.md").write_text(text)
        out[name] = folder
    return out


def _stores() -> dict[str, str]:
    return {c["name"]: c["store"] for c in js("kb", "list")}


def _answers(query: str) -> list[tuple[str, str, float]]:
    res = js("search", query, "--kb", "docs", "--kb", "notes")
    assert res["status"] == "ok", res["reports"]
    return [(i["collection"], i["title"], round(i["score"], 5)) for i in res["items"]]


def test_one_collection_on_qdrant_one_on_sqlite_then_moved(
    files: dict[str, Path], tmp_path: Path
) -> None:
    qdrant = f"qdrant://{tmp_path}/q"
    code, out = run("kb", "create", "docs", "--store", qdrant)
    assert code == 0 and f"store:{qdrant}" in "".join(out.split())  # rich wraps long paths
    assert run("kb", "create", "notes")[0] == 0
    code, out = run("kb", "create", "docs", "--store", f"sqlite://{tmp_path}/other.db")
    assert code == 2 and "already exists" in out  # one namespace across stores
    for name, folder in files.items():
        assert run("kb", "ingest", name, str(folder))[0] == 0
    stores = _stores()
    assert stores["docs"] == qdrant and stores["notes"].startswith("sqlite:///")
    code, table = run("kb", "list")
    assert "store" in table and "qdrant://" in table
    before = _answers("refunds paid within days")
    res = js("search", "refunds paid", "--kb", "docs", "--kb", "notes")
    assert {i["collection"] for i in res["items"]} == {"docs", "notes"}
    assert all(i["citation_id"].startswith("ref_") for i in res["items"])

    moved = js("kb", "migrate", "notes", "--to", qdrant)
    assert (moved["copied"], moved["verified"], moved["repointed"]) == (3, True, True)
    assert moved["removed_from"] == stores["notes"]
    assert _stores() == {"docs": qdrant, "notes": qdrant}
    assert _answers("refunds paid within days") == before

    code, out = run("kb", "migrate", "notes", "--to", qdrant)
    assert code == 2 and "already lives in" in out
    back = js("kb", "migrate", "notes", "--to", "sqlite")
    assert back["repointed"] and back["removed_from"] == qdrant
    assert _stores()["notes"] == stores["notes"]
    assert _answers("refunds paid within days") == before


def test_copy_only_keeps_serving_from_the_source(files: dict[str, Path], tmp_path: Path) -> None:
    assert run("kb", "create", "notes")[0] == 0
    assert run("kb", "ingest", "notes", str(files["notes"]))[0] == 0
    target = f"sqlite://{tmp_path}/copy.db"
    out = js("kb", "migrate", "notes", "--to", target, "--copy-only")
    assert (out["copied"], out["verified"], out["repointed"]) == (3, True, False)
    assert _stores()["notes"].endswith("kb.sqlite")


def test_help_names_the_store_options() -> None:
    assert "--store" in run("kb", "create", "--help")[1]
    help_text = run("kb", "migrate", "--help")[1]
    assert "--copy-only" in help_text and "--to" in help_text
