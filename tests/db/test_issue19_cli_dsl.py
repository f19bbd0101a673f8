"""Issue #19: `unifind db search --dsl` and `unifind db schema` through the real CLI."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from unifind.cli import app

runner = CliRunner()

ABOVE = {
    "model": "products",
    "select": ["name", "rating"],
    "wheres": [
        {"field": "rating", "op": ">", "value": {"agg": "avg", "field": "rating"}},
        {"field": "category", "value": "phone"},
    ],
}
SQL = (
    "SELECT name FROM products WHERE category = 'phone' AND rating > "
    "(SELECT avg(rating) FROM products) ORDER BY id"
)


def test_dsl_from_text_and_from_a_file(unifind_home: Path, tmp_path: Path) -> None:
    assert runner.invoke(app, ["db", "demo", "--today", "2024-06-15"]).exit_code == 0
    db = unifind_home / "shop.sqlite"
    with sqlite3.connect(db) as conn:
        expected = [r[0] for r in conn.execute(SQL)]
    file = tmp_path / "q.json"
    file.write_text(json.dumps(ABOVE), encoding="utf-8")
    for arg in (json.dumps(ABOVE), f"@{file}"):
        res = runner.invoke(app, ["db", "search", "--dsl", arg, "--json"])
        assert res.exit_code == 0, res.output
        out = json.loads(res.output)
        assert out["dsl"] == ABOVE
        assert expected and [i["data"]["name"] for i in out["items"]] == expected
    res = runner.invoke(app, ["db", "search", "--dsl", "{not json", "--tenant", "acme"])
    assert res.exit_code == 2 and "--dsl is not valid JSON" in res.output
    secret = json.dumps({"model": "orders", "select": ["secret"]})
    res = runner.invoke(app, ["db", "search", "--dsl", secret])
    assert res.exit_code == 2 and "allowed: id, product" in res.output
    res = runner.invoke(app, ["db", "search"])
    assert res.exit_code == 2 and "--dsl" in res.output


def test_schema_prints_models_relations_and_the_json_schema(unifind_home: Path) -> None:
    assert runner.invoke(app, ["db", "demo", "--today", "2024-06-15"]).exit_code == 0
    res = runner.invoke(app, ["db", "schema"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    orders = next(m for m in out["models"] if m["model"] == "orders")
    assert orders["relations"]["products"]["key"] == "id"
    assert out["dsl_schema"]["$defs"]["Join"]["properties"]["from"]
