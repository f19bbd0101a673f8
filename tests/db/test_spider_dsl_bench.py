"""bench/spider_dsl.py (issue #19): the converter writes what the gold SQL says, and the
scorer takes a row tied at the gold's LIMIT only when it is one of the gold's tied rows.

An in-memory SQLite table, no benchmark data; sqlglot is the bench extra."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("sqlglot", reason='the bench extra: pip install "unifind[bench]"')

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("spider_dsl", BENCH / "spider_dsl.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


@pytest.fixture
def conn() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE ship (id INTEGER, name TEXT, age INTEGER)")
    rows = [(1, "Destiny", 38), (2, "Avenger", 38), (3, "Manxman", 40), (4, "Gorgon", 54)]
    conn.executemany("INSERT INTO ship VALUES (?, ?, ?)", rows)
    return conn


TOP = "SELECT name FROM ship ORDER BY age LIMIT 1"


def rows(*names: str) -> list[dict[str, Any]]:
    return [{"id": 9, "name": n} for n in names]


def test_a_row_tied_at_the_limit_is_one_of_the_right_answers(bench: Any, conn: Any) -> None:
    pool = bench.limit_choices(conn, TOP, 1)
    assert pool == [[("Destiny",), ("Avenger",)]]
    assert bench.tie_match(pool, rows("Avenger")) and bench.tie_match(pool, rows("Destiny"))
    assert not bench.tie_match(pool, rows("Manxman"))  # not tied: a wrong answer
    assert not bench.tie_match(pool, rows("Destiny", "Avenger"))  # one row was asked for


def test_rows_before_the_tie_must_be_the_golds(bench: Any, conn: Any) -> None:
    sql = "SELECT name FROM ship ORDER BY age DESC LIMIT 3"  # Gorgon, Manxman, then a tie
    pool = bench.limit_choices(conn, sql, 3)
    assert pool is not None
    assert bench.tie_match(pool, rows("Gorgon", "Manxman", "Avenger"))
    assert not bench.tie_match(pool, rows("Manxman", "Gorgon", "Avenger"))  # out of order
    assert not bench.tie_match(pool, rows("Gorgon", "Destiny", "Avenger"))  # Manxman missing


def test_no_tie_at_the_limit_means_one_answer(bench: Any, conn: Any) -> None:
    assert bench.limit_choices(conn, "SELECT name FROM ship ORDER BY age DESC LIMIT 1", 1) is None
    assert bench.limit_choices(conn, "SELECT name FROM ship LIMIT 1", 1) is None  # no order


def test_the_converter_reads_what_the_sql_says(bench: Any) -> None:
    models: dict[str, dict[str, Any]] = {
        "ship": {"columns": {"id": {}, "name": {}, "age": {}}},
        "captain": {"columns": {"id": {}, "ship_id": {}, "rank": {}, "age": {}}},
    }
    conv = bench.Converter(models)
    dsl = conv.convert("SELECT name FROM ship WHERE name NOT LIKE '%a%'")
    assert dsl["wheres"] == [{"field": "name", "op": "notlike", "value": "%a%"}]
    # SQLite's ON after the last join: each join keyed by its own equality
    dsl = conv.convert("SELECT s.name FROM ship AS s JOIN captain AS c JOIN ship AS t "
                       "ON s.id = c.ship_id AND c.ship_id = t.id AND s.age > c.age")  # fmt: skip
    assert [(j["from"], j["key"], j["foreign"]) for j in dsl["joins"]] == [
        ("captain", "ship_id", "id"),
        ("ship", "id", "t1.ship_id"),
    ]
    assert dsl["wheres"] == [{"field": "age", "op": ">", "value": {"field": "t1.age"}}]
    dsl = conv.convert("SELECT name FROM ship WHERE id = (SELECT ship_id FROM captain "
                       "ORDER BY age DESC LIMIT 1)")  # fmt: skip
    sub = dsl["wheres"][0]
    assert sub["op"] == "in" and sub["value"]["query"]["limit"] == 1
    assert sub["value"]["query"]["orders"] == [{"field": "age", "sort": "desc"}]
    with pytest.raises(bench.Unsupported, match="cross join"):
        conv.convert("SELECT name FROM ship JOIN captain")
