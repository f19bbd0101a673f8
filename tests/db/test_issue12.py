"""Issue #12's cases on the demo shop declared the plain way (no aliases, no values): the DSL,
the SQL ``--explain`` shows, and the notes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from unifind.cli import app
from unifind.db.generate.builtin import BuiltinGenerator
from unifind.db.models import Model, load_models

from .conftest import TODAY

PLAIN = """
products:
  description: Products for sale
  title: name
  columns:
    name: {searchable: true, description: Product name}
    category: {description: Product category}
    brand: {description: Manufacturer}
    price: {unit: USD, description: Price in US dollars}
    rating: {description: "Average review rating, 1 to 5"}
    stock: {description: "Units in stock; 0 means out of stock"}
    discount: {description: "Discount in percent; 0 means no discount"}
    added_on: {description: Date the product was added to the shop}
"""
runner = CliRunner()


def explain(shop_path: Path, tmp_path: Path, q: str, *extra: str) -> tuple[int, dict[str, Any]]:
    models = tmp_path / "plain.yaml"
    models.write_text(PLAIN, encoding="utf-8")
    res = runner.invoke(app, ["db", "search", q, "--db", f"sqlite:///{shop_path}",
                              "--models", str(models), "--explain", "--json", *extra])  # fmt: skip
    return res.exit_code, json.loads(res.stdout) if res.stdout.strip().startswith("{") else {}


def sql(out: dict[str, Any]) -> str:
    notes: list[str] = out["notes"]
    return next(n for n in notes if " SQL: " in n).split(" SQL: ", 1)[1]


CASES = [
    ("monitors added since March 2024", ["category", "added_on >="], "LIKE"),
    ("out of stock laptops", ["category", "stock = "], "LIKE"),
    ("monitors rated at least 4.5", ["category", "rating >="], "LIKE"),
    ("headphones without discount", ["category", "discount = "], "LIKE"),
    ("laptops not made by Apple", ["category", "brand !="], "LIKE"),
    ("Samsung phones under 900 in stock", ["brand", "price <", "stock >"], "stock <"),
]


@pytest.mark.parametrize(("q", "present", "absent"), CASES)
def test_explain_of_the_issue_cases(
    shop_path: Path, tmp_path: Path, q: str, present: list[str], absent: str
) -> None:
    code, out = explain(shop_path, tmp_path, q)
    assert code == 0 and out["status"] == "ok", out
    text = sql(out)
    assert all(p in text for p in present), text
    assert absent not in text, text
    assert out["items"], q


def test_average_price_of_phones_is_an_aggregate(shop_path: Path, tmp_path: Path) -> None:
    code, out = explain(shop_path, tmp_path, "average price of phones")
    assert code == 0
    assert "avg(products.price)" in sql(out).lower() and "LIKE" not in sql(out)
    [item] = out["items"]
    assert item["type"] == "db" and item["citation_id"] and item["data"]["avg_price"] > 0


def test_yuan_against_a_usd_column_is_refused_with_a_note(shop_path: Path, tmp_path: Path) -> None:
    _code, out = explain(shop_path, tmp_path, "100元以下的耳机")
    assert "products.price <" not in sql(out)
    assert any("CNY" in n and "USD" in n and "not compared" in n for n in out["notes"]), out


def test_words_that_map_to_nothing_are_named_not_filtered(shop_path: Path, tmp_path: Path) -> None:
    _code, out = explain(shop_path, tmp_path, "shiny laptops")
    assert "LIKE" not in sql(out) and out["items"]
    assert any(n.startswith("not understood: shiny") for n in out["notes"]), out["notes"]
    code, out = explain(shop_path, tmp_path, "shiny laptops", "--strict")
    assert code != 0 or out.get("status") != "ok"


def test_a_question_not_about_the_database_says_so(shop_path: Path, tmp_path: Path) -> None:
    code, out = explain(shop_path, tmp_path, "what is the weather in Paris")
    assert out["items"] == []
    assert any("does not seem to be about products" in n for n in out["notes"]), out["notes"]
    # A refusal, not an empty answer: 0 rows with status ok read as "no such products".
    assert out["status"] == "unavailable" and code != 0, out
    [report] = out["reports"]
    assert (report["status"], report["reason"]) == ("degraded", "not_understood")
    assert "'weather', 'paris'" in report["error"] and "answers about: id, name" in report["error"]


def test_db_search_exits_non_zero_when_unavailable(tmp_path: Path) -> None:
    res = runner.invoke(app, ["db", "search", "laptops", "--db",
                              f"sqlite:///{tmp_path / 'missing.sqlite'}", "--models",
                              str(_write(tmp_path))])  # fmt: skip
    assert res.exit_code == 1, res.stdout


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "m.yaml"
    path.write_text(PLAIN, encoding="utf-8")
    return path


def test_one_letter_values_do_not_match_articles() -> None:
    model = Model.model_validate(
        {
            **load_models(PLAIN)["products"].model_dump(),
            "columns": {
                "name": {"name": "name", "type": "string", "searchable": True},
                "energy_class": {
                    "name": "energy_class",
                    "type": "string",
                    "values": {"A": [], "B": []},
                },
            },
        }
    )
    gen = BuiltinGenerator(today=TODAY)
    assert "energy_class" not in str(gen.generate_sync("a fridge", model).dsl.to_dict())
    [w] = gen.generate_sync("fridges with energy class A", model).dsl.wheres
    assert (w.field, w.value) == ("energy_class", "A")
