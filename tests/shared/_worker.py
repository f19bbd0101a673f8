"""A separate worker process for the shared-state tests: ``python _worker.py '<json job>'``.

``{"do": "cite", "settings": {...}, "request_id": "r", "batches": [["k1", "k2"], ...]}``
prints ``{key: citation_id}``; ``{"do": "web", "settings": {...}, "env": {...},
"query": "q"}`` prints the web leg's first report.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from unifind._http import Http, HttpPolicy
from unifind.config import load_settings
from unifind.engine import Searcher
from unifind.types import Item, SearchRequest
from unifind.web.leg import WebLeg


def cite(job: dict[str, Any]) -> dict[str, str]:
    searcher = Searcher(load_settings(**job["settings"]))
    seen: dict[str, str] = {}
    for batch in job["batches"]:
        items = [Item(type="kb", title=k, content=k, collection="c", chunk_id=k) for k in batch]
        for item in searcher.context(job["request_id"]).assign(items):
            seen[item.title] = str(item.citation_id)
    return seen


async def web(job: dict[str, Any]) -> dict[str, Any]:
    settings = load_settings(**job["settings"])
    http = Http(HttpPolicy(retries=0))
    leg = WebLeg.from_settings(settings, env=job["env"], http=http)
    try:
        result = await leg.search(SearchRequest(type="web", query=job["query"]))
    finally:
        await leg.aclose()
    return result.reports[0].model_dump(mode="json")


if __name__ == "__main__":
    job = json.loads(sys.argv[1])
    out = cite(job) if job["do"] == "cite" else asyncio.run(web(job))
    print(json.dumps(out))
