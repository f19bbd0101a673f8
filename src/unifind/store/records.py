"""Search records in SQL (DESIGN §10): what each request searched, found and cited.

One ``RecordStore`` over any SQLAlchemy URL; the embedded default is ``records.sqlite``
under ``settings.home``. Tables are created on first use. Records are never removed:
``delete_searches`` stamps ``deleted_at`` and the getters stop seeing them.

Tenancy: a record carries the tenant and owner of the principal that saved it. A getter
given a principal sees only that principal's tenant. A getter given no principal sees only
records saved without a tenant: the embedded single-user space works with no setup, and a
multi-tenant deployment's records stay unreachable to a caller that was not authenticated
(fail closed, DESIGN §10).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

import sqlalchemy as sa

from unifind.config import Settings
from unifind.errors import ConfigError, MissingDependency, StoreError
from unifind.store._citation_ids import RecordCitationIds
from unifind.store._model import Reference, RefsArg, SearchRecord, record_from_result
from unifind.store._schema import make_tables
from unifind.types import Principal, SearchResult, SearchResults, Source

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Drivers that are optional extras, and the extra that installs them.
_EXTRAS = {"psycopg": "postgres", "psycopg2": "postgres", "pymysql": "mysql"}
#: ``ref_007`` → 7: the citation id's number is the global index (unifind.cite.ids).
_CITATION_NUMBER = re.compile(r"\D*(\d+)")
#: Reference fields stored as columns of the same name (``index`` is ``ref_index``).
_REF_COLUMNS = tuple(name for name in Reference.model_fields if name != "index")
_RECORD_JSON = ("config", "keywords", "entities", "relations", "dsl", "graph", "reports")


def _utc(when: datetime | None) -> datetime | None:
    # SQLite hands DateTime back naive; every time we write is UTC, so say so.
    if when is None or when.tzinfo is not None:
        return when
    return when.replace(tzinfo=UTC)


def _as_utc(when: datetime) -> datetime:
    # SQLite's DateTime drops the offset on write, so convert before it does; a naive
    # time from the caller is taken as UTC already.
    return when.astimezone(UTC) if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _citation_number(citation_id: str | None) -> int | None:
    m = _CITATION_NUMBER.fullmatch(citation_id or "")
    number = int(m.group(1)) if m else 0
    return number if number > 0 else None


def _tenant_is(searches: sa.Table, tenant: str | None) -> sa.ColumnElement[bool]:
    col = searches.c.tenant
    return col.is_(None) if tenant is None else col == tenant


def _connect_args(url: sa.URL, timeout_s: float) -> dict[str, Any]:
    backend, driver = url.get_backend_name(), url.get_driver_name()
    if backend == "sqlite":
        return {"timeout": timeout_s}  # how long to wait on a locked file
    if backend == "postgresql" and driver in ("psycopg", "psycopg2"):
        # libpq takes whole seconds and treats anything under 2 as 2
        # (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNECT-CONNECT-TIMEOUT).
        return {"connect_timeout": max(2, math.ceil(timeout_s))}
    if backend == "mysql" and driver in ("pymysql", "mysqldb"):
        return {"connect_timeout": max(1, math.ceil(timeout_s))}
    return {}


def _make_engine(url: str | sa.URL, timeout_s: float) -> sa.Engine:
    try:
        parsed = sa.make_url(url)
        return sa.create_engine(
            parsed,
            connect_args=_connect_args(parsed, timeout_s),
            # Keep Chinese and other non-ASCII text readable in the JSON columns.
            json_serializer=lambda obj: json.dumps(obj, ensure_ascii=False),
            pool_pre_ping=parsed.get_backend_name() != "sqlite",
        )
    except ModuleNotFoundError as exc:
        name = (exc.name or "").split(".")[0]
        raise MissingDependency(name, _EXTRAS.get(name)) from exc
    except sa.exc.ArgumentError as exc:
        raise ConfigError(f"invalid records URL {url!s}: {exc}") from exc


def _why(exc: sa.exc.SQLAlchemyError) -> str:
    # The driver's own message, without SQLAlchemy's statement dump and help link.
    return str(getattr(exc, "orig", None) or exc).strip()


class RecordStore:
    """Search records on one SQL database (any SQLAlchemy URL)."""

    def __init__(
        self,
        url: str | sa.URL,
        *,
        table_prefix: str = "unifind_",
        schema: str | None = None,
        connect_timeout_s: float = 5.0,
    ) -> None:
        """``schema`` must already exist; ``table_prefix`` lets several stores share one."""
        self.engine = _make_engine(url, connect_timeout_s)
        self.tables = make_tables(table_prefix, schema)
        self._ready = False
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, **kwargs: Any) -> RecordStore:
        """``settings.records_url`` if set, else ``records.sqlite`` under ``settings.home``.

        A configured URL that can't be used (malformed, its driver missing) gives a store
        whose every call raises why and whose ``try_save`` logs it: a search made with a
        request_id keeps its results (issue #9), reading records still fails loudly.
        """
        url = getattr(settings, "records_url", None)
        try:
            if not url:
                url = sa.URL.create(
                    "sqlite", database=str(settings.ensure_home() / "records.sqlite")
                )
            return cls(url, **kwargs)
        except ConfigError as exc:  # MissingDependency is a ConfigError too
            return _Unusable(str(url or settings.home / "records.sqlite"), exc)

    @property
    def url(self) -> str:
        """The database URL, password hidden."""
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()

    def drop_tables(self) -> None:
        """Drop this store's tables and every record in them (for tests and teardown)."""
        self._guard("drop records tables", lambda: self.tables.metadata.drop_all(self.engine))
        self._ready = False

    def _ensure(self) -> None:
        if self._ready:
            return
        with self._lock:
            if not self._ready:
                self.tables.metadata.create_all(self.engine)
                self._ready = True

    def _guard(self, what: str, fn: Callable[[], T]) -> T:
        """Run ``fn`` on ready tables; database faults become StoreError naming the URL."""
        try:
            self._ensure()
            return fn()
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(f"cannot {what} on {self.url}: {_why(exc)}") from exc

    def citation_ids(self, tenant: str | None) -> RecordCitationIds | None:
        """Where ``tenant``'s citation numbers are kept (``unifind.cite.ids.IdStore``)."""
        return RecordCitationIds(self.engine, self.tables.citation_ids, tenant, self._ensure)

    def _scope(self, principal: Principal | None) -> sa.ColumnElement[bool]:
        return _tenant_is(self.tables.searches, principal.tenant if principal else None)

    # -- writing ----------------------------------------------------------------------

    def save(self, record: SearchRecord) -> int:
        """Store ``record`` and its references; returns its id. Raises StoreError."""
        return self._guard("save a search record", lambda: self._insert(record))

    def try_save(self, record: SearchRecord) -> int | None:
        """``save`` that logs a warning and returns None instead of raising.

        A failed save never fails the search (issue #5): callers on the search path
        use this one.
        """
        try:
            return self.save(record)
        except (StoreError, ConfigError) as exc:
            log.warning("search record for request %r not saved: %s", record.request_id, exc)
        except Exception:
            # Not a database fault, so a bug: keep the traceback, still don't fail the search.
            log.warning("search record for request %r not saved", record.request_id, exc_info=True)
        return None

    async def atry_save(self, record: SearchRecord) -> int | None:
        """``try_save`` off the event loop (the database calls block)."""
        return await asyncio.to_thread(self.try_save, record)

    def save_result(
        self,
        request_id: str,
        result: SearchResult | SearchResults,
        *,
        chat_id: str | None = None,
        assistant_id: str | None = None,
        refs: RefsArg = None,
        principal: Principal | None = None,
        source: Source = "hook",
        config: Mapping[str, Any] | None = None,
        duration_ms: float | None = None,
        error: str | None = None,
    ) -> int:
        """Save the record of a search result; see ``record_from_result`` for the fields."""
        record = record_from_result(
            request_id,
            result,
            chat_id=chat_id,
            assistant_id=assistant_id,
            refs=refs,
            principal=principal,
            source=source,
            config=config,
            duration_ms=duration_ms,
            error=error,
        )
        return self.save(record)

    def _insert(self, record: SearchRecord) -> int:
        s, r = self.tables.searches, self.tables.refs
        row = record.model_dump(
            mode="json", exclude={"id", "references", "created_at", "deleted_at"}
        )
        row["created_at"] = _as_utc(record.created_at or datetime.now(UTC))
        row["deleted_at"] = record.deleted_at and _as_utc(record.deleted_at)
        with self.engine.begin() as conn:
            inserted = conn.execute(s.insert().values(**row)).inserted_primary_key
            if inserted is None:
                raise StoreError(f"{self.url} returned no id for the new search record")
            search_id = int(inserted[0])
            indices = self._indices(conn, record)
            refs = [
                {
                    **ref.model_dump(mode="json", include=set(_REF_COLUMNS)),
                    "search_id": search_id,
                    "request_id": record.request_id,
                    "ref_index": index,
                }
                for ref, index in zip(record.references, indices, strict=True)
            ]
            if refs:
                conn.execute(r.insert(), refs)
        return search_id

    def _indices(self, conn: sa.Connection, record: SearchRecord) -> list[int]:
        """Each reference's global index: given, else its citation id's number, else next."""
        found = [ref.index or _citation_number(ref.citation_id) for ref in record.references]
        if None not in found:
            return [i for i in found if i is not None]
        s, r = self.tables.searches, self.tables.refs
        # Indexes continue across every save made for the request (in the same tenant).
        q = (
            sa.select(sa.func.max(r.c.ref_index))
            .join(s, r.c.search_id == s.c.id)
            .where(r.c.request_id == record.request_id, _tenant_is(s, record.tenant))
        )
        last = max([conn.execute(q).scalar() or 0, *(i for i in found if i is not None)])
        out = []
        for index in found:
            if index is None:
                last += 1
            out.append(index or last)
        return out

    # -- reading ----------------------------------------------------------------------

    def get_searches(
        self, request_id: str, *, principal: Principal | None = None
    ) -> list[SearchRecord]:
        """The request's records that are not deleted, oldest first, with their references."""
        return self._guard("read search records", lambda: self._select(request_id, principal))

    def recent(self, limit: int = 20, *, principal: Principal | None = None) -> list[SearchRecord]:
        """The latest records that are not deleted, newest first, with their references."""
        s = self.tables.searches
        q = (
            sa.select(s)
            .where(s.c.deleted_at.is_(None), self._scope(principal))
            .order_by(s.c.created_at.desc(), s.c.id.desc())
            .limit(limit)
        )
        return self._guard("read search records", lambda: self._records(q))

    def _select(self, request_id: str, principal: Principal | None) -> list[SearchRecord]:
        s = self.tables.searches
        where = (s.c.request_id == request_id, s.c.deleted_at.is_(None), self._scope(principal))
        return self._records(sa.select(s).where(*where).order_by(s.c.created_at, s.c.id))

    def _records(self, query: sa.Select[Any]) -> list[SearchRecord]:
        """The records ``query`` selects from the searches table, in its order, with refs."""
        r = self.tables.refs
        with self.engine.connect() as conn:
            records = [dict(row._mapping) for row in conn.execute(query)]
            ids = [rec["id"] for rec in records]
            refs: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
            if ids:
                q = sa.select(r).where(r.c.search_id.in_(ids)).order_by(r.c.search_id, r.c.id)
                for ref in conn.execute(q):
                    refs[ref.search_id].append(_ref_dict(ref._mapping))
        return [_record(rec, refs[rec["id"]]) for rec in records]

    def get_reference(
        self, request_id: str, index: int, *, principal: Principal | None = None
    ) -> dict[str, Any] | None:
        """The reference with 1-based global ``index`` in the request, as JSON, or None.

        When a later search returned the same item again (same citation id), the first
        saved copy answers.
        """
        s, r = self.tables.searches, self.tables.refs
        q = (
            sa.select(r)
            .join(s, r.c.search_id == s.c.id)
            .where(r.c.request_id == request_id, r.c.ref_index == index)
            .where(s.c.deleted_at.is_(None), self._scope(principal))
            .order_by(r.c.id)
            .limit(1)
        )

        def run() -> dict[str, Any] | None:
            with self.engine.connect() as conn:
                row = conn.execute(q).first()
            return None if row is None else _ref_dict(row._mapping)

        return self._guard("read a search reference", run)

    def delete_searches(self, chat_id: str, *, principal: Principal | None = None) -> int:
        """Soft-delete the chat's records (in the caller's tenant); returns how many."""
        s = self.tables.searches
        stmt = (
            sa.update(s)
            .where(s.c.chat_id == chat_id, s.c.deleted_at.is_(None), self._scope(principal))
            .values(deleted_at=datetime.now(UTC))
        )

        def run() -> int:
            with self.engine.begin() as conn:
                return int(conn.execute(stmt).rowcount)

        return self._guard("delete search records", run)


def _ref_dict(row: sa.RowMapping) -> dict[str, Any]:
    out = {"index": row["ref_index"], **{k: row[k] for k in _REF_COLUMNS}}
    out["metadata"] = out["metadata"] or {}
    return out


def _record(row: Mapping[str, Any], refs: Sequence[Mapping[str, Any]]) -> SearchRecord:
    data = dict(row)
    for key in _RECORD_JSON:
        if data[key] is None:
            data.pop(key)
    data["created_at"] = _utc(data["created_at"])
    data["deleted_at"] = _utc(data["deleted_at"])
    return SearchRecord.model_validate({**data, "references": list(refs)})


class _Unusable(RecordStore):
    """A records store whose configured URL can't be used: every call raises why."""

    def __init__(self, url: str, error: ConfigError) -> None:  # no engine can be made
        self._url = re.sub(r"//[^/@]*@", "//***@", url)  # never log a password
        self._error = error
        self.tables = make_tables("unifind_", None)
        self._ready, self._lock = False, threading.Lock()

    @property
    def url(self) -> str:
        return self._url

    def citation_ids(self, tenant: str | None) -> RecordCitationIds | None:
        return None  # numbered per process, as without records

    def close(self) -> None:
        pass

    def _guard(self, what: str, fn: Callable[[], T]) -> T:
        raise self._error.with_traceback(None)
