"""bench/integrations.py end to end on a five-abstract "scifact": each adapter's ranking equals
the direct call's in the default (hybrid) mode, and the document vectors come from the shared
embedding cache on a second run."""

from __future__ import annotations

import gzip
import importlib
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("ir_measures", reason="bench-only dependency: pip install ir-measures")
pytest.importorskip("langchain_core")
pytest.importorskip("llama_index.core")
pytest.importorskip("haystack")

BENCH = Path(__file__).resolve().parents[2] / "bench"
PATHS = (
    "direct",
    "LangChain retriever",
    "LlamaIndex retriever",
    "Haystack retriever",
    "Haystack fused searcher",
)


DOCS = {
    "d1": "Lava from a volcano cools into basalt rock.",
    "d2": "Emperor penguins breed during the antarctic winter.",
    "d3": "A compiler translates source code into machine instructions.",
    "d4": "Green tea leaves are steamed to stop oxidation.",
    "d5": "Glaciers carve valleys as the ice slowly moves downhill.",
}
QUERIES = {"q1": ("basalt volcano lava", "d1"), "q2": ("antarctic penguins", "d2")}


def write_scifact(root: Path) -> Path:
    """A BEIR-layout folder named ``scifact``: five abstracts, two judged queries."""
    folder = root / "scifact"
    (folder / "qrels").mkdir(parents=True)
    with gzip.open(folder / "corpus.jsonl.gz", "wt", encoding="utf-8") as fh:
        for did, text in DOCS.items():
            fh.write(json.dumps({"_id": did, "title": "", "text": text}) + "\n")
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, (t, _) in QUERIES.items())
    )
    rows = "".join(f"{q}\t{d}\t1\n" for q, (_, d) in QUERIES.items())
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + rows)
    return root


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.setenv("HAYSTACK_TELEMETRY_ENABLED", "False")
    monkeypatch.syspath_prepend(str(BENCH))
    # By its path, under a name of its own: in the whole suite "integrations" is already
    # tests/integrations (a package), which importlib.import_module would return.
    spec = importlib.util.spec_from_file_location("bench_integrations", BENCH / "integrations.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    for name in (spec.name, "_datasets", "_eval"):
        sys.modules.pop(name, None)


def test_hybrid_parity_and_overhead_through_the_embedding_cache(
    bench: ModuleType, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    data = write_scifact(tmp_path / "data")
    argv = ["--data", str(data), "--pairs", "4", "--k", "5", "--cache", str(tmp_path / "cache")]
    assert bench.main(argv) == 0
    out, err = capfd.readouterr()
    assert "hybrid (BM25 + bge-small-en-v1.5)" in out
    assert "(5 texts embedded, 0 from the cache)" in err
    # Each query's words occur in one document only: every path ranks it first, identically.
    for path in PATHS:
        row = next(line for line in out.splitlines() if line.startswith(f"| {path} | "))
        assert row.split(" | ")[1:] == ["1.0000", "0 |"], row
    adapters = ("| LangChain", "| LlamaIndex", "| Haystack")
    overhead = [line for line in out.splitlines() if line.startswith(adapters)]
    assert len(overhead) == 4 + 4  # parity rows, then overhead rows with every column filled
    assert all(line.count("|") == 9 for line in overhead[4:]), overhead[4:]

    assert bench.main(argv) == 0  # a fresh KB again, its document vectors from the cache
    assert "(0 texts embedded, 5 from the cache)" in capfd.readouterr().err
