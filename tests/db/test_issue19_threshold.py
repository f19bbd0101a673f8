"""Issue #19 scope 1: below a confidence threshold (``db.min_confidence``; per request
``min_confidence``; ``strict`` refuses any word unused) the leg refuses, naming the words it
could not map and what the model answers. On the library schema of the join tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from pydantic import ValidationError
from typer.testing import CliRunner

from unifind.cli import app
from unifind.config import Settings
from unifind.db.leg import DEFAULT_MIN_CONFIDENCE, DBLeg
from unifind.errors import ConfigError
from unifind.ops.models import DBSource, SearchInput, Sources
from unifind.ops.service import build_requests
from unifind.types import Reason, SearchRequest, Status

from ._joins_gen_schema import create, models

#: 1 content word of 6 maps onto the schema (the model's name): confidence 0.17.
MOSTLY_UNKNOWN = "books about quantum gardening cats velvet thunder"
#: 2 of 4 (the model and a genre value): confidence 0.5.
HALF = "fantasy books by weather poets"


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'library.sqlite'}"
    engine = sa.create_engine(url)
    create(engine)
    engine.dispose()
    return url


#: A threshold a deployment sets (the default, 0, refuses nothing).
FLOOR = 0.2


@pytest.fixture
def leg(url: str) -> Iterator[DBLeg]:
    leg = DBLeg(url, models(), min_confidence=FLOOR)
    yield leg
    leg.close()


async def ask(leg: DBLeg, question: str, **opts: Any) -> Any:
    return await leg.search(SearchRequest(type="db", query=question, models=("books",), **opts))


def books_report(result: Any) -> Any:
    return next(r for r in result.reports if r.backend == "books" and r.stage != "understanding")


async def test_below_the_threshold_the_leg_refuses_naming_the_words(leg: DBLeg) -> None:
    res = await ask(leg, MOSTLY_UNKNOWN)
    report = books_report(res)
    assert res.items == () and report.status is Status.DEGRADED
    assert report.reason is Reason.NOT_UNDERSTOOD
    for word in ("quantum", "gardening", "velvet", "thunder"):
        assert repr(word) in (report.error or "")
    assert "books answers about: id, title, author_id, genre, year, pages" in (report.error or "")
    assert "(confidence 0.17 < 0.20)" in (report.error or "")


async def test_by_default_nothing_is_refused(url: str) -> None:
    leg = DBLeg(url, models())
    try:
        res = await ask(leg, MOSTLY_UNKNOWN)
    finally:
        leg.close()
    assert DEFAULT_MIN_CONFIDENCE == 0.0
    assert res.items and res.confidence == 0.17 and res.status.value == "partial"


async def test_above_it_the_answer_is_partial_with_its_rows(leg: DBLeg) -> None:
    res = await ask(leg, HALF)
    assert res.confidence == 0.5 and res.status.value == "partial"
    assert {i.data["genre"] for i in res.items} == {"fantasy"}


async def test_a_request_sets_its_own_threshold(leg: DBLeg) -> None:
    refused = await ask(leg, HALF, min_confidence=0.6)
    assert refused.items == () and books_report(refused).reason is Reason.NOT_UNDERSTOOD
    answered = await ask(leg, MOSTLY_UNKNOWN, min_confidence=0)
    assert answered.items and answered.status.value == "partial"
    # strict is the strictest: any word unused is refused, whatever the threshold
    strict = await ask(leg, HALF, min_confidence=0, strict=True)
    assert strict.items == () and books_report(strict).status is Status.DEGRADED


async def test_every_word_used_is_never_refused(leg: DBLeg) -> None:
    res = await ask(leg, "fantasy books", min_confidence=1.0)
    assert res.confidence == 1.0 and res.ok and res.items


async def test_a_query_an_agent_wrote_has_no_threshold(leg: DBLeg) -> None:
    dsl = {"model": "books", "select": ["title"], "wheres": [{"field": "genre", "value": "poetry"}]}
    req = SearchRequest(type="db", query=MOSTLY_UNKNOWN, uses="dsl", dsl=dsl, min_confidence=1)
    res = await leg.search(req)
    titles = [(i.data or {})["title"] for i in res.items]
    assert res.ok and titles == ["Fjord Light", "Monsoon Letters"]


def test_the_setting_is_read_and_checked(url: str) -> None:
    settings = Settings(db={"url": url, "models": models(), "min_confidence": 0.5})
    assert DBLeg.from_settings(settings).min_confidence == 0.5
    assert DBLeg(url, models()).min_confidence == DEFAULT_MIN_CONFIDENCE
    assert DBLeg.from_settings(Settings(db={"url": url, "models": models()})).min_confidence == (
        DEFAULT_MIN_CONFIDENCE
    )
    with pytest.raises(ValidationError, match="min_confidence"):
        Settings(db={"url": url, "min_confidence": 1.5})
    for bad in (1.5, -0.1, "high"):
        with pytest.raises(ConfigError, match="min_confidence is a share"):
            DBLeg(url, models(), min_confidence=bad)  # type: ignore[arg-type]


def test_http_and_python_requests_carry_it() -> None:
    inp = SearchInput(query="q", sources=Sources(db=DBSource(min_confidence=0.4)))
    (req,) = build_requests(inp)
    assert req.type == "db" and req.min_confidence == 0.4
    with pytest.raises(ValidationError):
        DBSource(min_confidence=2)
    with pytest.raises(ValidationError, match="applies to db requests"):
        SearchRequest(type="kb", query="q", min_confidence=0.5)


def test_the_cli_takes_a_threshold(url: str, tmp_path: Path) -> None:
    decl = tmp_path / "library.yaml"
    decl.write_text(json.dumps(models()), encoding="utf-8")  # JSON is YAML
    args = ["db", "search", MOSTLY_UNKNOWN, "--db", url, "--models", str(decl), "-m", "books"]
    res = CliRunner().invoke(app, [*args, "--min-confidence", "0.2", "--json"])
    out = json.loads(res.output)
    assert out["items"] == [] and "could not map 'quantum'" in json.dumps(out["reports"])
    res = CliRunner().invoke(app, [*args, "--json"])
    assert json.loads(res.output)["items"]
    res = CliRunner().invoke(app, [*args, "--min-confidence", "2"])
    assert res.exit_code == 2
