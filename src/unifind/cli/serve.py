"""`unifind serve`: the HTTP API and the streamable MCP endpoint on uvicorn.

FastAPI and uvicorn are imported inside the command only: ``unifind --help`` and every
other command never load them.
"""

from __future__ import annotations

import json
import os
from typing import Annotated, Any

import typer

from unifind.cli._out import err_console, friendly_errors


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def serve(
    host: Annotated[
        str | None, typer.Option(help="Interface to bind (default 127.0.0.1, settings.server).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8765).", min=0, max=65535)] = None,
    workers: Annotated[
        int, typer.Option(help="Worker processes; share state through redis_url.", min=1)
    ] = 1,
    no_auth: Annotated[
        bool,
        typer.Option(
            "--no-auth", help="No API keys (loopback host only; callers act as settings.principal)."
        ),
    ] = False,
    config: Annotated[str | None, typer.Option(help="YAML settings file.")] = None,
    log_level: Annotated[
        str,
        typer.Option(
            metavar="debug|info|warning|error",
            help="Server log level; info logs every request (access log), warning only problems.",
        ),
    ] = "info",
) -> None:
    """Run the HTTP API and streamable MCP server"""
    with friendly_errors():
        from unifind._deps import require

        uvicorn = require("uvicorn", "http")
        require("fastapi", "http")
        from unifind.http_api._app import OPTIONS_ENV, create_app, serve_settings

        server: dict[str, Any] = {"host": host, "port": port}
        server = {k: v for k, v in server.items() if v is not None}
        if no_auth:
            server["auth"] = False
        settings = serve_settings(config, **server)
        s = settings.server
        _announce(settings, workers)
        if workers > 1:
            # Each worker builds its own app from these options (uvicorn imports the
            # factory by name in a fresh process).
            os.environ[OPTIONS_ENV] = json.dumps({"config": config, "server": server})
            uvicorn.run(
                "unifind.http_api:app_factory",
                factory=True,
                host=s.host,
                port=s.port,
                workers=workers,
                log_level=log_level,
            )
        else:
            uvicorn.run(create_app(settings), host=s.host, port=s.port, log_level=log_level)


def _announce(settings: Any, workers: int) -> None:
    s = settings.server
    where = f"http://{s.host}:{s.port}"
    err_console.print(f"unifind: serving {where} (/v1, /mcp, /openapi.json), {workers} worker(s)")
    if settings.redis_url is None and workers > 1:
        # Citation ids go through the records database without Redis (issue #20).
        ids = "citation ids through the records database" if settings.records else (
            "citation ids per worker too (records are off)")  # fmt: skip
        err_console.print(
            "[yellow]warning:[/yellow] several workers without redis_url: the web cache and "
            f"suspensions are per worker; {ids}"
        )
    if not s.auth:
        who = settings.principal
        err_console.print(
            "[yellow]warning:[/yellow] auth is off (--no-auth): every caller acts as "
            f"{who!r}" + ("" if who else " (no principal: only shared data is visible)")
        )
        return
    from unifind.store.keys import KeyStore

    with KeyStore.from_settings(settings) as keys:
        if not keys.list(include_revoked=False):
            err_console.print(
                "[yellow]note:[/yellow] no API keys yet: create one with "
                "`unifind keys create --tenant T --user U`"
            )
