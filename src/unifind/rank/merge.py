"""Cross-leg fusion: one ranked, deduplicated list from several results (DESIGN §4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from unifind.rank.fusion import RRF_K
from unifind.types import Item, SearchResult, evolve

#: Query parameters that only track the visitor; dropping them makes equal pages equal keys.
_TRACKING = ("utm_", "gclid", "fbclid", "mc_cid", "mc_eid", "ref_src")


@lru_cache(maxsize=4096)
def canonical_url(url: str) -> str:
    """Canonical form for dedupe: lower-case scheme/host, no default port, fragment or
    tracking parameters, no trailing slash, sorted query."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = parts.port
    if port and not (
        (parts.scheme == "http" and port == 80) or (parts.scheme == "https" and port == 443)
    ):
        host = f"{host}:{port}"
    query = sorted(
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if not k.lower().startswith(_TRACKING)
    )
    path = parts.path.rstrip("/") or ""
    scheme = "https" if parts.scheme in ("http", "https") else parts.scheme.lower()
    return urlunsplit((scheme, host, path, urlencode(query), ""))


def dedupe_key(item: Item) -> str:
    """KB chunk id, DB model + record key, or canonical URL."""
    if item.type == "web" and item.url:
        return f"web:{canonical_url(item.url)}"
    return item.key


def merge(items: Sequence[Item]) -> list[Item]:
    """Dedupe, keeping the highest-weight copy (then the earliest) and all provenance."""
    return list(_merge_keyed([(dedupe_key(it), it) for it in items]).values())


def _merge_keyed(pairs: Sequence[tuple[str, Item]]) -> dict[str, Item]:
    kept: dict[str, Item] = {}
    for key, item in pairs:
        old = kept.get(key)
        if old is None:
            kept[key] = item
            continue
        best, other = (item, old) if item.weight > old.weight else (old, item)
        seen = {(m.leg, m.backend) for m in best.matched}
        extra = tuple(m for m in other.matched if (m.leg, m.backend) not in seen)
        kept[key] = best.model_copy(update={"matched": best.matched + extra})
    return kept


def fuse_results(
    results: Sequence[SearchResult],
    *,
    k: int = RRF_K,
    leg_weights: Mapping[str, float] | None = None,
    top_n: int | None = None,
) -> list[Item]:
    """RRF over every result's ranked items, weighted by item weight × leg weight.

    ``score(d) = Σ_lists w_item · w_leg / (k + rank)``; a duplicate across lists adds up its
    votes and keeps the highest-weight copy's fields and every list's provenance.
    """
    scores: dict[str, float] = {}
    pairs: list[tuple[str, Item]] = []
    for res in results:
        lw = 1.0 if leg_weights is None else leg_weights.get(res.type, 1.0)
        for rank, item in enumerate(res.items, start=1):
            key = dedupe_key(item)
            scores[key] = scores.get(key, 0.0) + item.weight * lw / (k + rank)
            pairs.append((key, item))
    fused = [evolve(it, score=round(scores[key], 8)) for key, it in _merge_keyed(pairs).items()]
    fused.sort(key=lambda it: -it.score)
    return fused[:top_n] if top_n is not None else fused


def weighted_order(items: Sequence[Item]) -> list[Item]:
    """The builtin rerank: order by ``score × weight`` (stable)."""
    return sorted(items, key=lambda it: -(it.score * it.weight))
