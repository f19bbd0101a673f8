"""The web console in Debian's Chromium, driven by Playwright, against a real ``unifind serve``.

The server is uvicorn on loopback (:class:`tests.http.conftest.LiveServer`) with the demo
handbook in a shared collection, the demo shop database and a SearXNG provider on loopback
(:class:`~unifind.testing.web_server.FakeWebServer`). Playwright's own browser download is
not reachable here: the tests launch the distribution's Chromium by its path.

Without Chromium or Playwright the tests skip, naming the install command; CI sets
``UNIFIND_REQUIRE_BROWSER=1`` (``.ci/run``), which turns that skip into a failure.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.http.conftest import LiveServer

from unifind import Searcher, load_settings
from unifind.cli.demo import corpus_dir
from unifind.db.demo import create_demo
from unifind.http_api import create_app
from unifind.store.keys import KeyStore
from unifind.testing.web_server import FakeWebServer

CHROMIUM = os.environ.get("UNIFIND_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]
#: Where screenshots go: a temporary folder, or (to refresh docs/console.md) the given one.
SHOTS_ENV = "UNIFIND_CONSOLE_SHOTS"

#: Reported by the page itself: CSP violations (no inline script may run) and errors.
WATCH_CSP = """
document.addEventListener("securitypolicyviolation", (e) => {
  (window.__csp = window.__csp || []).push(e.violatedDirective + " " + e.blockedURI);
});
"""


def _browser_or_skip() -> None:
    required = os.environ.get("UNIFIND_REQUIRE_BROWSER") == "1"
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        problem = 'playwright is not installed: pip install -e ".[console-tests]"'
    if problem is None and not Path(CHROMIUM).exists():
        problem = f"no Chromium at {CHROMIUM}: apt-get install -y chromium (as .ci/run does)"
    if problem is not None:
        if required:
            pytest.fail(f"UNIFIND_REQUIRE_BROWSER=1 but {problem}")
        pytest.skip(problem)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start;
        # --disable-dev-shm-usage: a container's small /dev/shm crashes its renderer.
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def shots(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Any, str], Path]:
    """``shots(page, name)``: a PNG of the page, kept as a test artifact."""
    where = os.environ.get(SHOTS_ENV)
    folder = Path(where) if where else tmp_path_factory.getbasetemp() / "console-shots"
    folder.mkdir(parents=True, exist_ok=True)

    def take(page: Any, name: str) -> Path:
        path = folder / f"{name}.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 1000
        return path

    return take


@pytest.fixture
def web(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeWebServer]:
    """A SearXNG instance on loopback; each test scripts its answers."""
    with FakeWebServer() as server:
        monkeypatch.setenv("UNIFIND_SEARXNG_BASE_URL", server.url)
        yield server


@dataclass
class World:
    """A running server and what a test needs to talk to it."""

    url: str
    key_a: str
    """Tenant acme."""
    key_b: str
    """Tenant globex."""
    web: FakeWebServer

    def client(self, key: str | None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


def _seed(settings: Any) -> None:
    """The demo handbook in a shared collection (before the server opens the store)."""
    s = Searcher(settings)
    try:
        s.kb.create("demo", embedder="hash:64", description="unifind sample handbook")
        s.kb.ingest("demo", [corpus_dir()])
    finally:
        s.close()


def _serve(settings: Any, keys: KeyStore | None) -> LiveServer:
    return LiveServer(create_app(settings, keys=keys, mcp=False))


def _settings(home: Path, **server: Any) -> Any:
    home.mkdir(parents=True, exist_ok=True)
    create_demo(home / "shop.sqlite", today=dt.date(2024, 6, 15))
    return load_settings(
        home=home,
        kb={"embedder": "hash:64"},
        server={"heartbeat_s": 0.5, **server},
        # The crawl test's site is on loopback.
        web={"allow_private": True, "rate_limit": False},
    )


@pytest.fixture
def world(unifind_home: Path, web: FakeWebServer) -> Iterator[World]:
    """A server with auth: tenants acme (A) and globex (B) each hold a key."""
    settings = _settings(unifind_home)
    _seed(settings)
    keys = KeyStore.from_settings(settings)
    key_a = keys.create("acme", "ana")[1]
    key_b = keys.create("globex", "gus")[1]
    try:
        with _serve(settings, keys) as live:
            yield World(live.url, key_a, key_b, web)
    finally:
        keys.close()


@pytest.fixture
def open_world(unifind_home: Path, web: FakeWebServer) -> Iterator[World]:
    """``unifind serve --no-auth`` on loopback: no key at all."""
    settings = _settings(unifind_home / "open", auth=False)  # beside `world`, not in it
    _seed(settings)
    with _serve(settings, None) as live:
        yield World(live.url, "", "", web)


class Console:
    """A browser tab on the console, watching for CSP violations and script errors."""

    def __init__(self, page: Any, url: str) -> None:
        self.page = page
        self.url = url
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        page.on("console", self._console)
        page.on("dialog", self._dialog)
        page.add_init_script(WATCH_CSP)

    def _console(self, msg: Any) -> None:
        text = msg.text
        if "Content Security Policy" in text or "Trusted Type" in text:
            self.problems.append(f"console: {text}")

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, key: str | None = None) -> Any:
        self.page.goto(self.url + "/")
        self.page.wait_for_selector("body[data-ready=true]")
        if key:
            self.use_key(key)
        return self.page

    def use_key(self, key: str) -> None:
        """Paste a key and wait for the sources to load again with it."""
        page = self.page
        before = page.get_attribute("body", "data-sources-loaded") or "0"
        page.fill("#key", key)
        page.click("#key-form button[type=submit]")
        # A function, not an expression: an expression is eval'd, which the CSP refuses.
        page.wait_for_function("(b) => document.body.dataset.sourcesLoaded !== b", arg=before)

    def violations(self) -> list[str]:
        csp: list[str] = self.page.evaluate("window.__csp || []")
        return [*self.problems, *csp]


@pytest.fixture
def console(browser: Any) -> Iterator[Callable[[World], Console]]:
    """``console(world)``: a fresh tab; the test fails on any CSP violation or page error."""
    contexts: list[Any] = []
    tabs: list[Console] = []

    def make(world: World) -> Console:
        ctx = browser.new_context(viewport={"width": 1100, "height": 760})
        contexts.append(ctx)
        tabs.append(Console(ctx.new_page(), world.url))
        return tabs[-1]

    yield make
    try:
        for tab in tabs:
            assert tab.violations() == []
    finally:
        for ctx in contexts:
            ctx.close()
