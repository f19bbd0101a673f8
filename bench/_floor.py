"""The floor for bench/surfaces.py: a bare FastAPI endpoint calling the same KB search.

No unifind surface code: no auth, no operation layer, no fusion across legs, no citation
ids. What unifind's HTTP API costs above this is the price of its surface.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from unifind import Searcher, SearchRequest

_searcher: Searcher | None = None


@asynccontextmanager
async def _life(app: FastAPI) -> AsyncIterator[None]:
    global _searcher
    _searcher = Searcher()
    yield
    await _searcher.aclose()


app = FastAPI(lifespan=_life)


@app.post("/floor")
async def floor(body: dict[str, Any]) -> dict[str, Any]:
    assert _searcher is not None
    req = SearchRequest(
        type="kb", query=body["query"], collections=(body["collection"],), mode="hybrid"
    )
    res = await _searcher.search(req)
    return res.to_dict()
