"""The graph arm of a KB query and ``unifind kb graph``: entities as prefixed index terms.

A collection created with ``metadata={"graph": True}`` stores each chunk's entities
(``kb/graph.py``) among its index terms, so every store keeps them beside the chunks,
deletes them with the chunks, and scores them with its own BM25. At query time the
query's entities find the chunks that mention them (one hop), and the five entities that
co-occur most with them in the ten best of those chunks are added at weight 0.3 (the
second hop): the ``graph`` stage, fused as one more arm, ``matched`` provenance
``<collection>/graph``. Off by default: it lowered nDCG@10 on all five test sets
(BENCHMARKS.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from unifind.errors import InputError
from unifind.kb import graph
from unifind.kb._names import resolve_filters, shown_id
from unifind.kb.base import Hit

if TYPE_CHECKING:
    from unifind.kb.service import KnowledgeBase
    from unifind.types import SearchRequest

HOP_DOCS = 10
HOP_ENTITIES = 5
HOP_WEIGHT = 3  # of 10: repetitions stand for weights in the store contract


def enabled(metadata: dict[str, Any]) -> bool:
    return bool(metadata.get("graph"))


def stage(
    kb: KnowledgeBase, coll: str, query: str, depth: int, req: SearchRequest, seen: dict[str, Any]
) -> Callable[[], list[Hit]]:
    """The graph stage for one collection; query entities and neighbours go into ``seen``."""

    def run() -> list[Hit]:
        found = list(dict.fromkeys(graph.entities(query)))
        if not found:
            return []
        terms = graph.as_terms(found) * 10
        filters = resolve_filters(kb.store, coll, req.filters)  # shown names match too
        direct = kb.store.lexical_search(coll, terms, limit=depth, filters=filters)
        recs = kb.store.get_chunks(coll, [h.chunk_id for h in direct[:HOP_DOCS]])
        counts: Counter[str] = Counter()
        for rec in recs.values():
            counts.update(set(graph.entities(f"{rec.title}\n{rec.text}")) - set(found))
        near = counts.most_common(HOP_ENTITIES)
        seen.setdefault("entities", []).extend({"name": e, "collection": coll} for e in found)
        seen.setdefault("graph_nodes", []).extend(
            {"name": e, "collection": coll, "chunks": n} for e, n in near
        )
        if not near:
            return direct
        hop = graph.as_terms([e for e, _ in near]) * HOP_WEIGHT
        return kb.store.lexical_search(coll, terms + hop, limit=depth, filters=filters)

    return run


def explore(kb: KnowledgeBase, collection: str, entity: str, *, limit: int = 10) -> dict[str, Any]:
    """An entity's neighbours and the chunks that mention it (``unifind kb graph``)."""
    info = kb.store.get_collection(collection)
    if not enabled(info.metadata):
        raise InputError(
            f"collection {collection!r} keeps no entities: create it with "
            "metadata {'graph': true} (`unifind kb create NAME --graph`) and ingest again"
        )
    names = list(dict.fromkeys(graph.entities(entity))) or [entity.lower().strip()]
    hits = kb.store.lexical_search(collection, graph.as_terms(names), limit=limit)
    recs = kb.store.get_chunks(collection, [h.chunk_id for h in hits])
    counts: Counter[str] = Counter()
    chunks = []
    for h in hits:
        rec = recs.get(h.chunk_id)
        if rec is None:
            continue
        counts.update(set(graph.entities(f"{rec.title}\n{rec.text}")) - set(names))
        chunks.append(
            {"chunk_id": rec.chunk_id, "title": rec.title,
             "document_id": shown_id(rec.document_id, rec.source),
             "score": round(h.score, 4), "text": rec.text}
        )  # fmt: skip
    neighbours = [{"name": e, "chunks": n} for e, n in counts.most_common(limit)]
    return {"entity": names, "neighbours": neighbours, "chunks": chunks}
