"""`unifind serve` as a user runs it, the MCP endpoint inside it, and the lazy imports."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.http.conftest import LiveServer
from tests.http.test_workers import free_port, wait_healthy

from unifind import Searcher
from unifind.http_api import create_app
from unifind.store.keys import KeyStore


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_cli_and_the_http_package_import_no_fastapi_until_served() -> None:
    done = python(
        "import sys, unifind, unifind.cli, unifind.cli.serve, unifind.http_api\n"
        "from unifind.cli import app\n"
        "heavy = sorted(m for m in ('fastapi', 'uvicorn', 'starlette') if m in sys.modules)\n"
        "print(heavy)"
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_a_missing_extra_names_the_install_command() -> None:
    done = python(
        "import sys; sys.modules['fastapi'] = None\n"
        "from unifind.http_api import create_app\n"
        "try:\n    create_app()\n"
        "except ImportError as exc:\n    print(type(exc).__name__, exc)"
    )
    assert done.stdout.strip() == (
        'MissingDependency fastapi is not installed: pip install "unifind[http]"'
    ), done.stderr
    done = python(
        "import sys; sys.modules['uvicorn'] = None\n"
        "from unifind.cli import main; sys.argv = ['unifind', 'serve']; main()"
    )
    assert done.returncode == 1
    assert done.stderr.strip() == 'error: uvicorn is not installed: pip install "unifind[http]"'


def test_no_auth_off_loopback_is_refused_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "unifind.cli", "serve", "--no-auth", "--host", "0.0.0.0"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: refusing to run without auth on 0.0.0.0")


def test_no_auth_on_loopback_warns_and_serves_without_a_key(unifind_home: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "unifind.cli", "serve", "--no-auth", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, proc)  # type: ignore[arg-type]
        r = httpx.get(f"{url}/v1/collections")
        assert r.status_code == 200 and r.json() == []
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate(timeout=5)
    assert "warning: auth is off (--no-auth)" in err
    assert f"serving http://127.0.0.1:{port}" in err


@asynccontextmanager
async def mcp_session(url: str, key: str | None) -> AsyncIterator[Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        yield client


async def test_mcp_is_served_at_mcp_behind_the_same_keys(
    searcher: Searcher, keys: KeyStore, key_a: str
) -> None:
    pytest.importorskip("mcp")
    app = create_app(searcher.settings, keys=keys)  # with /mcp, its lifespan run by uvicorn
    with LiveServer(app) as live:
        async with httpx.AsyncClient(base_url=live.url) as c:
            r = await c.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        assert r.json()["error"]["code"] == "unauthorized"
        async with mcp_session(live.url, key_a) as client:
            tools = await client.list_tools()
            found = await client.call_tool("search", {"query": "refunds"})
        assert [t.name for t in tools.tools] == ["search", "fetch", "sources", "ask"]
        assert not found.is_error
        assert "[ref_001]" in "\n".join(c.text for c in found.content if c.type == "text")
        started = time.monotonic()
    assert time.monotonic() - started < 10  # the session manager shut down with the app
