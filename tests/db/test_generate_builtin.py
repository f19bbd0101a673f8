"""The builtin generator, phenomenon by phenomenon (the DSL it writes, not just the rows)."""

from __future__ import annotations

from typing import Any

import pytest

from unifind.db.generate.base import GenerationError
from unifind.db.generate.builtin import BuiltinGenerator
from unifind.db.models import Model

from .conftest import TODAY


def gen(models: dict[str, Model], model: str, q: str, **kw: Any) -> dict[str, Any]:
    return BuiltinGenerator(today=TODAY).generate_sync(q, models[model], **kw).dsl.to_dict()


def where(d: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(w.get("field"), w.get("op", "="), w.get("value")) for w in d.get("wheres", [])]


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("under $100", ("price", "<", 100)),
        ("over 200 dollars", ("price", ">", 200)),
        ("at least 4 stars", ("rating", ">=", 4)),
        ("between 10 and 20 kg", ("weight_kg", "between", [10, 20])),
        ("$500-$1,000", ("price", "between", [500, 1000])),
        ("lighter than 500 g", ("weight_kg", "<", 0.5)),
        ("rating above 4.2", ("rating", ">", 4.2)),
        ("up to 1.5k dollars", ("price", "<=", 1500)),
        ("１００美元以下", ("price", "<=", 100)),
        ("4.5分以上", ("rating", ">=", 4.5)),
        ("价格在500到1000美元之间", ("price", "between", [500, 1000])),
        ("不超过2公斤", ("weight_kg", "<=", 2)),
    ],
)
def test_comparatives_and_ranges(
    shop_models: dict[str, Model], q: str, expected: tuple[Any, ...]
) -> None:
    assert where(gen(shop_models, "products", q)) == [expected]


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("last week", ("between", ["2024-06-03", "2024-06-09"])),
        ("yesterday", ("between", ["2024-06-14", "2024-06-14"])),
        ("since March 2024", (">=", "2024-03-01")),
        ("before 2024", ("<", "2024-01-01")),
        ("after May 2024", (">=", "2024-06-01")),
        ("in the last 7 days", ("between", ["2024-06-08", "2024-06-15"])),
        ("this month", ("between", ["2024-06-01", "2024-06-30"])),
        ("on 2024-02-29", ("between", ["2024-02-29", "2024-02-29"])),
        ("上个月", ("between", ["2024-05-01", "2024-05-31"])),
        ("2024年3月以来", (">=", "2024-03-01")),
        ("最近7天", ("between", ["2024-06-08", "2024-06-15"])),
        ("去年", ("between", ["2023-01-01", "2023-12-31"])),
    ],
)
def test_dates(shop_models: dict[str, Model], q: str, expected: tuple[Any, ...]) -> None:
    ((field, op, value),) = where(gen(shop_models, "orders", f"orders {q}"))
    assert field == "ordered_on" and (op, value) == expected


def test_superlatives_and_top_n(shop_models: dict[str, Model]) -> None:
    d = gen(shop_models, "products", "cheapest 5 laptops")
    assert d["orders"] == [{"field": "price"}] and d["limit"] == 5
    d = gen(shop_models, "products", "the most expensive camera")
    assert d["orders"] == [{"field": "price", "sort": "desc"}] and d["limit"] == 1
    d = gen(shop_models, "orders", "newest orders")  # plural, no count: all, in order
    assert d["orders"] == [{"field": "ordered_on", "sort": "desc"}] and "limit" not in d
    d = gen(shop_models, "products", "top 3 products sorted by rating desc")
    assert d["orders"] == [{"field": "rating", "sort": "desc"}] and d["limit"] == 3
    d = gen(shop_models, "products", "最便宜的5款耳机")
    assert d["orders"] == [{"field": "price"}] and d["limit"] == 5


def test_enum_values_synonyms_and_any_of(shop_models: dict[str, Model]) -> None:
    assert sorted(where(gen(shop_models, "products", "notebooks in stock"))) == [
        ("availability", "=", "in_stock"),
        ("category", "=", "laptop"),
    ]
    assert sorted(where(gen(shop_models, "products", "sold out 华为 or 小米"))) == [
        ("availability", "=", "out_of_stock"),
        ("brand", "in", ["Huawei", "Xiaomi"]),
    ]


def test_negation(shop_models: dict[str, Model]) -> None:
    assert where(gen(shop_models, "products", "phones not apple")) == [
        ("category", "=", "phone"),
        ("brand", "!=", "Apple"),
    ]
    d = gen(shop_models, "products", "without discount")
    assert d["wheres"][0]["wheres"] == [
        {"field": "discount", "value": 0},
        {"field": "discount", "op": "null", "or": True},
    ]
    assert where(gen(shop_models, "products", "不是苹果 不打折"))[0] == ("brand", "!=", "Apple")
    d = gen(shop_models, "products", "laptops without carbon")
    assert [w["op"] for w in d["wheres"][1]["wheres"]] == ["notlike", "notlike"]


def test_leftover_keywords_become_like_across_searchable_columns(
    shop_models: dict[str, Model],
) -> None:
    d = gen(shop_models, "products", "Galaxy 降噪")
    groups = [[(w["field"], w["value"]) for w in g["wheres"]] for g in d["wheres"]]
    assert groups == [
        [("name", "%galaxy%"), ("name_zh", "%galaxy%")],
        [("name", "%降噪%"), ("name_zh", "%降噪%")],
    ]


def test_strict_refuses_the_keyword_fallback(shop_models: dict[str, Model]) -> None:
    with pytest.raises(GenerationError, match="'zorblax'"):
        gen(shop_models, "products", "zorblax under $500", strict=True)
    # A word found in the searchable text is understood (a LIKE), strict or not.
    assert gen(shop_models, "products", "galaxy under $500", strict=True)["wheres"]
    assert gen(shop_models, "products", "phones under $500", strict=True)["wheres"]


def test_unicode_tricks_are_normalised(shop_models: dict[str, Model]) -> None:
    # Full-width digits and a zero-width space inside a brand name still read as intended.
    assert where(gen(shop_models, "products", "So\u200bny under ＄３００")) == [
        ("price", "<", 300),
        ("brand", "=", "Sony"),
    ]
