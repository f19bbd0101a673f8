"""Attribute docstrings reach JSON schemas as pydantic's ``use_attribute_docstrings`` put them,
without reading any source while the model classes are created (unifind._fielddocs)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field
from pydantic._internal._docs_extraction import extract_docstrings_from_cls

from unifind._fielddocs import describe_fields
from unifind.db import dsl, joins
from unifind.ops import _ask, models


def _documented(module: Any, base: type[BaseModel]) -> list[type[BaseModel]]:
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, base) and v is not base
    ]


CASES = [
    *_documented(models, models._In),
    *_documented(_ask, _ask._In),
    *_documented(dsl, dsl._DSL),
    joins.Join,
]


@pytest.mark.parametrize("cls", CASES, ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_every_docstring_reaches_the_schema_as_pydantic_reads_it(cls: type[BaseModel]) -> None:
    schema = cls.model_json_schema()
    if "$ref" in schema:  # a recursive model's schema is a reference into $defs
        schema = schema["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    props = schema.get("properties", {})
    seen = 0
    for klass in reversed(cls.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, BaseModel)):
            continue
        own = extract_docstrings_from_cls(klass, use_inspect=True)
        for name, doc in own.items():
            if name not in vars(klass).get("__annotations__", {}) or name not in cls.model_fields:
                continue
            info = cls.model_fields[name]
            key = info.alias or name
            if key not in props or _owner(cls, name) is not klass:
                continue
            expected = info.description if info.description is not None else doc
            assert props[key].get("description") == expected, (cls.__name__, name)
            seen += 1
    documented = {name for k in cls.__mro__ if k.__module__.startswith("unifind.")
                  for name in extract_docstrings_from_cls(k, use_inspect=True)}  # fmt: skip
    assert seen or not documented & set(cls.model_fields)


def _owner(cls: type[Any], name: str) -> type[Any] | None:
    return next((k for k in cls.__mro__ if name in vars(k).get("__annotations__", {})), None)


def test_field_description_wins_and_docstrings_belong_to_the_annotating_class() -> None:
    class Base(BaseModel):
        model_config = ConfigDict(json_schema_extra=describe_fields)

        a: int = 0
        """A's docstring."""
        b: int = Field(0, description="given")
        """Not used: the Field's description wins."""
        c: str = ""
        """C in the base."""

    class Sub(Base):
        c: str = "x"  # re-annotated without a docstring: none, as pydantic does
        d: int = Field(1, alias="dee")
        """Named by its alias in the schema."""

    props = Sub.model_json_schema()["properties"]
    assert props["a"]["description"] == "A's docstring."
    assert props["b"]["description"] == "given"
    assert "description" not in props["c"]
    assert props["dee"]["description"] == "Named by its alias in the schema."
    assert Base.model_json_schema()["properties"]["c"]["description"] == "C in the base."


def test_importing_the_models_reads_no_source() -> None:
    code = (
        "import inspect, pydantic._internal._docs_extraction as d\n"
        "calls = []\n"
        "real = d.extract_docstrings_from_cls\n"
        "d.extract_docstrings_from_cls = lambda *a, **k: calls.append(a) or real(*a, **k)\n"
        "import pydantic._internal._fields as f\n"
        "f.extract_docstrings_from_cls = d.extract_docstrings_from_cls\n"
        "import unifind.ops.models, unifind.ops._ask, unifind.db.dsl\n"
        "print(len(calls))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0", out.stdout + out.stderr
