"""`unifind db ...`: declared models, natural-language search, the demo shop database."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from unifind import SearchRequest, load_settings
from unifind.cli._out import (
    cited,
    console,
    friendly_errors,
    print_json,
    print_result,
    print_table,
)
from unifind.config import Settings
from unifind.db.demo import DEMO_FILE, DEMO_MODELS_YAML, create_demo
from unifind.db.dsl import dsl_json_schema
from unifind.db.leg import DBLeg
from unifind.errors import InputError
from unifind.types import Overall, Principal

db_app = typer.Typer(
    help="Database leg: declared models, natural-language search, a demo shop.",
    no_args_is_help=True,
)

DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db", metavar="URL", help="SQLAlchemy URL (default: db.url, else the demo database)."
    ),
]
ModelsOpt = Annotated[
    str | None,
    typer.Option("--models", metavar="FILE", help="Models YAML file (default: db.models)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")


def _leg(db: str | None, models: str | None) -> DBLeg:
    settings = load_settings()
    cfg: dict[str, Any] = dict(settings.db)
    if db:
        cfg["url"] = db
    if models:
        if not Path(models).is_file():
            raise InputError(f"--models {models}: no such file")
        cfg["models"] = Path(models)
    return DBLeg.from_settings(Settings.model_validate({**settings.model_dump(), "db": cfg}))


@db_app.command("models")
def models_cmd(db: DbOpt = None, models: ModelsOpt = None, json: JsonOpt = False) -> None:
    """List the models the DB leg may search, with their columns (after introspection)."""
    with friendly_errors():
        leg = _leg(db, models)
        if leg.disabled:
            raise InputError(f"the DB leg is disabled: {leg.disabled}")
        try:
            found = asyncio.run(leg.models())
        finally:
            leg.close()
    if json:
        print_json({n: m.model_dump(mode="json", by_alias=True) for n, m in found.items()})
        return
    for name, model in found.items():
        perms = ", ".join(model.permissions.columns) or "none"
        console.print(
            f"[bold]{escape(name)}[/bold] (table {escape(model.table)}, key "
            f"{model.primary_key or '-'}, permission columns: {perms}) {escape(model.description)}"
        )
        table = Table(box=None, pad_edge=False, header_style="bold")
        for col in ("column", "type", "search", "unit", "values / description"):
            table.add_column(col)
        for c in model.columns.values():
            values = ", ".join(list(c.values or {})[:8])
            table.add_row(c.name, c.type or "", "yes" if c.searchable else "", c.unit or "",
                          escape(values or c.description))  # fmt: skip
        print_table(table)
        console.print()


@db_app.command("schema")
def schema_cmd(db: DbOpt = None, models: ModelsOpt = None) -> None:
    """Print what an LLM needs to write a query (JSON): each model's columns, types, units,
    sampled values and relations, and the QueryDSL's JSON Schema. Run it with --dsl."""
    with friendly_errors():
        leg = _leg(db, models)
        if leg.disabled:
            raise InputError(f"the DB leg is disabled: {leg.disabled}")
        try:
            found = asyncio.run(leg.models())
        finally:
            leg.close()
    print_json(
        {
            "models": [m.schema_summary(relations=True) for m in found.values()],
            "dsl_schema": dsl_json_schema(),
        }
    )


