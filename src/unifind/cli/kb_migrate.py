"""`unifind kb migrate NAME --to URL`: copy a collection to another KB store, verified."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from unifind import load_settings
from unifind.cli._out import console, err_console, friendly_errors, print_json
from unifind.cli.kb import kb_app
from unifind.errors import InputError
from unifind.kb.migrate import migrate as run_migration
from unifind.kb.stores import describe, open_store


@kb_app.command("migrate")
def migrate(
    name: Annotated[str, typer.Argument(help="Collection to copy.")],
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="Target store: postgresql://user@host/db, qdrant://folder-or-host:port, "
            "sqlite:///path.db. Passwords are never printed.",
        ),
    ],
    source: Annotated[
        str | None,
        typer.Option("--from", help="Source store (default: the configured kb.store)."),
    ] = None,
    merge: Annotated[
        bool,
        typer.Option(
            "--merge",
            help="Add to a collection that already exists in the target (same ids "
            "are replaced); without it an existing target collection is refused.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """Copy a collection's documents, chunks and vectors to another store (no re-embedding).

    Verified at the end by counts and content hashes. A killed migration resumes when run
    again with the same arguments: documents already copied are skipped.
    """
    settings = load_settings()
    src_spec = source or settings.kb.store
    with friendly_errors():
        if describe(src_spec) == describe(to):
            raise InputError("--to names the source store itself: choose another target")
        settings.ensure_home()
        with open_store(src_spec, settings.home) as src, open_store(to, settings.home) as dst:
            columns = (
                TextColumn(f"copying {name}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(),
            )  # fmt: skip
            with Progress(*columns, console=err_console, disable=as_json) as bar:
                task = bar.add_task("copy", total=None)
                report = run_migration(
                    src, dst, name, home=settings.home, target=describe(to), merge=merge,
                    progress=lambda done, total: bar.update(task, completed=done, total=total),
                )  # fmt: skip
    if as_json:
        print_json({**asdict(report), "source": describe(src_spec), "target": describe(to)})
        return
    console.print(
        f"migrated {name!r} to {describe(to)}: {report.documents} documents, "
        f"{report.chunks} chunks ({report.copied} copied, {report.skipped} already there); "
        "verified: counts and content hashes match"
    )
