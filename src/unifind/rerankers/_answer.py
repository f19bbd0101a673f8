"""What an agent or an MCP tool is shown, and how its answer becomes a ranking.

Both accept the seeds' two answer shapes, ``{"order": ["ref_003", "ref_001"]}`` and
``{"items": [{"citation_id": "ref_003"}, ...]}``, plus a bare list. An entry is an id, a
1-based index (a JSON integer, or a digit string that is no id), or an object with
``citation_id``/``id``/``index`` and optionally ``score``. Unknown ids are ignored and
counted; an answer naming no item at all is a bad response.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from unifind.errors import SourceError
from unifind.rerankers.base import Ranking, positional
from unifind.types import Item, Reason

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_ORDER_KEYS = ("order", "items", "ranking", "results", "result")


def item_ids(items: Sequence[Item]) -> list[str]:
    """Ids to show: citation ids when every item has a distinct one, else ``1``, ``2``, ..."""
    cids = [it.citation_id for it in items]
    if all(cids) and len(set(cids)) == len(cids):
        return [str(c) for c in cids]
    return [str(i) for i in range(1, len(items) + 1)]


def item_views(items: Sequence[Item], ids: Sequence[str], max_chars: int) -> list[dict[str, Any]]:
    """``{id, title, content, url}`` per item, content capped at ``max_chars``."""
    views = []
    for ident, it in zip(ids, items, strict=True):
        content = it.content if len(it.content) <= max_chars else it.content[:max_chars] + " …"
        views.append({"id": ident, "title": it.title, "content": content, "url": it.url})
    return views


def parse_ranking(answer: Any, ids: Sequence[str], *, who: str) -> Ranking:
    """The ranking in ``answer`` (text or decoded JSON); a useless answer raises bad_response."""
    entries = _entries(_decode(answer) if isinstance(answer, str) else answer)
    if entries is None:
        raise SourceError(Reason.BAD_RESPONSE, f"{who} answered without an order: {_cut(answer)}")
    position = {ident: i for i, ident in enumerate(ids)}
    picked: list[tuple[int, float | None]] = []
    seen: set[int] = set()
    unknown: list[str] = []
    for entry in entries:
        index, score = _resolve(entry, position, len(ids))
        if index is None:
            unknown.append(_cut(entry, 40))
        elif index not in seen:
            seen.add(index)
            picked.append((index, score))
    if not picked:
        raise SourceError(
            Reason.BAD_RESPONSE, f"{who} named none of the {len(ids)} items: {_cut(answer)}"
        )
    return _ranking(picked, unknown, len(ids))


def _ranking(picked: list[tuple[int, float | None]], unknown: list[str], n: int) -> Ranking:
    scores = [s for _, s in picked]
    if all(s is not None for s in scores):  # the agent scored every item it named: trust it
        order = tuple((i, float(s)) for i, s in picked if s is not None)
        ranking = Ranking(order)
    else:
        ranking = positional([i for i, _ in picked])
    notes = []
    if unknown:
        notes.append(f"ignored {len(unknown)} unknown id(s): {', '.join(unknown[:5])}")
    if len(picked) < n:
        notes.append(f"{n - len(picked)} unranked item(s) kept after the ranked ones")
    return Ranking(ranking.order, note="; ".join(notes) or None)


def _decode(text: str) -> Any:
    # Chat models wrap JSON in ``` fences or a sentence despite JSON mode; take the
    # fenced block, else the outermost {...} or [...] span.
    fenced = _FENCE.search(text)
    candidates = [fenced.group(1)] if fenced else []
    candidates.append(text)
    for open_, close in (("{", "}"), ("[", "]")):
        start, end = text.find(open_), text.rfind(close)
        if 0 <= start < end:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


def _entries(data: Any) -> list[Any] | None:
    if isinstance(data, str):
        data = _decode(data)
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in _ORDER_KEYS:
            if key in data:
                return _entries(data[key])
    return None


def _resolve(entry: Any, position: dict[str, int], n: int) -> tuple[int | None, float | None]:
    score = None
    if isinstance(entry, dict):
        raw = entry.get("score")
        score = float(raw) if isinstance(raw, int | float) and not isinstance(raw, bool) else None
        entry = next((entry[k] for k in ("citation_id", "id", "index") if k in entry), None)
    if isinstance(entry, str) and entry.strip() in position:
        return position[entry.strip()], score
    if isinstance(entry, str) and entry.strip().isdigit():
        entry = int(entry.strip())
    if isinstance(entry, int) and not isinstance(entry, bool) and 1 <= entry <= n:
        return entry - 1, score
    return None, None


def _cut(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "…"
