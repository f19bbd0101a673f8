"""`unifind db demo | models | search` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from unifind.cli import app

runner = CliRunner()


def test_demo_then_search_and_models(unifind_home: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["db", "demo", "--today", "2024-06-15"])
    assert res.exit_code == 0, res.output
    assert (unifind_home / "shop.sqlite").exists()
    res = runner.invoke(app, ["db", "demo"])
    assert res.exit_code == 2 and "--force" in res.output

    res = runner.invoke(
        app,
        [
            "db",
            "search",
            "cheapest 5 laptops under $1000 in stock",
            "--model",
            "products",
            "--explain",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["status"] == "ok" and [i["record_id"] for i in out["items"]] == [
        "10",
        "6",
        "7",
        "4",
        "5",
    ]
    assert out["dsl"]["limit"] == 5 and any("params:" in n for n in out["notes"])

    res = runner.invoke(app, ["db", "search", "100美元以下的耳机"])
    assert res.exit_code == 0 and "Xiaomi Buds 4" in res.output and "status: ok" in res.output
    # Yuan against a USD price with no rate: read, not compared, so the answer is partial.
    res = runner.invoke(app, ["db", "search", "100元以下的耳机"])
    assert res.exit_code == 0 and "status: partial" in res.output
    assert "no exchange rate" in res.output

    res = runner.invoke(app, ["db", "models", "--json"])
    assert res.exit_code == 0
    assert json.loads(res.output)["orders"]["permissions"]["tenant"] == "tenant_id"


def test_search_with_explicit_db_and_models_files(tmp_path: Path) -> None:
    shop = tmp_path / "shop.db"
    assert runner.invoke(app, ["db", "demo", "--path", str(shop)]).exit_code == 0
    models = shop.with_suffix(".models.yaml")
    res = runner.invoke(
        app,
        [
            "db",
            "search",
            "shipped orders",
            "--db",
            f"sqlite:///{shop}",
            "--models",
            str(models),
            "--tenant",
            "globex",
            "--json",
        ],
    )
    out = json.loads(res.output)
    assert res.exit_code == 0 and out["status"] == "ok" and out["items"]
    res = runner.invoke(
        app,
        [
            "db",
            "search",
            "shipped orders",
            "--db",
            f"sqlite:///{shop}",
            "--models",
            str(models),
            "--json",
        ],
    )
    assert json.loads(res.output)["reports"][0]["reason"] == "forbidden"
    res = runner.invoke(
        app,
        [
            "db",
            "search",
            "x",
            "--db",
            f"sqlite:///{shop}",
            "--model",
            "nope",
            "--models",
            str(models),
        ],
    )
    assert res.exit_code == 2 and "valid: customers, orders, products" in res.output
