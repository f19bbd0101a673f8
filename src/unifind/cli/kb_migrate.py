"""`unifind kb migrate NAME --to SPEC`: move a collection to another KB store, verified."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from unifind import load_settings
from unifind.cli._out import console, err_console, friendly_errors, print_json
from unifind.cli.kb import kb_app
from unifind.config import Settings
from unifind.errors import InputError
from unifind.kb.base import KBStore
from unifind.kb.migrate import MigrateReport
from unifind.kb.migrate import migrate as run_migration
from unifind.kb.routing import open_routing
from unifind.kb.stores import canonical, describe, open_store


@kb_app.command("migrate")
def migrate(
    name: Annotated[str, typer.Argument(help="Collection to move.")],
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="Target store: postgresql://user@host/db, qdrant://folder-or-host:port, "
            "milvus://..., sqlite:///path.db or a path. Passwords are never printed.",
        ),
    ],
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Copy out of another store instead of the configured KB (a plain copy: "
            "the KB's catalog is not changed).",
        ),
    ] = None,
    merge: Annotated[
        bool,
        typer.Option(
            "--merge",
            help="Add to a collection that already exists in the target (same ids "
            "are replaced); without it an existing target collection is refused.",
        ),
    ] = False,
    copy_only: Annotated[
        bool,
        typer.Option(
            "--copy-only",
            help="Copy and verify, but keep serving the collection from where it is.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
) -> None:
    """Move a collection's documents, chunks and vectors to another store (no re-embedding).

    Verified at the end by counts and content hashes; then the KB serves the collection
    from the target (the catalog is re-pointed) and the old copy is removed. A killed
    migration resumes when run again with the same arguments: documents already copied
    are skipped.
    """
    settings = load_settings()
    settings.ensure_home()
    with friendly_errors():
        if source is not None and canonical(source, settings.home) != canonical(
            settings.kb.store, settings.home
        ):
            report, old = _copy(settings, name, source, to, merge, as_json), None
            src_shown = describe(source)
        else:
            report, old, src_shown = _move(settings, name, to, merge, copy_only, as_json)
    if as_json:
        out = {**asdict(report), "source": src_shown, "target": describe(to)}
        print_json({**out, "repointed": old is not None, "removed_from": old})
        return
    console.print(
        f"migrated {name!r} to {escape(describe(to))}: {report.documents} documents, "
        f"{report.chunks} chunks ({report.copied} copied, {report.skipped} already there); "
        "verified: counts and content hashes match"
    )
    if old is not None:
        console.print(
            f"{name!r} is now served from {escape(describe(to))}; "
            f"its copy in {escape(old)} was removed"
        )


def _copy(
    settings: Settings, name: str, source: str, to: str, merge: bool, quiet: bool
) -> MigrateReport:
    """A plain copy between two stores, neither of them the KB's catalog."""
    if canonical(source, settings.home) == canonical(to, settings.home):
        raise InputError("--to names the source store itself: choose another target")
    with open_store(source, settings.home) as src, open_store(to, settings.home) as dst:
        return _run(src, dst, name, settings, to, merge, quiet, None)


def _move(
    settings: Settings, name: str, to: str, merge: bool, copy_only: bool, quiet: bool
) -> tuple[MigrateReport, str | None, str]:
    """Copy out of the configured KB (wherever ``name`` lives), then re-point it."""
    with open_routing(settings.kb.store, settings.home) as kb:
        kb.get_collection(name)  # unknown → the error lists the existing ones
        here = kb.location(name)
        there = canonical(to, settings.home)
        stays = describe(there) == here
        if stays and not merge:
            raise InputError(
                f"collection {name!r} already lives in {here}: nothing to move "
                "(--merge re-checks it there)"
            )
        moved: list[str | None] = [None]

        def repoint() -> None:
            moved[0] = kb.repoint(name, there)

        after = None if copy_only or stays else repoint
        report = _run(kb, kb.store_at(there), name, settings, to, merge, quiet, after)
        return report, moved[0], here


def _run(
    src: KBStore,
    dst: KBStore,
    name: str,
    settings: Settings,
    to: str,
    merge: bool,
    quiet: bool,
    after: Callable[[], None] | None,
) -> MigrateReport:
    columns = (
        TextColumn(f"copying {escape(name)}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(),
    )  # fmt: skip
    with Progress(*columns, console=err_console, disable=quiet) as bar:
        task = bar.add_task("copy", total=None)
        return run_migration(
            src, dst, name, home=settings.home, target=describe(to), merge=merge,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
            on_verified=after,
        )  # fmt: skip
