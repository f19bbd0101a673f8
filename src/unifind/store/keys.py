"""API keys (DESIGN §12): each maps a bearer secret to a principal (tenant, user, roles).

A key reads ``uf_<key_id>_<secret>``: ``key_id`` (12 hex characters) is public and names
the key in listings and logs; ``secret`` is ``secrets.token_urlsafe(32)`` (256 bits). Only
the SHA-256 of the whole key is stored. A fast hash is enough because the secret is
random and long: there is no dictionary to run, unlike a password (GitHub's and Stripe's
tokens are stored the same way). Verification looks the row up by ``key_id`` and compares
digests with ``hmac.compare_digest``, so timing says nothing about the stored hash.

Where keys live: in ``settings.records_url`` when it is set, so every server on one
PostgreSQL shares the keys (stateless workers behind a load balancer, DESIGN §11);
otherwise in their own ``keys.sqlite`` under ``settings.home``, created owner-only
(0600): credentials should not share a file with search records, which grow with every
request and get copied around for analysis.

Caching: ``verify`` keeps a verified key in memory for ``cache_ttl_s`` (5 s by default),
so a server verifying every request answers from a dict (microseconds). The price: a key
revoked by *another process* keeps working there for up to ``cache_ttl_s``; ``revoke`` in
this process takes effect at once. Unknown and revoked keys are never cached.
``last_used_at`` is written at most once a minute per key, and only on a cache miss.
"""

from __future__ import annotations

import asyncio
import builtins
import hashlib
import hmac
import logging
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa

from unifind.config import Settings
from unifind.errors import InputError, StoreError, UnknownName
from unifind.store.records import _make_engine, _utc, _why
from unifind.types import Principal

log = logging.getLogger(__name__)
T = TypeVar("T")

