"""BEIR-layout test collections: ``corpus.jsonl.gz``, ``queries.jsonl``, ``qrels/test.tsv``.

The layout is BEIR's (Thakur et al., NeurIPS 2021 datasets track); ../shared/datasets/README.md
describes the five sets used here. Nothing is copied: the files are read where they lie.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

#: The five sets of ../shared/datasets, in the order the README lists them.
ALL_SETS = ("scifact", "cacm", "cranfield", "vaswani", "cisi")

#: Names the datasets folder when it is not ../shared/datasets beside the repository.
DATASETS_ENV = "UNIFIND_DATASETS"


def default_root() -> Path:
    """``$UNIFIND_DATASETS``, else ``shared/datasets`` beside the repository's folder."""
    named = os.environ.get(DATASETS_ENV)
    return Path(named) if named else Path(__file__).resolve().parents[2] / "shared" / "datasets"


def require_root(root: Path, names: Iterable[str] = ()) -> Path:
    """``root`` when it holds a folder per name in ``names``; else one line on stderr and
    exit 2. A clone without the datasets is the common case, not a bug: no traceback."""
    missing = [n for n in names if not (root / n).is_dir()] if root.is_dir() else None
    if missing is None or missing:
        what = "no datasets folder" if missing is None else f"no {', '.join(missing)} in"
        print(
            f"error: {what} {root} (BEIR layout, one folder per set: {', '.join(ALL_SETS)}; "
            f"looked for ../shared/datasets beside the repository): set {DATASETS_ENV}=DIR "
            "or pass --data DIR",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return root


#: Sets whose README row asks for MAP as well (the classic, many-judgements-per-query ones).
CLASSIC_SETS = frozenset({"cacm", "cranfield", "vaswani", "cisi"})

#: nDCG@10 of Lucene BM25 (Anserini, k1=0.9 b=0.4, flat) from the datasets README: the
#: anchor each set's target is measured against (anchor + 0.06).
LUCENE_ANCHORS = {
    "scifact": 0.6789,
    "cacm": 0.4543,
    "cranfield": 0.3510,
    "vaswani": 0.4368,
    "cisi": 0.3644,
}

#: nDCG@10 of bm25s with Lucene parameters as the README measured it; our own bm25s run must
#: land on these (±0.002) or the loading/evaluation pipeline is wrong.
README_BM25S = {
    "scifact": 0.676,
    "cacm": 0.465,
    "cranfield": 0.352,
    "vaswani": 0.445,
    "cisi": 0.373,
}


@dataclass(frozen=True)
class Doc:
    """One corpus document."""

    doc_id: str
    title: str
    text: str

    @property
    def full_text(self) -> str:
        """Title and body as one string: what BM25 over "title + text" indexes."""
        return f"{self.title}\n{self.text}" if self.title else self.text


@dataclass(frozen=True)
class Dataset:
    """A corpus, its judged queries and their relevance judgements."""

    name: str
    docs: list[Doc]
    queries: dict[str, str]
    """Query id → text, only the queries that have judgements (SciFact ships train ones too)."""
    qrels: dict[str, dict[str, int]]
    """Query id → document id → graded relevance (0 = judged not relevant)."""

    @property
    def classic(self) -> bool:
        return self.name in CLASSIC_SETS

    def head(self, max_queries: int | None) -> Dataset:
        """The same corpus with only the first ``max_queries`` judged queries (quick runs)."""
        if max_queries is None or max_queries >= len(self.queries):
            return self
        keep = list(self.queries)[:max_queries]
        return Dataset(
            self.name,
            self.docs,
            {q: self.queries[q] for q in keep},
            {q: self.qrels[q] for q in keep},
        )


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _find(folder: Path, *names: str) -> Path:
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"{folder} has none of {', '.join(names)} (BEIR layout expected)")


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    """Read a BEIR qrels TSV (``query-id, corpus-id, score`` with a header line)."""
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh, delimiter="\t")
        header = next(rows, None)
        if header is None or header[0] != "query-id":
            raise ValueError(f"{path}: expected a 'query-id<TAB>corpus-id<TAB>score' header")
        for qid, did, score in rows:
            qrels.setdefault(qid, {})[did] = int(score)
    return qrels


def load_dataset(root: Path, name: str) -> Dataset:
    """Load ``root/name`` in BEIR layout; queries are restricted to the judged ones."""
    folder = root / name
    if not folder.is_dir():
        sets = ", ".join(ALL_SETS)
        raise FileNotFoundError(f"no dataset folder {folder}; pass --data DIR (holding {sets})")
    docs = [
        Doc(str(row["_id"]), str(row.get("title") or ""), str(row.get("text") or ""))
        for row in _jsonl(_find(folder, "corpus.jsonl.gz", "corpus.jsonl"))
    ]
    qrels = load_qrels(_find(folder / "qrels", "test.tsv"))
    texts = {str(row["_id"]): str(row["text"]) for row in _jsonl(_find(folder, "queries.jsonl"))}
    missing = [q for q in qrels if q not in texts]
    if missing:
        raise ValueError(f"{folder}: judged queries without text: {missing[:5]}")
    # Qrels order is the file's order; keep it so --max-queries picks a stable prefix.
    queries = {q: texts[q] for q in qrels}
    return Dataset(name, docs, queries, qrels)
