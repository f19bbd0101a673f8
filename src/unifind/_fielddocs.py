"""Attribute docstrings as JSON Schema descriptions, read when a schema is asked for.

pydantic's ``use_attribute_docstrings`` reads every model class's source while the class is
created (a tokenize and two AST parses per class: about half of importing
``unifind.ops.models``, paid by every CLI command). The descriptions are only ever read in
JSON schemas (OpenAPI, the MCP and function-calling tool schemas, the QueryDSL's schema),
so a model base sets ``json_schema_extra=describe_fields`` instead: the first schema of a
class parses its module once and fills the same descriptions pydantic would have — a
field's own ``Field(description=...)`` wins, and a docstring belongs to the class that
annotates the field (a subclass re-annotating a field without one has none).
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from functools import cache
from itertools import pairwise
from typing import Any


def describe_fields(schema: dict[str, Any], cls: type[Any]) -> None:
    """``json_schema_extra`` hook: each undescribed property gets its attribute docstring."""
    props = schema.get("properties")
    fields = getattr(cls, "model_fields", None)
    if not isinstance(props, dict) or not isinstance(fields, dict):
        return
    for name, info in fields.items():
        if info.description is not None:
            continue
        doc = _docstring(cls, name)
        if doc is None:
            continue
        for key in {name, info.alias, info.serialization_alias}:
            prop = props.get(key) if isinstance(key, str) else None
            if isinstance(prop, dict) and "description" not in prop:
                prop["description"] = doc


def _docstring(cls: type[Any], name: str) -> str | None:
    """The docstring under ``name``'s annotation in the first class of the MRO annotating it."""
    for klass in cls.__mro__:
        if name in vars(klass).get("__annotations__", {}):
            return _class_docs(klass).get(name)
    return None


def _class_docs(klass: type[Any]) -> dict[str, str]:
    module = sys.modules.get(klass.__module__)
    filename = getattr(module, "__file__", None)
    if filename and "<locals>" not in klass.__qualname__:
        found = _module_docs(filename).get(klass.__qualname__)
        if found is not None:
            return found
    return _docs_by_inspect(klass)


@cache
def _module_docs(filename: str) -> dict[str, dict[str, str]]:
    """Every class of a source file (by qualified name) → its attribute docstrings."""
    try:
        with open(filename, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), filename)
    except (OSError, SyntaxError, ValueError):
        return {}
    out: dict[str, dict[str, str]] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                qualname = f"{prefix}{node.name}"
                out[qualname] = _body_docs(node.body)
                walk(node.body, f"{qualname}.")

    walk(tree.body, "")
    return out


def _body_docs(body: list[ast.stmt]) -> dict[str, str]:
    """pydantic's rule: a string statement right after ``name: type [= value]``."""
    docs: dict[str, str] = {}
    for node, after in pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _docs_by_inspect(klass: type[Any]) -> dict[str, str]:
    """A class whose module can't be read by name (defined in a function, no file)."""
    try:
        lines, _ = inspect.getsourcelines(klass)
        node = ast.parse(textwrap.dedent("".join(lines))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return {}
    return _body_docs(node.body) if isinstance(node, ast.ClassDef) else {}
