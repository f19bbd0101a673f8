"""API keys: lifecycle, hashing at rest, caching and revocation, shared storage."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import secrets
import stat
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from unifind import InputError, UnknownName, load_settings
from unifind.errors import StoreError
from unifind.store.keys import KeyStore
from unifind.types import Principal

KEY = re.compile(r"uf_[0-9a-f]{12}_[A-Za-z0-9_-]{43}")


@pytest.fixture
def store(unifind_home: Path) -> Iterator[KeyStore]:
    with KeyStore.from_settings(load_settings()) as ks:
        yield ks


def test_lifecycle_create_verify_list_revoke(store: KeyStore) -> None:
    key_id, key = store.create("acme", "ana", ["support", "billing"], name="laptop")
    assert KEY.fullmatch(key) and key.startswith(f"uf_{key_id}_")
    assert store.verify(key) == Principal(tenant="acme", user="ana", roles=("support", "billing"))

    [info] = store.list()
    assert (info.key_id, info.tenant, info.user, info.name) == (key_id, "acme", "ana", "laptop")
    assert info.revoked_at is None and info.created_at.tzinfo is not None
    assert info.last_used_at is not None  # the verify above was a database lookup
    listed = str(info.to_json()) + repr(info)
    assert key.split("_", 2)[2] not in listed and key not in listed

    assert store.revoke(key_id) is True
    assert store.verify(key) is None  # same process: at once, despite the cache
    assert store.revoke(key_id) is False  # already revoked
    assert store.list()[0].revoked_at is not None
    assert store.list(include_revoked=False) == []


def test_keys_are_distinct_and_only_the_exact_key_verifies(store: KeyStore) -> None:
    key_id, key = store.create("acme", "ana")
    _, other = store.create("acme", "ana")
    assert key != other and store.verify(other) is not None
    secret = key.split("_", 2)[2]
    flipped = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    for bad in (
        f"uf_{key_id}_{flipped}",  # right id, wrong secret
        f"uf_{'0' * 12}_{secret}",  # unknown id
        key[:-1],  # truncated
        key + "x",
        secret,
        "",
        "Bearer " + key,
    ):
        assert store.verify(bad) is None, bad
    assert store.verify(key) is not None


def test_only_the_hash_is_stored(store: KeyStore, unifind_home: Path) -> None:
    _, key = store.create("acme", "ana", ["support"])
    store.close()
    raw = (unifind_home / "keys.sqlite").read_bytes()
    secret = key.split("_", 2)[2]
    assert secret.encode() not in raw and key.encode() not in raw
    assert hashlib.sha256(key.encode()).hexdigest().encode() in raw
    assert b"acme" in raw  # the file is the one the key went to


def test_keys_file_is_owner_only(store: KeyStore, unifind_home: Path) -> None:
    store.create("acme", "ana")
    mode = stat.S_IMODE((unifind_home / "keys.sqlite").stat().st_mode)
    assert mode == 0o600


def test_revocation_elsewhere_is_seen_within_the_cache_window(unifind_home: Path) -> None:
    settings = load_settings()
    server = KeyStore.from_settings(settings, cache_ttl_s=0.3)
    admin = KeyStore.from_settings(settings)  # another process, as far as caches go
    key_id, key = admin.create("acme", "ana")
    assert server.verify(key) is not None
    admin.revoke(key_id)
    assert server.verify(key) is not None  # cached: the documented window
    time.sleep(0.35)
    assert server.verify(key) is None
    assert server.verify(key) is None  # a refusal is not cached as a success either
    server.close()
    admin.close()


def test_last_used_is_written_at_most_once_a_minute(unifind_home: Path) -> None:
    ks = KeyStore.from_settings(load_settings(), cache_ttl_s=0)  # every verify hits the db
    _, key = ks.create("acme", "ana")
    assert ks.list()[0].last_used_at is None
    ks.verify(key)
    first = ks.list()[0].last_used_at
    assert first is not None
    ks.verify(key)
    assert ks.list()[0].last_used_at == first
    ks.close()


def test_bad_input_and_unknown_ids(store: KeyStore) -> None:
    for tenant, user, roles in (("", "ana", ()), ("acme", " ", ()), ("acme", "ana", ("",))):
        with pytest.raises(InputError):
            store.create(tenant, user, roles)
    key_id, _ = store.create("acme", "ana")
    with pytest.raises(UnknownName) as exc:
        store.revoke("ffffffffffff")
    assert key_id in str(exc.value)


def test_servers_on_one_records_database_share_keys(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    a = KeyStore.from_settings(load_settings(records_url=url))
    b = KeyStore.from_settings(load_settings(records_url=url))
    _, key = a.create("acme", "ana")
    assert b.verify(key) == Principal(tenant="acme", user="ana")
    tables = sa.inspect(sa.create_engine(url)).get_table_names()
    assert "unifind_api_keys" in tables
    assert not (load_settings().home / "keys.sqlite").exists()
    a.close()
    b.close()


def test_cached_verify_stays_well_under_a_millisecond(store: KeyStore) -> None:
    _, key = store.create("acme", "ana", ["support"])
    store.verify(key)
    times = []
    for _ in range(2000):
        t0 = time.perf_counter()
        store.verify(key)
        times.append(time.perf_counter() - t0)
    p50 = statistics.median(times)
    print(f"cached verify p50 {p50 * 1e6:.1f} µs")
    assert p50 < 1e-3


def test_averify_answers_like_verify(store: KeyStore) -> None:
    key_id, key = store.create("acme", "ana")
    assert asyncio.run(store.averify(key)) == Principal(tenant="acme", user="ana")
    assert asyncio.run(store.averify(key)) is not None  # cached path
    store.revoke(key_id)
    assert asyncio.run(store.averify(key)) is None


@pytest.mark.postgres
def test_keys_on_postgres_are_shared_by_every_server() -> None:
    pytest.importorskip("psycopg", reason='the PostgreSQL driver: pip install "unifind[postgres]"')
    dsn = os.environ.get("UNIFIND_TEST_PG_DSN", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    prefix = f"t{secrets.token_hex(4)}_"
    a = KeyStore(dsn, table_prefix=prefix, connect_timeout_s=3)
    try:
        key_id, key = a.create("acme", "ana", ["support"])
    except StoreError as exc:
        a.close()
        pytest.skip(f"no PostgreSQL server at {dsn}: {exc}")
    b = KeyStore(dsn, table_prefix=prefix, cache_ttl_s=0)
    try:
        assert b.verify(key) == Principal(tenant="acme", user="ana", roles=("support",))
        assert [k.key_id for k in b.list()] == [key_id]
        assert b.list()[0].last_used_at is not None
        a.revoke(key_id)
        assert b.verify(key) is None  # no cache in b: the revocation is seen at once
    finally:
        a.table.drop(a.engine)
        a.close()
        b.close()
