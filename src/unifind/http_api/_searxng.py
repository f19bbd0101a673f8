"""``GET /search``: a SearXNG-compatible search, for apps that take a SearXNG URL.

Open WebUI, Perplexica, LibreChat and LangChain's ``SearxSearchWrapper`` call
``/search?q=...&format=json`` and read SearXNG's JSON (searxng/searxng ``searx/webapp.py``):
``query``, ``number_of_results``, ``results`` (``url``, ``title``, ``content``, ``engine``,
``engines``, ``positions``, ``score``, ``category``, ``publishedDate``), ``answers``,
``corrections``, ``infoboxes``, ``suggestions`` and ``unresponsive_engines`` — here every
backend that did not answer ok, as ``[name, reason]``, so a short list says why.

What is searched (docs/integrations.md): ``engines=`` names legs (``kb``, ``web``, ``db``),
web providers, collections or database models; otherwise ``categories=`` maps
``general`` → knowledge base + web and ``news`` → the web provider's news search.
``pageno`` pages the fused list ten at a time (at most ten pages). A knowledge-base hit has
no web address: its ``url`` is its reference on this server,
``/v1/requests/{request_id}/references/{index}`` (each search is recorded under a request
id of its own for that; ``unifind://kb/<collection>/<document>`` when records are off).
A key comes as ``Authorization: Bearer``, or as ``?token=`` / ``?api_key=`` for apps
that can only set a URL (it then lands in access logs). Not in /openapi.json: it is
SearXNG's protocol, not ours.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from unifind.errors import InputError
from unifind.http_api._errors import Unauthorized, error_response, input_error
from unifind.ops import Operations, SearchInput, SearchOutput
from unifind.ops.service import new_request_id
from unifind.types import Item, Principal

router = APIRouter()

PAGE = 10
MAX_PAGES = 10
CATEGORIES = {"general": ("kb", "web"), "news": ("web",)}
TIME_RANGES = ("day", "week", "month", "year")
#: SearXNG's safesearch levels.
SAFE = {"0": "off", "1": "moderate", "2": "strict"}
LEGS = ("kb", "web", "db")
#: SearXNG's "no language" values.
_ANY_LANGUAGE = ("", "all", "auto")


class BadParam(Exception):
    def __init__(self, param: str, message: str, valid: list[str] | None = None) -> None:
        super().__init__(message)
        self.param, self.valid = param, valid


async def _caller(request: Request) -> Principal | None:
    keys: Any = request.app.state.unifind.keys
    if keys is None:
        return None  # auth off (loopback only): settings.principal
    scheme, _, cred = request.headers.get("authorization", "").partition(" ")
    key = cred.strip() if scheme.lower() == "bearer" else ""
    key = key or request.query_params.get("token") or request.query_params.get("api_key") or ""
    if not key:
        raise Unauthorized("an API key is required: Authorization: Bearer <key>, or "
                           "?token=<key> in the URL for apps that can only set a URL")  # fmt: skip
    principal: Principal | None = await keys.averify(key)
    if principal is None:
        raise Unauthorized("the API key is unknown or revoked")
    return principal


def _names(raw: str) -> list[str]:
    return [n.strip() for n in raw.split(",") if n.strip()]


async def _engines(ops: Operations, who: Principal | None, wanted: list[str]) -> dict[str, Any]:
    """The legs named by ``engines=``; a name that matches nothing is refused."""
    found = await ops.sources(principal=who)
    providers = [p.name for p in found.providers if p.kind == "search"]
    collections = [c.name for c in found.collections]
    models = [m.name for m in found.models]
    legs: dict[str, dict[str, Any]] = {}
    for name in wanted:
        if name in LEGS:
            legs.setdefault(name, {})
        elif name in providers:
            web = legs.setdefault("web", {})
            if web.get("provider") not in (None, name):
                raise BadParam("engines", "one web engine per request", providers)
            web["provider"] = name
        elif name in collections:
            legs.setdefault("kb", {}).setdefault("collections", []).append(name)
        elif name in models:
            legs.setdefault("db", {}).setdefault("models", []).append(name)
        else:
            valid = [*LEGS, *providers, *collections, *models]
            raise BadParam("engines", f"unknown engine {name!r}", valid)
    return legs


def _categories(raw: str) -> dict[str, dict[str, Any]]:
    legs: dict[str, dict[str, Any]] = {}
    for name in _names(raw.lower()) or ["general"]:
        if name not in CATEGORIES:
            raise BadParam("categories", f"unknown category {name!r}", list(CATEGORIES))
        for leg in CATEGORIES[name]:
            legs.setdefault(leg, {})
        if name == "news":
            legs["web"]["topic"] = "news"
    return legs


def _web_options(params: Any, legs: dict[str, dict[str, Any]]) -> None:
    """``time_range``, ``language`` and ``safesearch`` apply to the web leg, when searched."""
    time_range = params.get("time_range", "").strip().lower()
    if time_range and time_range not in TIME_RANGES:
        raise BadParam("time_range", f"unknown time_range {time_range!r}", list(TIME_RANGES))
    language = params.get("language", "").strip()
    safe = params.get("safesearch", "").strip()
    if safe and safe not in SAFE:
        raise BadParam("safesearch", f"unknown safesearch {safe!r}", list(SAFE))
    web = legs.get("web")
    if web is None:
        return
    if time_range:
        web["time_range"] = time_range
    if language.lower() not in _ANY_LANGUAGE:
        web["language"] = language
    if safe:
        web["safe_search"] = SAFE[safe]


def _page(raw: str) -> int:
    if not raw.strip():
        return 1
    if not raw.strip().isdigit() or not 1 <= int(raw) <= MAX_PAGES:
        raise BadParam("pageno", f"pageno {raw!r} is not a page from 1 to {MAX_PAGES}")
    return int(raw)


@router.get("/search", include_in_schema=False)
async def search(request: Request) -> JSONResponse:
    params = request.query_params
    try:
        fmt = params.get("format", "")
        if fmt != "json":
            raise BadParam("format", f"format {fmt or '(none)'!r} is not served here; "
                           "add format=json", ["json"])  # fmt: skip
        query = params.get("q", "").strip()
        if not query:
            raise BadParam("q", "q is required: what to search for")
        who = await _caller(request)
        ops: Operations = request.app.state.unifind.ops
        wanted = _names(params.get("engines", ""))
        legs = (
            await _engines(ops, who, wanted)
            if wanted
            else _categories(params.get("categories", ""))
        )
        _web_options(params, legs)
        page = _page(params.get("pageno", ""))
        # A named request is recorded (records on): its KB hits' urls then resolve.
        data = {"query": query, "limit": min(100, page * PAGE), "sources": legs,
                "request_id": new_request_id()}  # fmt: skip
        inp = SearchInput.model_validate(data)
        out = await ops.search(inp, principal=who)
    except BadParam as exc:
        return error_response(400, str(exc), field=exc.param, valid=exc.valid)
    except InputError as exc:
        return input_error(exc)
    except ValueError as exc:  # pydantic's: a web option the model refuses
        return error_response(400, str(exc).splitlines()[-1].strip(), field="language")
    return JSONResponse(_answer(request, query, out, page))


def _answer(request: Request, query: str, out: SearchOutput, page: int) -> dict[str, Any]:
    base = str(request.base_url).rstrip("/")
    recorded = bool(getattr(request.app.state.unifind.ops.settings, "records", False))
    results = [
        _result(item, rank, out.request_id, base, recorded)
        for rank, item in enumerate(out.items, start=1)
    ][(page - 1) * PAGE : page * PAGE]
    return {
        "query": query,
        "number_of_results": len(out.items),
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": [
            [r.backend if r.stage is None else f"{r.backend} ({r.stage})", _why(r)]
            for r in out.reports
            if r.status.value != "ok"
        ],
    }


def _why(report: Any) -> str:
    reason = report.reason.value if report.reason else report.status.value
    detail = report.error or report.note
    return f"{report.status.value}: {reason}" + (f": {detail}" if detail else "")


def _result(item: Item, rank: int, rid: str, base: str, recorded: bool) -> dict[str, Any]:
    if item.type == "kb":
        engine = item.collection or "kb"
    elif item.type == "db":
        engine = item.model or "db"
    else:
        engine = item.matched[0].backend if item.matched else "web"
    engines = list(dict.fromkeys([engine, *(m.backend for m in item.matched if m.leg == "web")]))
    return {
        "url": item.url or _ref_url(item, rid, base, recorded),
        "title": item.title,
        "content": item.content,
        "engine": engine,
        "engines": engines,
        "positions": [rank],
        "score": item.score,
        "category": "general",
        "publishedDate": item.metadata.get("published") if item.type == "web" else None,
        "citation_id": item.citation_id,
    }


def _ref_url(item: Item, rid: str, base: str, recorded: bool) -> str:
    cid = item.citation_id or ""
    index = cid.rpartition("_")[2]
    if recorded and index.isdigit():
        return f"{base}/v1/requests/{quote(rid, safe='')}/references/{int(index)}"
    parts = (
        (item.collection, item.document_id) if item.type == "kb" else (item.model, item.record_id)
    )
    where = "/".join(quote(str(p or ""), safe="") for p in parts)
    return f"unifind://{item.type}/{where}"
