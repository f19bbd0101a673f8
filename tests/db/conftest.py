"""DB-leg fixtures: the demo shop on SQLite, pinned to one date so tests are repeatable."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from unifind.db.demo import DEMO_MODELS_YAML, create_demo
from unifind.db.execute import make_engine
from unifind.db.leg import DBLeg
from unifind.db.models import Model, introspect, load_models
from unifind.types import Principal, SearchRequest, SearchResult

from ._joins_gen_schema import create, models

TODAY = dt.date(2024, 6, 15)


@pytest.fixture(scope="session")
def shop_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return create_demo(tmp_path_factory.mktemp("shop") / "shop.sqlite", today=TODAY)


@pytest.fixture(scope="session")
def shop_models(shop_path: Path) -> dict[str, Model]:
    engine = make_engine(f"sqlite:///{shop_path}")
    try:
        return introspect(engine, load_models(DEMO_MODELS_YAML))
    finally:
        engine.dispose()


@pytest.fixture
def leg(shop_path: Path) -> Iterator[DBLeg]:
    shop = DBLeg(f"sqlite:///{shop_path}", DEMO_MODELS_YAML, config={"today": TODAY.isoformat()})
    yield shop
    shop.close()


def ids(conn_url: str, sql: str) -> list[Any]:
    """Row ids of hand-written SQL, the oracle the leg is checked against."""
    engine = sa.create_engine(conn_url)
    try:
        with engine.connect() as conn:
            return [r[0] for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


@pytest.fixture
def sports(tmp_path: Path) -> Iterator[tuple[DBLeg, str]]:
    """The issue-#19 athletes schema (tests/db/_schema19.py) and a leg over it."""
    from ._schema19 import athletes_db

    url, models = athletes_db(tmp_path)
    leg = DBLeg(url, models)
    yield leg, url
    leg.close()


def library_leg(tmp: Path, *, tenant: bool) -> tuple[DBLeg, str]:
    """The library schema (tests/db/_joins_gen_schema.py) in a new SQLite file under
    ``tmp``: a leg over it (close it) and its URL, for the oracle."""
    url = f"sqlite:///{tmp / 'library.sqlite'}"
    engine = sa.create_engine(url)
    create(engine)
    engine.dispose()
    return DBLeg(url, models(tenant=tenant)), url


@pytest.fixture
def library(tmp_path: Path) -> Iterator[tuple[DBLeg, str]]:
    """The library schema with its tenants, for the QueryDSL tests: (leg, URL)."""
    leg, url = library_leg(tmp_path, tenant=True)
    yield leg, url
    leg.close()


def rows(conn_url: str, sql: str) -> list[tuple[Any, ...]]:
    """Whole rows of hand-written SQL (``ids`` keeps the first column only)."""
    engine = sa.create_engine(conn_url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


async def run_dsl(leg: DBLeg, dsl: dict[str, Any], principal: Principal | None = None) -> Any:
    """The leg's answer to an agent's QueryDSL ``dsl`` (a SearchResult; typed Any so the
    tests may index ``item.data``, which is None only for a failure they assert on)."""
    req = SearchRequest(type="db", query="agent query", uses="dsl", dsl=dsl, limit=100)
    return await leg.search(req, principal=principal)


def dsl_of(res: SearchResult) -> dict[str, Any]:
    """``res.dsl``, asserted present (the typed form a test indexes)."""
    assert res.dsl is not None, res.notes
    return res.dsl


def understood_of(res: SearchResult) -> dict[str, str]:
    """``res.understood``, asserted present."""
    assert res.understood is not None, res.notes
    return res.understood


def sqlite_file(path: Path, statements: Sequence[str]) -> str:
    """The URL of a new SQLite file at ``path`` made by ``statements`` (DDL and rows)."""
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        for sql in statements:
            conn.execute(sa.text(sql))
    engine.dispose()
    return f"sqlite:///{path}"


async def ask_model(url: str, models: dict[str, Any], model: str, question: str) -> Any:
    """The leg's answer to ``question`` on ``model`` of a fresh leg (typed Any: tests index
    ``item.data``)."""
    leg = DBLeg(url, models)
    try:
        req = SearchRequest(type="db", query=question, limit=100, models=(model,))
        return await leg.search(req)
    finally:
        leg.close()
