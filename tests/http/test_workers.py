"""`unifind serve --workers 2`: one request_id answered by both workers continues one
numbering of citation ids through Redis (needs a Redis: UNIFIND_TEST_REDIS_URL)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from unifind import Searcher, load_settings
from unifind.store.keys import KeyStore

REDIS_URL = os.environ.get("UNIFIND_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
WORDS = ["amber", "basalt", "cedar", "dune", "ember", "fjord"]


def redis_reachable() -> str | None:
    """None when Redis answers; else why not."""
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except Exception as exc:  # any failure means "no Redis here": the test is skipped
        return f"{type(exc).__name__}: {exc}"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path, unifind_home: Path) -> Iterator[tuple[str, str]]:
    """(base URL, key) of `unifind serve --workers 2` over a KB of six documents."""
    why = redis_reachable()
    if why:
        pytest.skip(f"Redis at {REDIS_URL} is unreachable ({why}); set UNIFIND_TEST_REDIS_URL")
    config = tmp_path / "unifind.yaml"
    prefix = f"unifind-test-{uuid.uuid4().hex[:8]}:"
    config.write_text(yaml.safe_dump({"redis_url": REDIS_URL, "redis_prefix": prefix,
                                      "kb": {"embedder": "hash:64"}}))  # fmt: skip
    settings = load_settings(config)
    searcher = Searcher(settings)
    searcher.kb.create("docs", embedder="hash:64")
    for w in WORDS:
        searcher.kb.ingest_text("docs", f"notes on {w}", document_id=w, title=w)
    searcher.close()
    with KeyStore.from_settings(settings) as keys:
        key = keys.create("acme", "ana")[1]
    port = free_port()
    cmd = [sys.executable, "-m", "unifind.cli", "serve", "--workers", "2",
           "--port", str(port), "--config", str(config)]  # fmt: skip
    proc = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        yield url, key
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
        if proc.stderr is not None:
            proc.stderr.close()
        client = pytest.importorskip("redis").Redis.from_url(REDIS_URL)
        for name in client.scan_iter(f"{prefix}*"):  # this test's keys only
            client.delete(name)
        client.close()


def wait_healthy(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise AssertionError(f"unifind serve exited {proc.returncode}: {err[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError("unifind serve --workers 2 did not become healthy within 60 s")


def test_two_workers_continue_one_numbering(served: tuple[str, str]) -> None:
    url, key = served
    rid = f"w-{uuid.uuid4().hex[:8]}"
    cited: dict[str, str] = {}  # document → citation id, as every worker answered
    workers: set[str] = set()
    # A new connection per request, so the kernel spreads them over both workers.
    headers = {"Authorization": f"Bearer {key}", "Connection": "close"}
    for n in range(60):
        body = {"query": WORDS[n % len(WORDS)], "request_id": rid, "limit": 2}
        r = httpx.post(f"{url}/v1/search", json=body, headers=headers, timeout=30)
        assert r.status_code == 200, r.text
        workers.add(r.headers["x-unifind-worker"])
        for item in r.json()["items"]:
            doc, cid = item["document_id"], item["citation_id"]
            assert cited.setdefault(doc, cid) == cid, f"{doc} renumbered by another worker"
        if len(workers) == 2 and n >= len(WORDS):
            break
    assert len(workers) == 2, "only one worker answered 60 requests"
    ids = sorted(cited.values())
    assert ids == [f"ref_{i:03d}" for i in range(1, len(ids) + 1)]  # continued, no collision
    assert len(ids) >= 4