def _dsl_arg(text: str) -> dict[str, Any]:
    """``--dsl`` as JSON text, or ``@file.json``; anything else says what it needs."""
    import json as _json

    if text.startswith("@"):
        path = Path(text[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"--dsl {path}: cannot read it ({exc.strerror})") from exc
    try:
        data = _json.loads(text)
    except ValueError as exc:
        raise InputError(f"--dsl is not valid JSON ({exc}); give a JSON object or @file.json, "
                         "see `unifind db schema`") from exc  # fmt: skip
    if not isinstance(data, dict):
        raise InputError(f"--dsl must be a JSON object, got {type(data).__name__}")
    return data


@db_app.command("search")
def search_cmd(
    query: Annotated[
        str | None,
        typer.Argument(help="The question, e.g. 'cheapest 5 laptops' (optional with --dsl)."),
    ] = None,
    db: DbOpt = None,
    models: ModelsOpt = None,
    model: Annotated[
        list[str] | None, typer.Option("--model", "-m", help="Search only this model (repeat).")
    ] = None,
    limit: Annotated[int, typer.Option(help="Most rows returned.")] = 10,
    uses: Annotated[
        str | None, typer.Option(help="Generator: builtin or agent:<name> (db.agents).")
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Fail instead of falling back to keywords.")
    ] = False,
    min_confidence: Annotated[
        float | None,
        typer.Option(
            "--min-confidence",
            min=0.0,
            max=1.0,
            help="Refuse an answer that used less than this share of the question's words "
            "(default db.min_confidence, 0: none).",
        ),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show the SQL and its bound parameters.")
    ] = False,
    tenant: Annotated[str | None, typer.Option(help="Your tenant (permission columns).")] = None,
    user: Annotated[str | None, typer.Option(help="Your user id (owner columns).")] = None,
    role: Annotated[list[str] | None, typer.Option(help="Your roles (repeat).")] = None,
    dsl: Annotated[
        str | None,
        typer.Option(
            "--dsl",
            metavar="JSON|@FILE",
            help="Run this QueryDSL as written instead of a question (see `unifind db schema`).",
        ),
    ] = None,
    json: JsonOpt = False,
) -> None:
    """Ask a question in English or Chinese; see the rows, the DSL and every model's status."""
    with friendly_errors():
        query_dsl = _dsl_arg(dsl) if dsl is not None else None
        if query is None and query_dsl is None:
            raise InputError("give a question, or a QueryDSL with --dsl '<json>' / --dsl @file")
        leg = _leg(db, models)
        uses = uses or ("dsl" if query_dsl is not None else None)
        req = SearchRequest(type="db", query=query or "(dsl)", limit=limit,
                            models=tuple(model) if model else None, uses=uses,
                            strict=True if strict else None, dsl=query_dsl,
                            min_confidence=min_confidence)  # fmt: skip
        principal = (
            Principal(tenant=tenant, user=user, roles=tuple(role or ()))
            if tenant or user or role
            else None
        )
        try:
            result = cited(asyncio.run(leg.search(req, principal=principal, explain=explain)))
        finally:
            leg.close()
    if json:
        print_json(result.to_dict())
    else:
        if result.dsl is not None:
            console.print(f"[dim]dsl:[/dim] {escape(_compact(result.dsl))}")
        print_result(result)
    if result.status is Overall.UNAVAILABLE:
        raise typer.Exit(1)  # as `unifind search` does: scripts must see the failure


def _compact(dsl: dict[str, Any]) -> str:
    import json as _json

    return _json.dumps(dsl, ensure_ascii=False, default=str)


@db_app.command("demo")
def demo_cmd(
    path: Annotated[
        Path | None, typer.Option(help=f"Where to write it (default: UNIFIND_HOME/{DEMO_FILE}).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild it if it exists.")] = False,
    today: Annotated[
        str | None, typer.Option(help="Anchor date YYYY-MM-DD for the demo's dates.")
    ] = None,
) -> None:
    """Create the demo shop database: products (English and Chinese), customers, orders."""
    with friendly_errors():
        target = path or load_settings().ensure_home() / DEMO_FILE
        try:
            anchor = dt.date.fromisoformat(today) if today else None
        except ValueError as exc:
            raise InputError(f"--today {today!r} is not a date (YYYY-MM-DD)") from exc
        try:
            created = create_demo(target, today=anchor, force=force)
        except FileExistsError as exc:
            raise InputError(str(exc)) from exc
    models = created.with_suffix(".models.yaml")
    models.write_text(DEMO_MODELS_YAML, encoding="utf-8")
    console.print(f"created the demo shop database at [bold]{escape(str(created))}[/bold]")
    console.print(f"its model declarations: {escape(str(models))}")
    console.print("customers and orders belong to tenants 'acme' and 'globex'. Try:")
    url = "" if path is None else f" --db sqlite:///{created} --models {models}"
    console.print(f"  unifind db search 'cheapest 5 laptops under $1000 in stock'{url}")
    console.print(f"  unifind db search '100美元以下的耳机'{url} --explain")
    console.print(f"  unifind db search 'orders from last week over 200 euros'{url} --tenant acme")
