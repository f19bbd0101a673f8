"""``mcp:<server>.<tool>`` through a real MCP client session to a real MCP server.

Over stdio the server is spawned per call (about 3 s of imports each here), so only the
reverse tool and a failing tool go that way; the answer shapes and failures run against one
Streamable HTTP instance of the same server.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind import mcp_client
from unifind.config import Settings
from unifind.errors import InputError, SourceError
from unifind.rerankers import rerank
from unifind.types import Reason, Status

from ._items import assert_same_items, cids, fused

SERVER = str(Path(__file__).with_name("mcp_ranker_server.py"))
REVERSED = ["ref_004", "ref_003", "ref_002", "ref_001"]


def settings(**servers: dict[str, Any]) -> Settings:
    stdio = {"command": sys.executable, "args": [SERVER], "timeout_s": 60}
    return Settings(mcp_servers={"stdio": stdio, **servers})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, SERVER, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        else:
            pytest.fail(f"the MCP HTTP server did not start (exit code {proc.returncode})")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def http(http_url: str) -> Settings:
    auth = {"Authorization": "Bearer test-token"}
    return settings(http={"url": http_url, "headers": auth, "timeout_s": 20})


async def test_stdio_reverse_tool_reorders_via_structured_content() -> None:
    items = fused()
    out, report = await rerank(items, "q", uses="mcp:stdio.rerank", settings=settings())
    assert cids(out) == REVERSED
    assert [it.score for it in out] == [1.0, 0.5, pytest.approx(1 / 3), 0.25]
    assert_same_items(items, out)
    assert (report.status, report.backend, report.hits) == (Status.OK, "rerank:mcp:stdio.rerank", 4)


async def test_stdio_failing_tool_degrades_and_keeps_the_order() -> None:
    items = fused()
    out, report = await rerank(items, "q", uses="mcp:stdio.broken", settings=settings())
    assert out == items
    assert report.status is Status.DEGRADED
    assert report.reason is Reason.ERROR
    assert report.error is not None
    assert report.error.startswith("rerank mcp:stdio.broken: mcp server 'stdio': tool 'broken'")
    assert report.error.endswith("kept the original order")


async def test_http_transport_sends_the_configured_headers(http: Settings) -> None:
    out, report = await rerank(fused(), "q", uses="mcp:http.rerank_authorized", settings=http)
    assert report.status is Status.OK, report.error
    assert cids(out) == REVERSED


async def test_text_json_in_the_items_shape(http: Settings) -> None:
    out, report = await rerank(
        fused(), "kettles warranty", uses="mcp:http.rerank_text", settings=http
    )
    assert cids(out) == ["ref_004", "ref_001", "ref_002", "ref_003"]
    assert report.status is Status.OK
    assert report.note == "3 unranked item(s) kept after the ranked ones"


@pytest.mark.parametrize(
    ("tool", "reason", "text"),
    [
        ("broken", Reason.ERROR, "tool 'broken' failed"),
        ("chatty", Reason.BAD_RESPONSE, "answered without an order"),
        ("missing", Reason.ERROR, "Unknown tool: missing"),
    ],
)
async def test_tool_failures_degrade_and_keep_the_order(
    http: Settings, tool: str, reason: Reason, text: str
) -> None:
    items = fused()
    out, report = await rerank(items, "q", uses=f"mcp:http.{tool}", settings=http)
    assert out == items
    assert (report.status, report.reason) == (Status.DEGRADED, reason)
    assert text in (report.error or "")


async def test_http_without_the_header_is_refused_by_the_tool(http_url: str) -> None:
    s = settings(http={"url": http_url})
    out, report = await rerank(fused(), "q", uses="mcp:http.rerank_authorized", settings=s)
    assert out == fused()
    assert report.reason is Reason.ERROR


async def test_nothing_listening_is_unreachable() -> None:
    s = settings(gone={"url": f"http://127.0.0.1:{_free_port()}/mcp", "timeout_s": 10})
    _, report = await rerank(fused(), "q", uses="mcp:gone.rerank", settings=s)
    assert report.reason is Reason.UNREACHABLE, report.error


async def test_a_server_that_dies_at_start_is_unreachable_with_its_stderr() -> None:
    dying = {"command": sys.executable, "args": ["-c", "import sys; sys.exit('no TOKEN set')"]}
    out, report = await rerank(
        fused(), "q", uses="mcp:dying.rerank", settings=settings(dying=dying)
    )
    assert out == fused()
    assert report.reason is Reason.UNREACHABLE
    assert "no TOKEN set" in (report.error or "")


async def test_a_missing_command_is_unreachable() -> None:
    spec = mcp_client.ServerSpec(name="ghost", command="/nonexistent/ghost-mcp")
    with pytest.raises(SourceError) as info:
        await mcp_client.call_tool(spec, "rerank", {})
    assert info.value.reason is Reason.UNREACHABLE
    assert "mcp server 'ghost' is unreachable: FileNotFoundError" in str(info.value)


@pytest.mark.parametrize(
    "config",
    [{}, {"command": "x", "url": "http://127.0.0.1:1/mcp"}, {"command": "x", "args": "a b"}],
)
def test_bad_server_config_is_bad_input(config: dict[str, Any]) -> None:
    with pytest.raises(InputError, match="mcp server 'bad'"):
        mcp_client.ServerSpec.from_config("bad", config)
