"""DB-leg fixtures: the demo shop on SQLite, pinned to one date so tests are repeatable."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from unifind.db.demo import DEMO_MODELS_YAML, create_demo
from unifind.db.execute import make_engine
from unifind.db.leg import DBLeg
from unifind.db.models import Model, introspect, load_models

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


def ids(conn_url: str, sql: str) -> list[int]:
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
