"""Issue #21: LangChain's own ``SearxSearchWrapper`` (langchain-community) pointed at a real
``unifind serve`` on loopback, answering from our SearXNG-compatible ``GET /search``."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator

import httpx
import pytest

pytest.importorskip("langchain_community")
pytest.importorskip("aiohttp")

with warnings.catch_warnings():
    # langchain-community announces its own sunset on import (a DeprecationWarning; the
    # suite turns warnings into errors). The wrapper is what these apps use today.
    warnings.simplefilter("ignore", DeprecationWarning)
    from langchain_community.utilities import SearxSearchWrapper

from tests.integrations.conftest import build_kb


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read() if proc.stderr else ""
            raise AssertionError(f"unifind serve exited {proc.returncode}: {err[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError("unifind serve did not become healthy within 90 s")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``unifind serve --no-auth`` (loopback) over a home with the handbook collection; one
    server for the module (its start-up loads the model)."""
    root = tmp_path_factory.mktemp("searx-wrapper")
    build_kb(root / "home").close()
    port = _free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "UNIFIND_HOME": str(root / "home"),
           "XDG_CONFIG_HOME": str(root / "xdg")}  # fmt: skip
    env.pop("UNIFIND_CONFIG", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "unifind.cli", "serve", "--no-auth", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env=env, cwd=root,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=5)


def test_wrapper_results_come_from_the_knowledge_base(served: str) -> None:
    search = SearxSearchWrapper(searx_host=f"{served}/search", engines=["handbook"])
    results = search.results("how are refunds paid", num_results=3)
    assert len(results) == 3
    top = results[0]
    assert top["title"] == "Refunds"
    assert top["snippet"].startswith("Refunds are paid within 30 days")
    assert top["engines"] == ["handbook"] and top["category"] == "general"
    # A KB hit's link is its reference on this server: it resolves to the cited document.
    ref = httpx.get(top["link"], timeout=30)
    assert ref.status_code == 200, ref.text
    assert ref.json()["document_id"] == "refunds"
    text = search.run("reset a password")
    assert "Reset a password from the sign-in page" in text


async def test_wrapper_async_path(served: str) -> None:
    search = SearxSearchWrapper(searx_host=f"{served}/search", params={"engines": "kb"})
    results = await search.aresults("shipping to europe", num_results=2)
    assert results[0]["title"] == "Shipping"


def test_an_engine_matching_nothing_is_an_error_naming_the_valid(served: str) -> None:
    search = SearxSearchWrapper(searx_host=f"{served}/search", engines=["nosuchengine"])
    with pytest.raises(ValueError) as err:
        search.results("refunds", num_results=3)
    text = str(err.value)
    assert "nosuchengine" in text and "handbook" in text and "kb" in text, text
