"""The quality benchmark harness runs end to end on a 5-document collection.

The real run (bench/quality.py over ../shared/datasets) takes an hour of model time; this
proves the loading, ingest through the public API, every mode, document aggregation,
evaluation and the results file work, with the hash embedder and the overlap reranker.
"""

from __future__ import annotations

import gzip
import importlib
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("bm25s", reason="bench-only dependency: pip install bm25s")
pytest.importorskip("ir_measures", reason="bench-only dependency: pip install ir-measures")

from unifind.registry import registry
from unifind.testing.fakes import OverlapReranker

BENCH = Path(__file__).resolve().parents[2] / "bench"

DOCS = [
    ("d1", "Volcanoes", "Lava from a volcano cools into basalt rock."),
    ("d2", "Penguins", "Emperor penguins breed during the antarctic winter."),
    ("d3", "Compilers", "A compiler translates source code into machine instructions."),
    ("d4", "Tea", "Green tea leaves are steamed to stop oxidation."),
    ("d5", "Glaciers", "Glaciers carve valleys as the ice slowly moves downhill."),
]
QUERIES = {"q1": "basalt volcano lava", "q2": "antarctic penguins", "q3": "steamed tea leaves"}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 2}, "q3": {"d4": 1, "d5": 0}}


def write_tiny(root: Path) -> Path:
    folder = root / "tiny"
    (folder / "qrels").mkdir(parents=True)
    with gzip.open(folder / "corpus.jsonl.gz", "wt", encoding="utf-8") as fh:
        for did, title, text in DOCS:
            fh.write(json.dumps({"_id": did, "title": title, "text": text}) + "\n")
    queries = [*QUERIES.items(), ("train-only", "not judged: must be ignored")]
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries), encoding="utf-8"
    )
    rows = [f"{q}\t{d}\t{r}" for q, docs in QRELS.items() for d, r in docs.items()]
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "\n".join(rows) + "\n", encoding="utf-8"
    )
    return root


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """bench/quality.py as a module, with the rerankers it registers removed afterwards."""
    monkeypatch.syspath_prepend(str(BENCH))
    registry("rerankers").register("overlap", OverlapReranker)
    yield importlib.import_module("quality")
    registry("rerankers").unregister("overlap")
    registry("rerankers").unregister("cached")
    for name in ("quality", "_datasets", "_eval", "_report", "_rerank"):
        sys.modules.pop(name, None)


def test_quality_runs_every_mode_and_writes_results(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_tiny(tmp_path / "data")
    out = tmp_path / "quality.md"
    argv = ["--data", str(data), "--sets", "tiny", "--embedder", "hash", "--reranker", "overlap",
            "--cache", str(tmp_path / "cache"), "--out", str(out)]  # fmt: skip
    assert bench.main(argv) == 0
    md = out.read_text(encoding="utf-8")
    assert "--embedder hash" in md  # the exact command is recorded
    # Each query's words occur in exactly one document, so lexical search ranks it first.
    for method in ("BM25 (bm25s, Lucene params)", "unifind text", "unifind hybrid+rerank"):
        row = next(line for line in md.splitlines() if line.startswith(f"| {method} | "))
        assert row.split(" | ")[1] == "1.0000", row
    assert "| tiny | 5 | 5 |" in md  # ingest table: 5 docs, 5 chunks
    assert "tiny: 5 docs, 5 chunks, 3 queries" in capsys.readouterr().out
    # A second run embeds nothing: every document vector comes from the cache.
    assert bench.main([*argv, "--out", "-"]) == 0
    assert (tmp_path / "cache" / "embeddings.sqlite").is_file()


def test_missing_dataset_names_the_flag(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.main(["--data", str(tmp_path), "--sets", "nope", "--out", "-"])
    assert exc.value.code == 2
    assert "--data DIR" in capsys.readouterr().err


def test_unknown_mode_is_refused(bench: ModuleType) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--modes", "text,magic", "--out", "-"])


def test_documents_rank_at_their_best_chunk(bench: ModuleType) -> None:
    from _eval import first_occurrence, ranked_run

    assert first_occurrence(["a", "b", "a", "c", "b", "d"], 3) == ["a", "b", "c"]
    run = ranked_run({"q": ["z", "a"]})
    assert run["q"]["z"] > run["q"]["a"]  # scores keep our order, not trec_eval's id order


def test_evaluate_by_hand_arithmetic(bench: ModuleType, tmp_path: Path) -> None:
    from _datasets import load_dataset
    from _eval import evaluate, ranked_run

    ds = load_dataset(write_tiny(tmp_path), "tiny")
    assert list(ds.queries) == ["q1", "q2", "q3"]  # the train-only query is dropped
    # q1: relevant doc at rank 2 → nDCG@10 = (1/log2 3) / 1. q2: not returned → 0.
    # q3: d4 at rank 1 → 1.0 (d5 is judged non-relevant and adds nothing).
    scores = evaluate(ds, ranked_run({"q1": ["d3", "d1"], "q3": ["d4", "d5"]}))
    expected = (1 / math.log2(3) + 0 + 1) / 3
    assert scores.means["nDCG@10"] == pytest.approx(expected)
    assert scores.means["R@100"] == pytest.approx((1 + 0 + 1) / 3)
    assert scores.means["AP"] == pytest.approx((0.5 + 0 + 1) / 3)
    assert scores.ndcg_per_query["q2"] == 0.0
