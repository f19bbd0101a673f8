"""DB rows → items: a readable one-line ``content`` for an LLM, and a match-strength score."""

from __future__ import annotations

from typing import Any

from unifind.db.models import Model
from unifind.types import Item, Match, SearchRequest

#: Longest rendering of one cell; a row stays one line an LLM can cite.
CELL_CHARS = 200


def render_row(model: Model, row: dict[str, Any]) -> str:
    """``products #3: ThinkPad X1 — category: laptop; price: 1649 USD; ...``."""
    title_col = model.title_column
    pk = model.primary_key
    hidden = {title_col, pk, *model.permissions.columns}
    parts = []
    for name, value in row.items():
        if name in hidden or value is None or value == "":
            continue
        unit = model.columns[name].unit if name in model.columns else None
        text = f"{value:g}" if isinstance(value, float) else str(value)[:CELL_CHARS]
        parts.append(f"{name}: {text} {unit}" if unit else f"{name}: {text}")
    # A distinct query returns no key: the row is named by its values alone.
    head = f"{model.name} #{row[pk]}" if pk and pk in row else model.name
    title = f": {row[title_col]}" if title_col and row.get(title_col) is not None else ""
    return f"{head}{title}" + (" — " + "; ".join(parts) if parts else "")


def keyword_strength(model: Model, row: dict[str, Any], keywords: tuple[str, ...]) -> float:
    """Mean over keywords of where each matched: whole word in the title 1.0, inside the
    title 0.75, in another searchable column 0.5, nowhere 0 (a NOT LIKE keyword)."""
    if not keywords:
        return 0.0
    title = str(row.get(model.title_column or "", "") or "").lower()
    others = " ".join(str(row.get(c.name) or "") for c in model.searchable).lower()
    total = 0.0
    for kw in keywords:
        if kw in title.split():
            total += 1.0
        elif kw in title:
            total += 0.75
        elif kw in others:
            total += 0.5
    return total / len(keywords)


def to_items(
    model: Model,
    rows: list[dict[str, Any]],
    req: SearchRequest,
    *,
    keywords: tuple[str, ...],
    ordered: bool,
) -> list[Item]:
    """Score and rank rows: by the DSL's own order when it has one, else by keyword match.

    The score is ``1/rank`` for an ordered query and keyword strength otherwise, so a
    later fusion across legs sees a meaningful, comparable-within-backend number.
    """
    scored = [(keyword_strength(model, r, keywords), i, r) for i, r in enumerate(rows)]
    if keywords and not ordered:
        scored.sort(key=lambda t: (-t[0], t[1]))  # stable: primary key order breaks ties
    items = []
    for rank, (strength, _i, row) in enumerate(scored, start=1):
        score = strength if keywords and not ordered else 1.0 / rank
        pk = model.primary_key
        title_col = model.title_column
        items.append(
            Item(
                type="db",
                model=model.name,
                record_id=_record_id(pk, row),
                title=str(row.get(title_col) or "") if title_col else model.name,
                content=render_row(model, row),
                data=row,
                score=score,
                source=req.source,
                weight=req.effective_weight,
                matched=(Match(leg="db", backend=model.name, rank=rank, score=score),),
            )
        )
    return items


def _record_id(pk: str | None, row: dict[str, Any]) -> str:
    """The row's key; a distinct row (no key selected) is named by its values, so two rows
    never share a citation."""
    if pk and pk in row:
        return str(row[pk])
    return "row:" + "|".join(f"{k}={v}" for k, v in row.items())


def aggregate_items(
    model: Model, rows: list[dict[str, Any]], groups: tuple[str, ...], req: SearchRequest
) -> list[Item]:
    """One item per group row, cited like any row: ``employees: avg_salary = 82400 EUR ...``."""
    items = []
    for rank, row in enumerate(rows, start=1):
        key = "; ".join(f"{g}: {row.get(g)}" for g in groups)
        values = []
        for name, value in row.items():
            if name in groups:
                continue
            field = name.split("_", 1)[1] if "_" in name else ""
            unit = model.columns[field].unit if field in model.columns else None
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            values.append(f"{name} = {shown}" + (f" {unit}" if unit and unit != "%" else ""))
        title = key or model.name
        record = "|".join([*values, key]) if key else "|".join(values)
        items.append(
            Item(
                type="db",
                model=model.name,
                record_id=f"agg:{record}",
                title=title,
                content=f"{model.name} ({key or 'all rows'}): " + "; ".join(values),
                data=row,
                score=1.0 / rank,
                source=req.source,
                weight=req.effective_weight,
                matched=(Match(leg="db", backend=model.name, rank=rank, score=1.0 / rank),),
            )
        )
    return items
