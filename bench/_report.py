"""Tables for bench/quality.py: one plain table per set on stdout, one markdown file."""

from __future__ import annotations

import datetime as dt
import json
import platform
from collections.abc import Sequence
from typing import TYPE_CHECKING

from _datasets import LUCENE_ANCHORS, README_BM25S
from _eval import LABELS, MEASURES, paired_p

from unifind.config import KBSettings

if TYPE_CHECKING:
    from quality import SetResult

MODE_LABELS = {
    "bm25s": "BM25 (bm25s, Lucene params)",
    "text": "unifind text",
    "semantic": "unifind semantic",
    "hybrid": "unifind hybrid",
    "rerank": "unifind hybrid+rerank",
}

#: The issue's targets for the shipped default (issue 2, "Benchmarks").
SCIFACT_TARGET, MEAN_TARGET, ANCHOR_MARGIN = 0.75, 0.55, 0.06


def _methods(modes: Sequence[str]) -> list[str]:
    return ["bm25s", *modes]


def _measures(res: SetResult) -> list[str]:
    # MAP only where the README asks for it (classic sets); SciFact reports nDCG and recall.
    return [m for m in MEASURES if m != "AP" or res.name != "scifact"]


def _cell(res: SetResult, method: str, measure: str) -> str:
    sc = res.scores.get(method)
    return f"{sc.means[measure]:.4f}" if sc else "—"


def _delta(res: SetResult, method: str) -> str:
    """nDCG@10 change over bm25s with the paired t-test p-value."""
    base, sc = res.scores.get("bm25s"), res.scores.get(method)
    if method == "bm25s" or base is None or sc is None:
        return ""
    diff = sc.means["nDCG@10"] - base.means["nDCG@10"]
    return f"{diff:+.4f} (p={paired_p(sc.ndcg_per_query, base.ndcg_per_query):.3f})"


def render_set(res: SetResult, modes: Sequence[str]) -> str:
    """One set as a plain table (stdout)."""
    ms = _measures(res)
    head = f"{res.name}: {res.docs} docs, {res.chunks} chunks, {res.queries} queries"
    lines = [head, f"{'method':32}" + "".join(f"{LABELS[m]:>10}" for m in ms) + "  Δ nDCG@10"]
    for method in _methods(modes):
        row = "".join(f"{_cell(res, method, m):>10}" for m in ms)
        lines.append(f"{MODE_LABELS[method]:32}{row}  {_delta(res, method)}")
    anchor = f"Lucene BM25 anchor (README) nDCG@10 {LUCENE_ANCHORS.get(res.name, float('nan')):.4f}"
    lines.append(f"{anchor}; README bm25s {README_BM25S.get(res.name, float('nan')):.3f}")
    return "\n".join(lines) + "\n"


def _mean(results: Sequence[SetResult], method: str) -> float | None:
    vals = [r.scores[method].means["nDCG@10"] for r in results if method in r.scores]
    return sum(vals) / len(vals) if vals and len(vals) == len(results) else None


def _summary(results: Sequence[SetResult], modes: Sequence[str], subset: bool) -> list[str]:
    names = [r.name for r in results]
    out = ["| method | " + " | ".join(names) + " | mean |", "|---" * (len(names) + 2) + "|"]
    anchors = [LUCENE_ANCHORS.get(n) for n in names]
    if not subset and all(a is not None for a in anchors):
        vals = [a for a in anchors if a is not None]
        cells = " | ".join(f"{a:.4f}" for a in vals)
        out.append(f"| Lucene BM25 anchor (README) | {cells} | {sum(vals) / len(vals):.4f} |")
    for method in _methods(modes):
        cells = " | ".join(_cell(r, method, "nDCG@10") for r in results)
        mean = _mean(results, method)
        shown = "—" if mean is None else f"{mean:.4f}"
        out.append(f"| {MODE_LABELS[method]} | {cells} | {shown} |")
    return out


