"""Citation numbers kept in the records database (issue #20): one numbering per
(tenant, request id) that every process and thread continues, with no Redis."""

from __future__ import annotations

import threading
from pathlib import Path

import sqlalchemy as sa

from unifind.cite import CitationContext
from unifind.store import RecordStore
from unifind.types import Item


def kb(key: str) -> Item:
    return Item(type="kb", title=key, content=key, collection="c", chunk_id=key)


def numbering(store: RecordStore, tenant: str | None, rid: str, *keys: str) -> list[str]:
    ctx = CitationContext(rid, store=store.citation_ids(tenant))  # a fresh process' context
    return [str(i.citation_id) for i in ctx.assign([kb(k) for k in keys])]


def test_a_new_context_continues_and_keeps_ids(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'records.sqlite'}"
    one, two = RecordStore(url), RecordStore(url)  # two stores: two processes' engines
    assert numbering(one, None, "r", "a", "b") == ["ref_001", "ref_002"]
    assert numbering(two, None, "r", "c", "a") == ["ref_003", "ref_001"]
    assert numbering(two, None, "other", "c") == ["ref_001"]


def test_tenants_never_share_a_numbering(tmp_path: Path) -> None:
    store = RecordStore(f"sqlite:///{tmp_path / 'records.sqlite'}")
    assert numbering(store, "acme", "r", "a", "b") == ["ref_001", "ref_002"]
    assert numbering(store, "globex", "r", "b") == ["ref_001"]
    assert numbering(store, None, "r", "z") == ["ref_001"]
    assert numbering(store, "acme", "r", "b", "z") == ["ref_002", "ref_003"]
    with store.engine.connect() as conn:  # the key is a digest: no chunk id or URL kept
        keys = conn.execute(sa.select(store.tables.citation_ids.c.item_key)).scalars().all()
    assert all(len(k) == 64 for k in keys)


def test_threads_numbering_at_once_agree(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'records.sqlite'}"
    seen: dict[str, set[str]] = {}

    def work(n: int) -> None:
        store = RecordStore(url, connect_timeout_s=10)
        for k in (f"k{n}", "shared", f"j{n}"):
            [cid] = numbering(store, None, "r", k)
            seen.setdefault(k, set()).add(cid)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(v) == 1 for v in seen.values())  # one id per key
    numbers = sorted(int(next(iter(v)).removeprefix("ref_")) for v in seen.values())
    assert numbers == list(range(1, len(seen) + 1))  # no gaps, no number given twice


def test_an_unreachable_database_numbers_in_the_process(tmp_path: Path) -> None:
    store = RecordStore(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir.sqlite'}")
    assert numbering(store, None, "r", "a", "b") == ["ref_001", "ref_002"]
