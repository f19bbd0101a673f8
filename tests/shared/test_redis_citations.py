"""Citation ids shared through Redis: unique within a request_id across Searchers,
processes and threads; the same dedupe key keeps its id; the request's hash expires."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from unifind._redis import RedisCitationIds, RedisLink
from unifind.cite import CitationContext
from unifind.engine import Searcher
from unifind.types import Item, LegReport, SearchResult, Status

from .conftest import Shared

WORKER = Path(__file__).with_name("_worker.py")


def kb(key: str) -> Item:
    return Item(type="kb", title=key, content=key, collection="c", chunk_id=key)


def ids(items: Sequence[Item]) -> list[str | None]:
    return [i.citation_id for i in items]


def assert_one_numbering(seen: dict[str, str]) -> None:
    """Distinct keys have distinct ids, and the ids are exactly ref_001..ref_N."""
    numbers = sorted(int(v.removeprefix("ref_")) for v in seen.values())
    assert numbers == list(range(1, len(seen) + 1)), numbers


def test_two_searchers_continue_one_numbering(shared: Shared, tmp_path: Path) -> None:
    one = Searcher(shared.settings(tmp_path / "a"))
    two = Searcher(shared.settings(tmp_path / "b"))
    assert ids(one.context("req").assign([kb("a"), kb("b")])) == ["ref_001", "ref_002"]
    # Another worker: new keys continue the numbering, a known key keeps its id.
    assert ids(two.context("req").assign([kb("c"), kb("a")])) == ["ref_003", "ref_001"]
    assert ids(one.context("req").assign([kb("d"), kb("c")])) == ["ref_004", "ref_003"]
    # Another request starts its own numbering.
    assert ids(two.context("other").assign([kb("d")])) == ["ref_001"]
    stored = shared.client.hgetall(f"{shared.prefix}cite:req")
    assert {k.decode(): int(v) for k, v in stored.items()} == {
        "kb:c:a": 1,
        "kb:c:b": 2,
        "kb:c:c": 3,
        "kb:c:d": 4,
    }


def test_references_of_two_searchers_share_ids(shared: Shared, tmp_path: Path) -> None:
    report = LegReport(leg="kb", backend="c", status=Status.OK, hits=2)

    def result(*keys: str) -> SearchResult:
        return SearchResult(type="kb", query="q", items=tuple(map(kb, keys)), reports=(report,))

    one = Searcher(shared.settings(tmp_path / "a"))
    two = Searcher(shared.settings(tmp_path / "b"))
    first = one.references([result("x", "y")], request_id="turn-1")
    second = two.references([result("z", "x")], request_id="turn-1")
    assert sorted(ids(first.references), key=str) == ["ref_001", "ref_002"]
    by_key = {i.title: i.citation_id for i in (*first.references, *second.references)}
    assert by_key["z"] == "ref_003"
    assert 'id="ref_003"' in second.xml


def test_two_processes_never_collide(shared: Shared, tmp_path: Path) -> None:
    def job(keys: list[str], home: str) -> str:
        batches = [keys[i : i + 3] for i in range(0, len(keys), 3)]
        settings = {"home": home, "redis_url": shared.url, "redis_prefix": shared.prefix}
        return json.dumps(
            {"do": "cite", "settings": settings, "request_id": "r", "batches": batches}
        )

    a_keys = [f"k{i}" for i in range(0, 60)]
    b_keys = [f"k{i}" for i in range(30, 90)][::-1]  # overlap, met in the other order
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), job(keys, str(tmp_path / name))],
            stdout=subprocess.PIPE,
            text=True,
        )
        for keys, name in ((a_keys, "a"), (b_keys, "b"))
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    seen_a, seen_b = (json.loads(o) for o in outs)
    for key in set(seen_a) & set(seen_b):
        assert seen_a[key] == seen_b[key], key
    merged = {**seen_a, **seen_b}
    assert len(merged) == 90
    assert_one_numbering(merged)


def test_threads_assign_concurrently(shared: Shared) -> None:
    store = RedisCitationIds(RedisLink(shared.url, shared.prefix))
    results: list[dict[str, str]] = []
    barrier = threading.Barrier(8)

    def worker(n: int) -> None:
        ctx = CitationContext("threads", store=store)  # one context per "worker"
        keys = [f"t{(n * 7 + i) % 40}" for i in range(20)]
        barrier.wait()
        out: dict[str, str] = {}
        for i in range(0, len(keys), 4):
            for item in ctx.assign([kb(k) for k in keys[i : i + 4]]):
                out[item.title] = str(item.citation_id)
        results.append(out)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(results) == 8
    merged: dict[str, str] = {}
    for out in results:
        for key, cid in out.items():
            assert merged.setdefault(key, cid) == cid, key
    assert_one_numbering(merged)
    store.link.close()


def test_the_request_hash_expires(shared: Shared, tmp_path: Path) -> None:
    searcher = Searcher(shared.settings(tmp_path, citation_ttl_s=120))
    searcher.context("ttl").assign([kb("a")])
    ttl_ms = shared.client.pttl(f"{shared.prefix}cite:ttl")
    assert 110_000 < ttl_ms <= 120_000
    default = Searcher(shared.settings(tmp_path))
    default.context("ttl-default").assign([kb("a")])
    assert 86_000 < shared.client.ttl(f"{shared.prefix}cite:ttl-default") <= 86_400


class _FlakyStore:
    """Answers from a shared numbering, then goes down."""

    def __init__(self, answers: list[list[int] | None]) -> None:
        self.answers = answers

    def assign(self, request_id: str, keys: Sequence[str]) -> list[int] | None:
        return self.answers.pop(0)


def test_a_store_outage_numbers_on_after_the_highest_id_seen() -> None:
    # Other workers took 1-4; this one was given 5 and 6, then Redis went away.
    ctx = CitationContext("r", store=_FlakyStore([[5, 6], None]))
    assert ids(ctx.assign([kb("a"), kb("b")])) == ["ref_005", "ref_006"]
    assert ids(ctx.assign([kb("c"), kb("a")])) == ["ref_007", "ref_005"]
    assert len(ctx) == 3


def test_each_tenant_numbers_its_own_request(shared: Shared, tmp_path: Path) -> None:
    """Issue #20: one request id in two tenants is two numberings, in two Redis hashes."""
    from unifind.types import Principal

    one = Searcher(shared.settings(tmp_path / "a"))
    two = Searcher(shared.settings(tmp_path / "b"))
    acme, globex = Principal(tenant="acme"), Principal(tenant="globex")
    assert ids(one.context("req", acme).assign([kb("a"), kb("b")])) == ["ref_001", "ref_002"]
    assert ids(two.context("req", globex).assign([kb("b")])) == ["ref_001"]
    assert ids(two.context("req", acme).assign([kb("c"), kb("b")])) == ["ref_003", "ref_002"]
    assert ids(one.context("req").assign([kb("c")])) == ["ref_001"]  # no tenant: its own
    hashes = sorted(k.decode() for k in shared.client.keys(f"{shared.prefix}cite*"))
    assert len(hashes) == 3 and f"{shared.prefix}cite:req" in hashes
    assert not any("acme" in h or "globex" in h for h in hashes)  # names never in a key
