"""``POST /retrieval``: Dify's External Knowledge API over the knowledge-base leg.

The contract is Dify's (https://docs.dify.ai/en/use-dify/knowledge/external-knowledge-api):
request ``{knowledge_id, query, retrieval_setting: {top_k, score_threshold},
metadata_condition?}``, answer ``{"records": [{content, score, title, metadata}]}``,
errors ``{"error_code", "error_msg"}``: 1001 a malformed ``Authorization`` header and
1002 a key that fails (HTTP 403), 2001 a knowledge base that does not exist (HTTP 404).
Dify defines no code for a bad request body; that is HTTP 400 with ``error_code`` 400, and
a knowledge base that can't be searched right now is HTTP 503 with ``error_code`` 503
(never an empty list that reads as "nothing matched").

``knowledge_id`` names a collection the key's tenant can see; one it can't see answers
exactly like one that doesn't exist. Not in /openapi.json: it is Dify's protocol, not ours
(docs/integrations.md).
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from unifind.errors import InputError, UnknownName
from unifind.ops import Operations, SearchInput
from unifind.types import Principal

router = APIRouter()

#: top_k accepted: the search's own limit (Dify's form defaults to 2-10).
TOP_K = (1, 100)
#: Dify's comparison operators this endpoint can honour with the KB's metadata filters.
OPERATORS = ("is", "in")


class DifyError(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def _error(exc: DifyError) -> JSONResponse:
    return JSONResponse({"error_code": exc.code, "error_msg": str(exc)}, status_code=exc.status)


async def _principal(request: Request) -> Principal | None:
    keys: Any = request.app.state.unifind.keys
    if keys is None:
        return None  # auth off (loopback only): settings.principal
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise DifyError(403, 1001, "Invalid Authorization header format. Expected 'Bearer "
                        "<api-key>' format (a key from `unifind keys create`).")  # fmt: skip
    principal: Principal | None = await keys.averify(key.strip())
    if principal is None:
        raise DifyError(403, 1002, "Authorization failed: the API key is unknown or revoked.")
    return principal


def _bad(message: str) -> DifyError:
    return DifyError(400, 400, message)


def _number(setting: dict[str, Any], name: str, lo: float, hi: float) -> float:
    value = setting.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(f"retrieval_setting.{name} must be a number from {lo:g} to {hi:g}")
    if not lo <= value <= hi:
        raise _bad(f"retrieval_setting.{name} is {value!r}; valid: {lo:g} to {hi:g}")
    return float(value)


def _filters(condition: Any) -> dict[str, Any] | None:
    """Dify's ``metadata_condition`` as the KB's metadata filters (all must hold)."""
    if condition is None:
        return None
    if not isinstance(condition, dict) or not isinstance(condition.get("conditions"), list):
        raise _bad("metadata_condition must be an object with a list of conditions")
    conditions = condition["conditions"]
    if str(condition.get("logical_operator") or "and").lower() != "and" and len(conditions) > 1:
        raise _bad("metadata_condition.logical_operator: only 'and' is supported")
    out: dict[str, Any] = {}
    for cond in conditions:
        op = cond.get("comparison_operator") if isinstance(cond, dict) else None
        if op not in OPERATORS:
            raise _bad(f"metadata_condition: comparison_operator {op!r} is not supported; "
                       f"supported: {', '.join(OPERATORS)}")  # fmt: skip
        name, value = cond.get("name"), cond.get("value")
        if not isinstance(name, str) or not name:
            raise _bad("metadata_condition: each condition needs a metadata field name")
        if op == "is" and not isinstance(value, str | int | float):
            raise _bad(f"metadata_condition: 'is' on {name!r} needs one value")
        if op == "in" and not (isinstance(value, list) and value):
            raise _bad(f"metadata_condition: 'in' on {name!r} needs a list of values")
        out[name] = value
    return out


def _body(raw: bytes) -> tuple[str, str, int, float, dict[str, Any] | None]:
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        raise _bad("the body is not JSON") from None
    if not isinstance(body, dict):
        raise _bad("the body must be a JSON object with knowledge_id, query, retrieval_setting")
    kid, query, setting = body.get("knowledge_id"), body.get("query"), body.get("retrieval_setting")
    if not isinstance(kid, str) or not kid.strip():
        raise _bad("knowledge_id is required: the name of a unifind collection")
    if not isinstance(query, str) or not query.strip():
        raise _bad("query is required: a non-empty string")
    if not isinstance(setting, dict):
        raise _bad('retrieval_setting is required: {"top_k": 1-100, "score_threshold": 0-1}')
    top_k = _number(setting, "top_k", *TOP_K)
    if not float(top_k).is_integer():
        raise _bad(
            f"retrieval_setting.top_k must be a whole number; valid: {TOP_K[0]} to {TOP_K[1]}"
        )
    threshold = _number(setting, "score_threshold", 0, 1) if "score_threshold" in setting else 0.0
    return kid.strip(), query, int(top_k), threshold, _filters(body.get("metadata_condition"))


@router.post("/retrieval", include_in_schema=False)
async def retrieval(request: Request) -> JSONResponse:
    try:
        who = await _principal(request)
        kid, query, top_k, threshold, filters = _body(await request.body())
        return await _search(request.app.state.unifind.ops, who, kid, query, top_k,
                             threshold, filters)  # fmt: skip
    except DifyError as exc:
        return _error(exc)


async def _search(
    ops: Operations,
    who: Principal | None,
    kid: str,
    query: str,
    top_k: int,
    threshold: float,
    filters: dict[str, Any] | None,
) -> JSONResponse:
    kb: dict[str, Any] = {"collections": [kid], "filters": filters}
    if threshold > 0:
        kb["threshold"] = threshold
    try:
        inp = SearchInput.model_validate({"query": query, "limit": top_k, "sources": {"kb": kb}})
        out = await ops.search(inp, principal=who)
    except UnknownName as exc:
        if exc.kind != "collection":
            raise _bad(str(exc)) from None
        raise DifyError(404, 2001, f"The knowledge does not exist: no collection {kid!r} "
                        "is visible to this key.") from None  # fmt: skip
    except (InputError, ValueError) as exc:
        raise _bad(str(exc)) from None
    failed = [r for r in out.reports if r.status.value not in ("ok", "skipped")]
    if failed and not out.items:
        why = "; ".join(f"{r.backend}: {r.error or r.reason}" for r in failed)
        raise DifyError(503, 503, f"the knowledge base could not be searched: {why}")
    records = [
        {
            "content": item.content,
            "score": max(0.0, min(1.0, item.score)),
            "title": item.title or item.document_id or "",
            "metadata": {
                **item.metadata,
                "collection": kid,
                "document_id": item.document_id,
                "chunk_id": item.chunk_id,
                "citation_id": item.citation_id,
                "request_id": out.request_id,
            },
        }
        for item in out.items
        if item.type == "kb" and item.score >= threshold
    ]
    return JSONResponse({"records": records[:top_k]})