PREFIX = "uf_"
_KEY = re.compile(r"uf_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
#: How stale ``last_used_at`` may get: writing it on every request would cost a write each.
_TOUCH_EVERY = timedelta(minutes=1)
_CACHE_MAX = 10_000


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """An API key as listed: everything but the secret (which is never stored)."""

    key_id: str
    tenant: str
    user: str
    roles: tuple[str, ...]
    name: str | None
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def principal(self) -> Principal:
        return Principal(tenant=self.tenant, user=self.user, roles=self.roles)

    def to_json(self) -> dict[str, Any]:
        when = (self.created_at, self.last_used_at, self.revoked_at)
        c, u, r = (w.isoformat() if w else None for w in when)
        return {
            "key_id": self.key_id,
            "tenant": self.tenant,
            "user": self.user,
            "roles": list(self.roles),
            "name": self.name,
            "created_at": c,
            "last_used_at": u,
            "revoked_at": r,
        }


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _table(md: sa.MetaData, prefix: str) -> sa.Table:
    return sa.Table(
        f"{prefix}api_keys",
        md,
        sa.Column("key_id", sa.String(32), primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("tenant", sa.String(255), nullable=False),
        sa.Column("user", sa.String(255), nullable=False),
        sa.Column("roles", sa.JSON, nullable=False),
        sa.Column("name", sa.String(255)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True)),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
    )


def _owner_only(path: Path) -> None:
    """Create the SQLite file readable by its owner only, before SQLite creates it 0644."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(path, os.O_CREAT | os.O_RDWR, 0o600))


def _clean(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{what} must be a non-empty string, got {value!r}")
    return value.strip()


class KeyStore:
    """API keys on one SQL database; ``verify`` turns a bearer secret into a Principal."""

    def __init__(
        self,
        url: str | sa.URL,
        *,
        cache_ttl_s: float = 5.0,
        table_prefix: str = "unifind_",
        connect_timeout_s: float = 5.0,
    ) -> None:
        self.engine = _make_engine(url, connect_timeout_s)
        self.table = _table(sa.MetaData(), table_prefix)
        self.cache_ttl_s = cache_ttl_s
        # digest → (principal, key_id, monotonic expiry)
        self._cache: dict[str, tuple[Principal, str, float]] = {}
        self._lock = threading.Lock()
        self._ready = False

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> KeyStore:
        """``settings.records_url`` if set, else ``keys.sqlite`` (0600) under home."""
        if settings.records_url:
            return cls(settings.records_url, **kwargs)
        path = settings.ensure_home() / "keys.sqlite"
        _owner_only(path)
        return cls(sa.URL.create("sqlite", database=str(path)), **kwargs)

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> KeyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _ensure(self) -> None:
        if self._ready:
            return
        with self._lock:
            if not self._ready:
                self.table.metadata.create_all(self.engine)
                self._ready = True

    def _run(self, what: str, fn: Callable[[], T]) -> T:
        try:
            self._ensure()
            return fn()
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(f"cannot {what} on {self.url}: {_why(exc)}") from exc

    # -- managing keys ------------------------------------------------------------------

    def create(
        self, tenant: str, user: str, roles: Sequence[str] = (), name: str | None = None
    ) -> tuple[str, str]:
        """Create a key; returns ``(key_id, key)``. The key is shown this once: only its
        hash is stored."""
        row = {
            "tenant": _clean(tenant, "tenant"),
            "user": _clean(user, "user"),
            "roles": list(dict.fromkeys(_clean(r, "role") for r in roles)),
            "name": name.strip() if name and name.strip() else None,
            "created_at": datetime.now(UTC),
        }
        key_id = secrets.token_hex(6)
        key = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"

        def insert() -> None:
            with self.engine.begin() as conn:
                conn.execute(
                    self.table.insert().values(key_id=key_id, key_hash=_digest(key), **row)
                )

        self._run("create an API key", insert)
        return key_id, key

    def list(self, *, include_revoked: bool = True) -> builtins.list[KeyInfo]:
        """Every key, oldest first, without secrets."""
        t = self.table
        q = sa.select(t).order_by(t.c.created_at, t.c.key_id)
        if not include_revoked:
            q = q.where(t.c.revoked_at.is_(None))

        def select() -> builtins.list[KeyInfo]:
            with self.engine.connect() as conn:
                return [_info(r._mapping) for r in conn.execute(q)]

        return self._run("list API keys", select)

    def revoke(self, key_id: str) -> bool:
        """Revoke a key: True when it was live, False when already revoked.

        Unknown ids raise UnknownName. Other processes' caches drop it within ``cache_ttl_s``.
        """
        t = self.table

        def update() -> int | None:
            with self.engine.begin() as conn:
                found = conn.execute(sa.select(t.c.revoked_at).where(t.c.key_id == key_id)).first()
                if found is None:
                    return None
                if found[0] is not None:
                    return 0
                stmt = sa.update(t).where(t.c.key_id == key_id, t.c.revoked_at.is_(None))
                return int(conn.execute(stmt.values(revoked_at=datetime.now(UTC))).rowcount)

        changed = self._run("revoke an API key", update)
        with self._lock:
            for digest in [d for d, (_, kid, _) in self._cache.items() if kid == key_id]:
                del self._cache[digest]
        if changed is None:
            raise UnknownName("API key", key_id, [k.key_id for k in self.list()])
        return changed > 0

    # -- verifying ----------------------------------------------------------------------

    def verify(self, key: str) -> Principal | None:
        """The principal of a live key; None for a malformed, unknown or revoked one.

        Database faults raise StoreError (a server should answer 503, not 401).
        """
        m = _KEY.fullmatch(key)
        if m is None:
            return None
        digest = _digest(key)
        now = time.monotonic()
        hit = self._cache.get(digest)
        if hit is not None and hit[2] > now:
            return hit[0]
        found = self._lookup(m.group(1), digest)
        if found is None:
            self._cache.pop(digest, None)
            return None
        with self._lock:
            if len(self._cache) >= _CACHE_MAX:
                self._cache.clear()  # crude, but bounded; live keys refill within one miss each
            self._cache[digest] = (found, m.group(1), now + self.cache_ttl_s)
        return found

    async def averify(self, key: str) -> Principal | None:
        """:meth:`verify` with the database lookup (a cache miss) off the event loop."""
        hit = self._cache.get(_digest(key))
        if hit is not None and hit[2] > time.monotonic():
            return hit[0]
        return await asyncio.to_thread(self.verify, key)

    def _lookup(self, key_id: str, digest: str) -> Principal | None:
        t = self.table

        def select() -> sa.RowMapping | None:
            with self.engine.connect() as conn:
                row = conn.execute(sa.select(t).where(t.c.key_id == key_id)).first()
            return None if row is None else row._mapping

        row = self._run("verify an API key", select)
        if row is None or not hmac.compare_digest(row["key_hash"], digest):
            return None
        if row["revoked_at"] is not None:
            return None
        self._touch(key_id, _utc(row["last_used_at"]))
        return Principal(tenant=row["tenant"], user=row["user"], roles=tuple(row["roles"]))

    def _touch(self, key_id: str, last: datetime | None) -> None:
        now = datetime.now(UTC)
        if last is not None and now - last < _TOUCH_EVERY:
            return
        t = self.table
        try:
            with self.engine.begin() as conn:
                conn.execute(sa.update(t).where(t.c.key_id == key_id).values(last_used_at=now))
        except sa.exc.SQLAlchemyError as exc:  # bookkeeping must not fail a request
            log.warning("API key %s: last_used_at not written: %s", key_id, _why(exc))


def _info(row: sa.RowMapping) -> KeyInfo:
    created = _utc(row["created_at"])
    assert created is not None  # NOT NULL column
    return KeyInfo(
        key_id=row["key_id"],
        tenant=row["tenant"],
        user=row["user"],
        roles=tuple(row["roles"] or ()),
        name=row["name"],
        created_at=created,
        last_used_at=_utc(row["last_used_at"]),
        revoked_at=_utc(row["revoked_at"]),
    )
