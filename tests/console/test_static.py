"""The console's files as HTTP serves them: public, CSP on every one, nothing else readable."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from unifind import Searcher, load_settings
from unifind.http_api import create_app
from unifind.http_api._console import CSP, FILES
from unifind.store.keys import KeyStore
from unifind.trace import LABELS

CONSOLE = Path(__file__).parents[2] / "src" / "unifind" / "http_api" / "console"


@pytest.fixture
async def anon(unifind_home: Path) -> AsyncIterator[httpx.AsyncClient]:
    """No key, on a server that requires one."""
    searcher = Searcher(load_settings(kb={"embedder": "hash:64"}))
    keys = KeyStore.from_settings(searcher.settings)
    app = create_app(searcher=searcher, keys=keys, mcp=False)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c
    keys.close()
    searcher.close()


@pytest.mark.parametrize(
    ("path", "ctype", "needle"),
    [
        ("/", "text/html", b'<script src="/console/console.js" defer></script>'),
        ("/console/", "text/html", b"<title>unifind console</title>"),
        ("/console/console.js", "text/javascript", b"textContent"),
        ("/console/console.css", "text/css", b"--accent"),
        ("/console/labels.json", "application/json", "降级".encode()),
    ],
)
async def test_console_files_are_public_with_a_strict_csp(
    anon: httpx.AsyncClient, path: str, ctype: str, needle: bytes
) -> None:
    r = await anon.get(path)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith(ctype)
    assert needle in r.content
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert "require-trusted-types-for 'script'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    # The API behind the page still wants a key.
    assert (await anon.get("/v1/sources")).status_code == 401


@pytest.mark.parametrize(
    "path",
    ["/console/ui.json", "/console/..%2f_console.py", "/console/%2e%2e/_app.py", "/console/x.js"],
)
async def test_only_the_named_files_are_served(anon: httpx.AsyncClient, path: str) -> None:
    r = await anon.get(path)
    assert r.status_code == 404, r.text  # a name outside FILES, or no route at all
    assert r.json()["error"]["code"] and "import" not in r.text


async def test_the_console_is_not_part_of_the_api_document(anon: httpx.AsyncClient) -> None:
    paths = (await anon.get("/openapi.json")).json()["paths"]
    assert not [p for p in paths if p == "/" or p.startswith("/console")]


async def test_labels_are_the_cli_table_in_both_languages(anon: httpx.AsyncClient) -> None:
    table = (await anon.get("/console/labels.json")).json()
    assert table["zh"]["labels"] == LABELS["zh"]
    assert table["zh"]["messages"]["verdict_contradicted"] == "与来源矛盾"
    # Every word the page asks for exists in both languages.
    assert set(table["en"]["ui"]) == set(table["zh"]["ui"])
    script = (CONSOLE / "console.js").read_text(encoding="utf-8")
    html = (CONSOLE / "index.html").read_text(encoding="utf-8")
    asked = set(re.findall(r'data-t="([a-z_]+)"', html))
    asked |= set(re.findall(r'\bt\("([a-z_]+)"\)', script))
    assert asked <= set(table["en"]["ui"]), asked - set(table["en"]["ui"])


def test_no_inline_script_or_style_and_no_html_sinks() -> None:
    html = (CONSOLE / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, flags=re.S)
    assert scripts == [""]  # one external script, empty body
    assert not re.search(r"\son[a-z]+=", html)  # no inline handlers
    assert "style=" not in html and "<style" not in html
    script = (CONSOLE / "console.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script, sink
    assert set(FILES) == {"index.html", "console.js", "console.css"}
    assert "'self'" in CSP
