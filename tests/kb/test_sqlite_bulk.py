"""SQLiteStore's batched writes at scale (issue #23): every statement of a batch finds its
rows through an index, so a batch costs the same in an empty store and in one of a million
chunks. (What a batch leaves is the conformance suite's: ``unifind.testing._kb_bulk``.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from unifind.kb.sqlite import SQLiteStore
from unifind.testing.kb_store import chunk, doc, vec

#: Full scans allowed: the batch itself (``json_each``) and a constant row.
_SCANNED_OK = ("SCAN j ", "SCAN json_each ", "SCAN CONSTANT ROW")


def _batch(n: int, tag: str) -> list[tuple[Any, list[Any]]]:
    return [
        (doc(f"d{i}", tag), [chunk(0, f"alpha w{i} {tag}", vector=vec(1, i, 0, 0)),
                             chunk(1, "beta", vector=vec(0, 1, i, 0))])
        for i in range(n)
    ]  # fmt: skip


def _problems(plan: list[tuple[int, str]]) -> list[str]:
    """A table scanned whole, or the batch (``json_each``) scanned once per row of a table:
    joined to a table, the batch must be the outer loop (listed first at its level)."""
    out = [d for _, d in plan if d.startswith("SCAN") and not d.startswith(_SCANNED_OK)]
    for level in {p for p, _ in plan}:
        steps = [d for p, d in plan if p == level and d.startswith(("SCAN", "SEARCH"))]
        batch = [i for i, d in enumerate(steps) if d.startswith(_SCANNED_OK[:2])]
        if batch and batch[0] > 0:
            out.append(f"the batch is scanned inside {steps[0]!r}")
    return out


def test_no_statement_of_a_batch_scans_a_table(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "kb.sqlite")
    store.create_collection("docs", embedder="e", dim=4)
    store.upsert_documents("docs", _batch(30, "h1"))
    conn = store._conn()
    sent: list[tuple[str, Any]] = []

    def trace(cursor: Any, sql: str, bindings: Any) -> bool:
        sent.append((sql, bindings))
        return True

    conn.exec_trace = trace
    # Unchanged, replaced and added documents: every statement the batch path has.
    out = store.upsert_documents("docs", _batch(20, "h1") + _batch(40, "h2")[20:])
    conn.exec_trace = None
    assert out == ["unchanged"] * 20 + ["replaced"] * 10 + ["added"] * 10
    bad = []
    for sql, bindings in sent:
        if sql.split()[0].upper() in {"BEGIN", "COMMIT", "ROLLBACK"}:
            continue
        plan = conn.execute(f"EXPLAIN QUERY PLAN {sql}", bindings).fetchall()
        bad += [(sql, why) for why in _problems([(int(str(r[1])), str(r[3])) for r in plan])]
    assert len(sent) > 5 and not bad, bad
    store.close()
