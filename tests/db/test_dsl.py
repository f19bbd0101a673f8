"""QueryDSL parsing, validation against a model, and compilation to bound-parameter SQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from unifind.db.compile import compile_select, like_pattern, render
from unifind.db.dsl import QueryDSL, combine, parse_dsl, validate_dsl
from unifind.db.models import Model
from unifind.errors import InputError


def test_gou_operator_names_are_normalised(shop_models: dict[str, Model]) -> None:
    dsl = validate_dsl(
        {
            "wheres": [{"field": "price", "op": "GE", "value": "100"}],
            "orders": [{"field": "price", "sort": "DESC"}],
        },
        shop_models["products"],
    )
    assert dsl.wheres[0].op == ">=" and dsl.wheres[0].value == 100.0
    assert dsl.orders[0].sort == "desc" and dsl.model == "products"


@pytest.mark.parametrize(
    ("dsl", "message"),
    [
        ({"wheres": [{"field": "secret", "value": 1}]}, "unknown field 'secret'"),
        ({"select": ["name", "password"]}, "allowed: id, name, name_zh"),
        ({"orders": [{"field": "nope"}]}, "in orders of model 'products'"),
        ({"wheres": [{"field": "price", "op": "~~", "value": 1}]}, "ops: = != >"),
        ({"wheres": [{"field": "price", "op": "like", "value": "1%"}]}, "like needs a text field"),
        ({"wheres": [{"field": "price", "op": "in", "value": []}]}, "list of 1 to 1000"),
        ({"wheres": [{"field": "price", "op": "between", "value": [1]}]}, "[low, high]"),
        ({"wheres": [{"field": "price", "value": "cheap"}]}, "not a valid number"),
        ({"wheres": [{"field": "added_on", "op": ">", "value": "March"}]}, "not a valid date"),
        ({"sql": "DROP TABLE products"}, "Extra inputs are not permitted"),
        ({"wheres": [{"field": "name", "wheres": []}]}, "either a field or nested wheres"),
        ({"model": "orders"}, "targets model 'orders'"),
    ],
)
def test_invalid_dsl_says_what_is_allowed(
    shop_models: dict[str, Model], dsl: dict[str, object], message: str
) -> None:
    with pytest.raises(InputError) as err:
        validate_dsl(dsl, shop_models["products"])
    assert message in str(err.value)


def test_deep_nesting_is_refused(shop_models: dict[str, Model]) -> None:
    node: dict[str, object] = {"field": "name", "value": "x"}
    for _ in range(12):
        node = {"wheres": [node]}
    with pytest.raises(InputError, match="nested deeper"):
        validate_dsl({"wheres": [node]}, shop_models["products"])


def _run(shop_path: object, model: Model, dsl: dict[str, object]) -> list[int]:
    compiled = compile_select(validate_dsl(dsl, model), model, permission=None, limit=1000)
    engine = sa.create_engine(f"sqlite:///{shop_path}")
    with engine.connect() as conn:
        out = [r.id for r in conn.execute(compiled.statement)]
    engine.dispose()
    return out


def test_or_joins_runs_and_and_binds_tighter(
    shop_path: object, shop_models: dict[str, Model]
) -> None:
    # [a, b, {or: c}] means (a AND b) OR c — as in SQL without parentheses.
    model = shop_models["products"]
    got = _run(
        shop_path,
        model,
        {
            "wheres": [
                {"field": "brand", "value": "Apple"},
                {"field": "category", "value": "phone"},
                {"field": "brand", "value": "Sony", "or": True},
            ]
        },
    )
    # Hand-computed from demo.PRODUCTS: Apple phones are 11, 12; Sony products 19, 20, 40.
    assert got == [11, 12, 19, 20, 40]


def test_nested_group_is_parenthesised(shop_path: object, shop_models: dict[str, Model]) -> None:
    model = shop_models["products"]
    got = _run(
        shop_path,
        model,
        {
            "wheres": [
                {"field": "category", "value": "phone"},
                {
                    "wheres": [
                        {"field": "brand", "value": "Apple"},
                        {"field": "brand", "value": "Huawei", "or": True},
                    ]
                },
            ]
        },
    )
    assert got == [11, 12, 15]


def test_not_equal_keeps_nulls_and_like_is_case_insensitive(
    shop_path: object, shop_models: dict[str, Model]
) -> None:
    model = shop_models["products"]
    assert _run(
        shop_path, model, {"wheres": [{"field": "name", "op": "like", "value": "%MACBOOK%"}]}
    ) == [1, 2]
    assert (
        len(_run(shop_path, model, {"wheres": [{"field": "brand", "op": "!=", "value": "Apple"}]}))
        == 50 - 9
    )


def test_values_are_bound_never_inlined(shop_models: dict[str, Model]) -> None:
    model = shop_models["products"]
    evil = "x' OR '1'='1"
    dsl = validate_dsl({"wheres": [{"field": "name", "value": evil}]}, model)
    compiled = compile_select(dsl, model, permission=None, limit=5)
    sql, params = render(compiled.statement, sa.create_engine("sqlite://").dialect)
    assert evil not in sql and "OR '1'" not in sql
    assert evil in params.values()


def test_like_pattern_escapes_wildcards() -> None:
    assert like_pattern("50%_off\\") == "%50\\%\\_off\\\\%"


def test_combine_ands_preset_and_generated_groups() -> None:
    preset = parse_dsl(
        {
            "wheres": [{"field": "brand", "value": "Apple"}],
            "orders": [{"field": "price"}],
            "limit": 3,
        }
    )
    gen = QueryDSL.model_validate(
        {
            "wheres": [{"field": "a", "value": 1}, {"field": "b", "value": 2, "or": True}],
            "orders": [{"field": "price", "sort": "desc"}, {"field": "rating"}],
            "limit": 10,
        }
    )
    both = combine(preset, gen)
    assert len(both.wheres) == 2 and all(w.wheres for w in both.wheres)
    assert [o.field for o in both.orders] == ["price", "rating"]
    assert both.limit == 3
