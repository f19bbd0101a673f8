"""The streamed form of a search: typed events as they happen (DESIGN §12).

``plan`` (what will run, with the ``request_id`` and a localised ``Searching N sources…``)
→ one ``leg`` event per backend report, the moment its leg finishes → ``items`` (the
fused list so far, cited) → ``references`` (when asked) → ``done`` (the whole
:class:`~unifind.ops.models.SearchOutput`). Closing the iterator cancels the legs still
running: a client that disconnects stops the work it started.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from unifind.trace import message
from unifind.types import Principal, SearchRequest, SearchResult, SearchResults

if TYPE_CHECKING:
    from unifind.ops.models import SearchInput
    from unifind.ops.service import Operations


EventKind = Literal[
    "plan", "leg", "items", "references", "answer.delta", "citations", "page", "done", "error"
]
"""``page``: one URL of a streamed crawl (``KBOps.crawl_stream``), the others a search's."""


@dataclass(frozen=True)
class OpEvent:
    """One streamed event; ``data`` is JSON-ready except ``done``'s ``output`` model."""

    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    """A localised progress line (``Found 7 references``) where one applies."""


def engine_kw(inp: SearchInput, rid: str, principal: Principal | None) -> dict[str, Any]:
    """The engine's keywords for ``inp``: the announced request id, recorded only when the
    caller named it (a made-up id keeps its citation context, so a client may reuse it)."""
    return {
        "request_id": rid,
        "record": inp.request_id is not None,
        "chat_id": inp.chat_id,
        "principal": principal,
        "timeout_s": inp.timeout_s,
    }


def plan_data(inp: SearchInput, reqs: Sequence[SearchRequest], rid: str) -> dict[str, Any]:
    return {
        "request_id": rid,
        "mode": inp.mode,
        "legs": [r.model_dump(mode="json", exclude_none=True) for r in reqs],
    }


async def search_events(
    ops: Operations,
    inp: SearchInput,
    reqs: Sequence[SearchRequest],
    rid: str,
    principal: Principal | None,
    *,
    locale: str = "en",
) -> AsyncIterator[OpEvent]:
    """Run ``inp`` and yield its events (see the module docstring)."""
    t0 = time.perf_counter()
    yield OpEvent("plan", plan_data(inp, reqs, rid), message(locale, "loading", n=len(reqs)))
    finished: list[SearchResult] = []
    results: SearchResults | None = None
    events = ops.searcher.stream(
        reqs, mode=inp.mode, locale=locale, **engine_kw(inp, rid, principal)
    )
    async with aclosing(events) as stream:
        async for ev in stream:
            if ev.kind == "done":
                results = ev.data["results"]
                break
            res = ev.data.get("result") if ev.kind == "leg" else None
            if res is None:
                continue
            finished.append(res)
            for rep in res.reports:
                data = rep.model_dump(mode="json", exclude_none=True)
                yield OpEvent("leg", data, ev.message)
            items = ops.fused(finished, rid, inp.limit, principal)
            yield OpEvent("items", {"items": [_dump(i) for i in items]})
    assert results is not None
    out = await ops.finish(inp, results, rid, t0, principal)
    if out.references is not None:
        yield OpEvent("references", out.references.model_dump(mode="json"))
    yield OpEvent("done", {"output": out})


def _dump(item: Any) -> dict[str, Any]:
    data: dict[str, Any] = item.model_dump(mode="json", exclude_none=True)
    return data