def _targets(results: Sequence[SetResult], modes: Sequence[str]) -> list[str]:
    cands = [m for m in ("hybrid", "rerank") if m in modes]
    if not cands:
        return ["(no hybrid mode was run)"]
    out = ["| target | " + " | ".join(MODE_LABELS[m] for m in cands) + " |",
           "|---" * (len(cands) + 1) + "|"]  # fmt: skip

    def verdict(value: float | None, goal: float) -> str:
        if value is None:
            return "—"
        return f"{value:.4f} {'met' if value >= goal else 'MISSED'}"

    by = {r.name: r for r in results}
    if "scifact" in by:
        row = [verdict(by["scifact"].scores[m].means["nDCG@10"], SCIFACT_TARGET) for m in cands]
        out.append(f"| SciFact ≥ {SCIFACT_TARGET} | " + " | ".join(row) + " |")
    if len(results) == 5:
        row = [verdict(_mean(results, m), MEAN_TARGET) for m in cands]
        out.append(f"| five-set mean ≥ {MEAN_TARGET} | " + " | ".join(row) + " |")
    for r in results:
        if r.name in LUCENE_ANCHORS:
            goal = LUCENE_ANCHORS[r.name] + ANCHOR_MARGIN
            row = [verdict(r.scores[m].means["nDCG@10"], goal) for m in cands]
            label = f"{r.name} ≥ anchor + {ANCHOR_MARGIN} = {goal:.4f}"
            out.append(f"| {label} | " + " | ".join(row) + " |")
    return out


def _per_set(res: SetResult, modes: Sequence[str]) -> list[str]:
    ms = _measures(res)
    out = [f"### {res.name} — {res.docs:,} docs, {res.chunks:,} chunks, {res.queries} queries", "",
           "| method | " + " | ".join(LABELS[m] for m in ms) + " | Δ nDCG@10 vs bm25s (paired t) "
           "| ms/query (p50) |", "|---" * (len(ms) + 3) + "|"]  # fmt: skip
    for method in _methods(modes):
        cells = " | ".join(_cell(res, method, m) for m in ms)
        ms_q = f"{res.search_ms[method]:.1f}" if method in res.search_ms else ""
        out.append(f"| {MODE_LABELS[method]} | {cells} | {_delta(res, method)} | {ms_q} |")
    return [*out, ""]


def _ingest(results: Sequence[SetResult]) -> list[str]:
    out = ["| set | docs | chunks | seconds | docs/s | texts embedded (cache misses) |",
           "|---|---|---|---|---|---|"]  # fmt: skip
    for r in results:
        rate = f"{r.docs / r.ingest_s:.0f}" if r.ingest_s and not r.reused else "(store reused)"
        out.append(f"| {r.name} | {r.docs:,} | {r.chunks:,} | {r.ingest_s:.1f} | {rate} | "
                   f"{r.embedded:,} |")  # fmt: skip
    return out


def render_markdown(
    results: Sequence[SetResult],
    modes: Sequence[str],
    kb: KBSettings,
    command: str,
    *,
    subset: bool = False,
) -> str:
    """The whole results file: summary, targets, per-set tables, ingest, configuration.

    ``subset``: only some judged queries ran (``--max-queries``), so the full-set anchors
    and targets don't apply and are left out rather than compared.
    """
    targets = _targets(results, modes)
    if subset:
        targets = ["Not judged: this run used a subset of the queries (`--max-queries`); the "
                   "anchors and targets are full-set figures."]  # fmt: skip
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts = [
        "# KB retrieval quality", "",
        f"Produced by `{command}` on {when} ({platform.machine()}, one core, "
        "OMP_NUM_THREADS=1). Scores by ir-measures (trec_eval); documents rank at their best "
        "chunk. nDCG@10 comes from requests at the configured depth (`limit = candidates`, "
        "what a user gets); R@100 and MAP from requests deep enough to fill 100 documents "
        "(`--chunk-limit` chunks, which also deepens the fused lists). Δ is against bm25s "
        "in the same run, with a two-sided paired t-test over queries. "
        "One configuration for every set:", "",
        "```json", json.dumps(kb.model_dump(), indent=1, sort_keys=True), "```", "",
        "## nDCG@10, all sets", "", *_summary(results, modes, subset), "",
        "## Targets (issue 2)", "", *targets, "",
        "## Per set", "", *[line for r in results for line in _per_set(r, modes)],
        "## Ingest (public API, `KnowledgeBase.ingest_text` per document)", "",
        *_ingest(results), "",
        "Ingest time includes embedding only for texts missing from the embedding cache "
        "(bench/.cache/embeddings.sqlite); with a warm cache it measures analysis, chunking "
        "and the store.", "",
    ]  # fmt: skip
    return "\n".join(parts)
