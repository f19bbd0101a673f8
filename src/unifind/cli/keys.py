"""`unifind keys ...`: create, list and revoke the API keys of the HTTP and MCP servers."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from unifind.cli._out import console, err_console, friendly_errors, print_json, print_table
from unifind.config import load_settings
from unifind.store.keys import KeyStore

keys_app = typer.Typer(help="Create, list and revoke API keys", no_args_is_help=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def register(app: typer.Typer) -> None:
    app.add_typer(keys_app, name="keys")


def _open() -> KeyStore:
    return KeyStore.from_settings(load_settings())


@keys_app.command("create")
def create(
    tenant: Annotated[str, typer.Option(help="Tenant the key acts for.")],
    user: Annotated[str, typer.Option(help="User the key acts as.")],
    role: Annotated[
        list[str] | None, typer.Option("--role", help="A role of the user (repeatable).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="A label to recognise the key by.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a key for a tenant's user and print it once: only its hash is stored."""
    with friendly_errors(), _open() as store:
        key_id, key = store.create(tenant, user, tuple(role or ()), name=name)
    if as_json:
        print_json({"key_id": key_id, "key": key, "tenant": tenant, "user": user,
                    "roles": list(role or ()), "name": name})  # fmt: skip
        return
    console.print(key, soft_wrap=True, markup=False)
    err_console.print(
        f"key [bold]{key_id}[/bold] for {escape(user)}@{escape(tenant)}: store it now, "
        "it won't be shown again (revoke: unifind keys revoke " + key_id + ")"
    )


@keys_app.command("list")
def list_(
    live_only: Annotated[bool, typer.Option("--live-only", help="Leave out revoked keys.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """List keys (never their secrets): tenant, user, roles, created, last used, revoked."""
    with friendly_errors(), _open() as store:
        infos = store.list(include_revoked=not live_only)
    if as_json:
        print_json([k.to_json() for k in infos])
        return
    if not infos:
        console.print("no API keys yet: [bold]unifind keys create --tenant T --user U[/bold]")
        return
    table = Table(box=None)
    table.add_column("key_id", no_wrap=True, min_width=12)  # the handle to revoke: never cut
    for col in ("tenant", "user", "roles", "name", "created", "last used", "state"):
        table.add_column(col)
    for k in infos:
        table.add_row(
            k.key_id,
            escape(k.tenant),
            escape(k.user),
            escape(", ".join(k.roles)),
            escape(k.name or ""),
            f"{k.created_at:%Y-%m-%d %H:%M}",
            f"{k.last_used_at:%Y-%m-%d %H:%M}" if k.last_used_at else "never",
            "[red]revoked[/red]" if k.revoked_at else "[green]live[/green]",
        )
    print_table(table)


@keys_app.command("revoke")
def revoke(key_id: Annotated[str, typer.Argument(help="The key's id (see keys list).")]) -> None:
    """Revoke a key; servers refuse it within seconds (their cache lasts 5 s)."""
    with friendly_errors(), _open() as store:
        live = store.revoke(key_id)
    console.print(f"revoked {escape(key_id)}" if live else f"{escape(key_id)} was already revoked")
