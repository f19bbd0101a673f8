"""The two tables behind search records, in SQLAlchemy Core, portable across dialects.

``searches`` holds one row per saved record; ``search_refs`` one row per reference, so
``(request_id, ref_index)`` is an indexed lookup rather than a scan of JSON blobs.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

# SQLite only auto-increments an ``INTEGER PRIMARY KEY`` (https://sqlite.org/autoinc.html),
# so the 64-bit id becomes plain INTEGER there (which is 64-bit in SQLite anyway).
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
# JSONB on PostgreSQL: binary, indexable, and it drops the whitespace json keeps.
_JSON = sa.JSON().with_variant(JSONB(), "postgresql")
_KEY = sa.String(255)
_WHEN = sa.DateTime(timezone=True)


@dataclass(frozen=True)
class Tables:
    """The record tables under one prefix (and optional schema)."""

    metadata: sa.MetaData
    searches: sa.Table
    refs: sa.Table
    citation_ids: sa.Table


def _searches(md: sa.MetaData, prefix: str) -> sa.Table:
    name = f"{prefix}searches"
    return sa.Table(
        name,
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("request_id", _KEY, nullable=False),
        sa.Column("chat_id", _KEY),
        sa.Column("assistant_id", _KEY),
        sa.Column("leg", sa.String(16), nullable=False),
        sa.Column("query", sa.Text, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("config", _JSON),
        sa.Column("keywords", _JSON),
        sa.Column("entities", _JSON),
        sa.Column("relations", _JSON),
        sa.Column("dsl", _JSON),
        sa.Column("graph", _JSON),
        sa.Column("xml", sa.Text),
        sa.Column("prompt", sa.Text),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reports", _JSON),
        sa.Column("duration_ms", sa.Float),
        sa.Column("error", sa.Text),
        sa.Column("tenant", _KEY),
        sa.Column("owner", _KEY),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("deleted_at", _WHEN),
        sa.Index(f"ix_{name}_request_id", "request_id"),
        sa.Index(f"ix_{name}_chat_id", "chat_id"),
        sa.Index(f"ix_{name}_tenant", "tenant"),
    )


def _refs(md: sa.MetaData, prefix: str, searches: sa.Table) -> sa.Table:
    name = f"{prefix}search_refs"
    return sa.Table(
        name,
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column(
            "search_id",
            _ID,
            sa.ForeignKey(searches.c.id, ondelete="CASCADE"),
            nullable=False,
        ),
        # Copied from the search row so the (request_id, index) lookup needs no join to find.
        sa.Column("request_id", _KEY, nullable=False),
        sa.Column("ref_index", sa.Integer, nullable=False),
        sa.Column("citation_id", _KEY),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("url", sa.Text),
        sa.Column("content", sa.Text),
        sa.Column("document_id", _KEY),
        sa.Column("collection", _KEY),
        sa.Column("chunk_id", _KEY),
        sa.Column("model", _KEY),
        sa.Column("record_id", _KEY),
        sa.Column("data", _JSON),
        sa.Column("metadata", _JSON),
        sa.Column("score", sa.Float),
        sa.Column("weight", sa.Float),
        sa.Column("source", sa.String(16)),
        sa.Index(f"ix_{name}_request_index", "request_id", "ref_index"),
        sa.Index(f"ix_{name}_search_id", "search_id"),
    )


def _citation_ids(md: sa.MetaData, prefix: str) -> sa.Table:
    """A request's citation numbers per tenant, so every process continues one numbering
    when there is no Redis (:mod:`unifind.store._citation_ids`)."""
    name = f"{prefix}citation_ids"
    return sa.Table(
        name,
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        # "-" for no tenant, "t:<name>" otherwise: NULLs are never equal in a UNIQUE index.
        sa.Column("scope", _KEY, nullable=False),
        sa.Column("request_id", _KEY, nullable=False),
        # The sha256 of the item's dedupe key: a URL may be longer than an index allows.
        sa.Column("item_key", sa.String(64), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        # Two processes numbering at once: the loser's insert fails here and it reads again.
        sa.UniqueConstraint("scope", "request_id", "item_key", name=f"uq_{name}_key"),
        sa.UniqueConstraint("scope", "request_id", "number", name=f"uq_{name}_number"),
    )


def make_tables(prefix: str = "unifind_", schema: str | None = None) -> Tables:
    """Declare the record tables; nothing touches a database until ``create_all``."""
    md = sa.MetaData(schema=schema)
    searches = _searches(md, prefix)
    return Tables(md, searches, _refs(md, prefix, searches), _citation_ids(md, prefix))
