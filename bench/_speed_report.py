"""Markdown for bench/speed.py's results: latency table, targets, build, models, ingestion."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Stats = dict[str, Any]


def _verdict(value: float, target: float) -> str:
    return f"{value:.2f} ms ({'met' if value <= target else 'NOT met'}, target ≤ {target:g})"


def _ms(pair: Sequence[float]) -> str:
    return f"{pair[0]:.2f} / {pair[1]:.2f}"


def render(res: Stats) -> str:
    """The results as markdown: the latency table, targets, build, models, ingestion."""
    lines = [
        "# KB speed (embedded SQLite store)", "", "```", f"OMP_NUM_THREADS=1 {res['command']}",
        "```", "", "Synthetic corpora (bench/_synth.py): Zipfian text over a 50k-word vocabulary "
        "(s=1, Lucene's 33 stopwords as the top ranks), 40-120 words a chunk, 5 chunks a "
        "document; random unit 384-d vectors (embedding 200k chunks with bge-small on this CPU "
        "would take hours). Queries: 2-5 content words from the same distribution. The machine "
        "is shared (2 cores, other engineers' jobs running): every figure comes from "
        f"{len(next(iter(res['sizes'].values()))['runs'])} fresh processes, all listed.", "",
        "## Query latency, ms p50 / p95 (warm, query embedding excluded)", "",
        "Store = the raw index call at fusion depth 100. KB = `KnowledgeBase.search` (limit 10: "
        "analysis, both legs in threads, RRF, chunk fetch, items). Cold = the first query of a "
        "fresh process: index loaded from the file (and the HNSW sidecar).", "",
        "| chunks | run | store lexical | store vector | KB text | KB semantic | KB hybrid "
        "| cold lexical ms | cold vector ms | peak RSS MB | load avg | no-hit text queries |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for size, r in res["sizes"].items():
        for i, m in enumerate(r["runs"], 1):
            st, kb = m["store"], m["kb"]
            lines.append(
                f"| {int(size):,} | {i} | {_ms(st['lexical'])} | {_ms(st['vector'])} "
                f"| {_ms(kb['text'])} | {_ms(kb['semantic'])} | {_ms(kb['hybrid'])} "
                f"| {m['cold_lexical_ms']} | {m['cold_vector_ms']} | {m['peak_rss_mb']} "
                f"| {m.get('load', '')} | {m.get('empty', {}).get('text', '')} |"
            )
    lines += _targets(res) + _CAVEATS + _build(res) + _models(res)
    return "\n".join(lines) + "\n"


_CAVEATS = [
    "",
    "Reading these numbers:",
    "",
    "- Random unit vectors in 384 dimensions are HNSW's worst case: their intrinsic "
    "dimension is the full 384, while text embeddings have a far lower one, which is what "
    "graph search exploits (Aumüller & Ceccarello, 'The role of local intrinsic "
    "dimensionality in benchmarking nearest neighbor search', 2019). The vector figures and "
    "the HNSW build time here are upper bounds for real embeddings.",
    "- Load average (last column but one) is the 1-minute load on 2 cores at the end of "
    "the run: above 2, other processes were competing for the CPU while we measured.",
]


def _targets(res: Stats) -> list[str]:
    big = max(res["sizes"], key=int)
    runs = res["sizes"][big]["runs"]

    def worst(where: str, mode: str) -> float:
        return max(float(m[where][mode][0]) for m in runs)

    return [
        "", f"## Targets at {int(big):,} chunks (worst p50 of the runs)", "",
        f"- lexical p50 ≤ 2 ms: store {_verdict(worst('store', 'lexical'), 2)}; "
        f"through KnowledgeBase.search {_verdict(worst('kb', 'text'), 2)}",
        f"- hybrid p50 ≤ 5 ms (KnowledgeBase.search): {_verdict(worst('kb', 'hybrid'), 5)}",
    ]  # fmt: skip


def _build(res: Stats) -> list[str]:
    lines = [
        "", "## Building the corpora (one process each)", "",
        "| chunks | documents | upsert s | chunks/s | first lexical query s (index build) "
        "| first vector query s (exact matrix) | HNSW build s (background) | files MB "
        "| peak RSS MB | load avg |", "|---|---|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for size, r in res["sizes"].items():
        b = r["build"]
        lines.append(
            f"| {int(size):,} | {b['documents']:,} | {b['write_s']} | {b['chunks_per_s']:,} "
            f"| {b['lexical_build_s']} | {b['vector_build_s']} | {b.get('hnsw_build_s', '')} "
            f"| {b['file_mb']} | {b['peak_rss_mb']} | {b.get('load', '')} |"
        )
    return lines


def _models(res: Stats) -> list[str]:
    lines = ["", "## Query embedding (real bge-small-en-v1.5 int8, one thread)", ""]
    for i, e in enumerate(res.get("embed", []), 1):
        lines.append(
            f"- run {i}: {e['queries']} SciFact claims, p50 / p95 {_ms(e['p50_p95_ms'])} ms "
            f"(model load {e['load_s']} s, peak RSS {e['peak_rss_mb']} MB)"
        )
    ing = res.get("ingest")
    if not ing:
        return lines
    lines += [
        "", f"## Ingestion: pipeline vs bare model ({ing['documents']} SciFact abstracts)", "",
        "`KnowledgeBase.ingest_text` (extract, chunk, analyse, embed, atomic upsert) against "
        "`BgeSmallEmbedder.embed_documents` on exactly the texts the pipeline embedded (title "
        "+ chunk), in blocks of 25 documents that alternate which side runs first. Ratio = "
        "pipeline throughput / bare throughput; target ≥ 0.8.", "",
        "| pass | chunks | pipeline s | bare model s | ratio (wall) | pipeline CPU s "
        "| bare CPU s | ratio (CPU) |", "|---|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for p in ing["passes"]:
        lines.append(
            f"| {p['pass']} | {p['chunks']} | {p['ingest_s']} | {p['raw_s']} | {p['ratio']} "
            f"| {p['ingest_cpu_s']} | {p['raw_cpu_s']} | {p['cpu_ratio']} |"
        )
    lines.append(f"\nPeak RSS of the ingestion process: {ing['peak_rss_mb']} MB.")
    return lines
