"""Citation numbers kept in the records database (issue #20): one numbering per
(tenant, request id) that every process and thread continues, with no Redis."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateTable

from unifind.cite import CitationContext
from unifind.cite.ids import IdStore
from unifind.config import Settings
from unifind.store import RecordStore
from unifind.store._citation_ids_sqlite import DDL, SqliteCitationIds, sqlite_file
from unifind.store._schema import make_tables
from unifind.types import Item

#: A store on a file for a tenant: SQLAlchemy's (any URL) or sqlite3's (a local file, #18).
Opener = Callable[[Path, "str | None"], IdStore | None]


def _by_sqlalchemy(path: Path, tenant: str | None, timeout_s: float = 5.0) -> IdStore | None:
    return RecordStore(f"sqlite:///{path}", connect_timeout_s=timeout_s).citation_ids(tenant)


def _by_sqlite3(path: Path, tenant: str | None, timeout_s: float = 5.0) -> IdStore | None:
    return SqliteCitationIds(path, tenant, timeout_s=timeout_s)


@pytest.fixture(params=[_by_sqlalchemy, _by_sqlite3], ids=["sqlalchemy", "sqlite3"])
def opener(request: pytest.FixtureRequest) -> Callable[..., IdStore | None]:
    fn: Callable[..., IdStore | None] = request.param
    return fn


def kb(key: str) -> Item:
    return Item(type="kb", title=key, content=key, collection="c", chunk_id=key)


def numbering(store: IdStore | None, rid: str, *keys: str) -> list[str]:
    ctx = CitationContext(rid, store=store)  # a fresh process' context
    return [str(i.citation_id) for i in ctx.assign([kb(k) for k in keys])]


def test_a_new_context_continues_and_keeps_ids(tmp_path: Path, opener: Opener) -> None:
    path = tmp_path / "records.sqlite"
    one, two = opener(path, None), opener(path, None)  # two stores: two processes' engines
    assert numbering(one, "r", "a", "b") == ["ref_001", "ref_002"]
    assert numbering(two, "r", "c", "a") == ["ref_003", "ref_001"]
    assert numbering(two, "other", "c") == ["ref_001"]


def test_tenants_never_share_a_numbering(tmp_path: Path, opener: Opener) -> None:
    path = tmp_path / "records.sqlite"
    assert numbering(opener(path, "acme"), "r", "a", "b") == ["ref_001", "ref_002"]
    assert numbering(opener(path, "globex"), "r", "b") == ["ref_001"]
    assert numbering(opener(path, None), "r", "z") == ["ref_001"]
    assert numbering(opener(path, "acme"), "r", "b", "z") == ["ref_002", "ref_003"]
    store = RecordStore(f"sqlite:///{path}")
    with store.engine.connect() as conn:  # the key is a digest: no chunk id or URL kept
        keys = conn.execute(sa.select(store.tables.citation_ids.c.item_key)).scalars().all()
    assert len(keys) == 5 and all(len(k) == 64 for k in keys)


def test_threads_numbering_at_once_agree(tmp_path: Path, opener: Callable[..., IdStore]) -> None:
    path = tmp_path / "records.sqlite"
    seen: dict[str, set[str]] = {}

    def work(n: int) -> None:
        store = opener(path, None, timeout_s=10)
        for k in (f"k{n}", "shared", f"j{n}"):
            [cid] = numbering(store, "r", k)
            seen.setdefault(k, set()).add(cid)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(len(v) == 1 for v in seen.values())  # one id per key
    numbers = sorted(int(next(iter(v)).removeprefix("ref_")) for v in seen.values())
    assert numbers == list(range(1, len(seen) + 1))  # no gaps, no number given twice


def test_an_unreachable_database_numbers_in_the_process(tmp_path: Path, opener: Opener) -> None:
    store = opener(tmp_path / "no" / "such" / "dir.sqlite", None)
    assert store is not None and store.assign("r", ["a"]) is None  # says it can't, no guess
    assert numbering(store, "r", "a", "b") == ["ref_001", "ref_002"]


def test_the_sqlite3_table_is_the_one_sqlalchemy_makes() -> None:
    theirs = str(CreateTable(make_tables().citation_ids, if_not_exists=True).compile(
        dialect=sqlite.dialect()))  # fmt: skip
    assert " ".join(DDL.replace(", ", ",").split()) == " ".join(theirs.replace(", ", ",").split())


def test_each_store_continues_a_file_the_other_created(tmp_path: Path) -> None:
    first, second = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    # sqlite3 creates the table; SQLAlchemy adds its other tables and numbers on.
    assert numbering(_by_sqlite3(first, "t"), "r", "a", "b") == ["ref_001", "ref_002"]
    assert numbering(_by_sqlalchemy(first, "t"), "r", "c", "a") == ["ref_003", "ref_001"]
    store = RecordStore(f"sqlite:///{first}")
    with store.engine.connect() as conn:  # sqlite3's timestamps read as SQLAlchemy's
        when = conn.execute(sa.select(store.tables.citation_ids.c.created_at)).scalars().all()
    assert len(when) == 3 and all(w.year >= 2024 for w in when)
    # SQLAlchemy creates every records table; sqlite3 numbers on in it.
    assert numbering(_by_sqlalchemy(second, None), "r", "x") == ["ref_001"]
    assert numbering(_by_sqlite3(second, None), "r", "y", "x") == ["ref_002", "ref_001"]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///{tmp}/r.sqlite", "{tmp}/r.sqlite"),
        ("sqlite+pysqlite:///{tmp}/r.sqlite", "{tmp}/r.sqlite"),
        ("sqlite:///:memory:", None),
        ("sqlite:///{tmp}/r.sqlite?mode=ro&uri=true", None),
        ("sqlite:///{tmp}/a%20b.sqlite", None),
        ("sqlite+aiosqlite:///{tmp}/r.sqlite", None),
        ("postgresql://localhost/test", None),
    ],
)
def test_sqlite3_serves_only_plain_sqlite_files(
    tmp_path: Path, url: str, expected: str | None
) -> None:
    settings = Settings(home=tmp_path / "home", records_url=url.format(tmp=tmp_path))
    got = sqlite_file(settings)
    assert got == (Path(expected.format(tmp=tmp_path)) if expected else None)
    assert sqlite_file(Settings(home=tmp_path / "home")) == tmp_path / "home" / "records.sqlite"
