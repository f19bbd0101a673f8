"""The web console (issue #22): a static bundle at ``/`` that uses the public API.

The page, its script and its style are files in ``console/`` shipped with the package;
no build step, no CDN. They are public (a page holds no data): every call the page makes
goes to the same ``/v1`` routes any client uses, with the key the user pasted. Each
response carries a strict Content-Security-Policy: scripts and styles only from this
origin (no inline script), and Trusted Types required, so an ``innerHTML`` of a string
anywhere in the script throws instead of parsing markup from a document or the web.

Only the files named in :data:`FILES` are served: a request path never becomes a file
path. ``/console/labels.json`` is the CLI's label table (:mod:`unifind.trace`) plus the
console's own words, in English and Chinese.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from unifind.http_api._errors import error_response
from unifind.trace import LABELS, MESSAGES

router = APIRouter(include_in_schema=False)

_DIR = Path(__file__).parent / "console"

#: URL name → (file in ``console/``, media type). Nothing else is ever read.
FILES = {
    "index.html": ("index.html", "text/html; charset=utf-8"),
    "console.js": ("console.js", "text/javascript; charset=utf-8"),
    "console.css": ("console.css", "text/css; charset=utf-8"),
}

#: https://www.w3.org/TR/CSP3/ and https://w3c.github.io/trusted-types/dist/spec/:
#: ``trusted-types 'none'`` with ``require-trusted-types-for 'script'`` makes every string
#: assignment to an HTML sink (innerHTML, outerHTML, insertAdjacentHTML) a TypeError.
CSP = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "require-trusted-types-for 'script'",
        "trusted-types 'none'",
    )
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    # Revalidate: a new version of the package must not run an old script against a new API.
    "cache-control": "no-cache",
}


@cache
def _read(name: str) -> bytes:
    return (_DIR / name).read_bytes()


def _file(name: str) -> Response:
    filename, media_type = FILES[name]
    return Response(_read(filename), media_type=media_type, headers=HEADERS)


@cache
def labels_json() -> bytes:
    """The CLI's labels and verdict words, and the console's own (``console/ui.json``)."""
    ui: dict[str, dict[str, str]] = json.loads(_read("ui.json"))
    table: dict[str, Any] = {}
    for lang in ("en", "zh"):
        verdicts = {k: v for k, v in MESSAGES[lang].items() if k.startswith("verdict_")}
        table[lang] = {"labels": LABELS[lang], "messages": verdicts, "ui": ui[lang]}
    return json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode()


@router.get("/")
async def index() -> Response:
    return _file("index.html")


@router.get("/console")
@router.get("/console/")
async def console_index() -> Response:
    return _file("index.html")


@router.get("/console/labels.json")
async def labels() -> Response:
    return Response(labels_json(), media_type="application/json", headers=HEADERS)


@router.get("/console/{name}")
async def asset(name: str) -> Response:
    if name not in FILES:
        return error_response(404, f"the console has no file {name!r}", field="name")
    return _file(name)
