"""`unifind config`: which file is used, the effective settings (and, with ``--explain``,
the layer each came from), checking a file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from unifind.cli._out import console, friendly_errors, print_error, print_json
from unifind.config import Settings, config_candidates, find_config, flatten, load_settings
from unifind.errors import ConfigError

config_app = typer.Typer(
    help="Which config file is used, the effective settings, and checking a file.",
    no_args_is_help=True,
)

#: Keys whose values are secrets, shown masked (``api_key``, ``token``, ``password`` ...).
_SECRET_KEY = re.compile(r"(api_?key|token|secret|password|passwd)$", re.I)
#: ``scheme://user:password@host``: the password part of a URL.
_URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.\-]*://[^/@:\s]*:)[^/@\s]+(?=@)", re.I)
MASK = "***"


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")


@config_app.command("path")
def path(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print the config file in use (or that there is none) and where files are looked for."""
    used = find_config()
    named = os.environ.get("UNIFIND_CONFIG")
    order = [("$UNIFIND_CONFIG", Path(named) if named else None)]
    order += [(str(p), p) for p in config_candidates()]
    if as_json:
        print_json(
            {
                "path": str(used.absolute()) if used else None,
                "search_order": [
                    {"where": where, "path": str(p.absolute()) if p else None,
                     "exists": bool(p and p.is_file())}
                    for where, p in order
                ],
            }
        )  # fmt: skip
        return
    console.print(
        escape(str(used.absolute())) if used else "none: built-in defaults", soft_wrap=True
    )
    console.print("[dim]looked for, in order:[/dim]")
    for where, p in order:
        if p is None:
            state = "unset"
        else:
            state = "found" if p.is_file() else "missing"
            where = f"{where} ({p.absolute()})" if where.startswith("$") else str(p.absolute())
        console.print(f"  {escape(where)}  [dim]{state}[/dim]", soft_wrap=True)


@config_app.command("show")
def show(
    file: Annotated[
        str | None,
        typer.Option("--config", metavar="FILE", help="Show this file's settings instead."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Every setting as a dotted key, with the layer it came from (default, "
            "file, env var), and each assistant's effective ask settings.",
        ),
    ] = False,
) -> None:
    """Print the effective settings (file, environment and defaults); secrets masked."""
    with friendly_errors():
        settings = load_settings(file)
        if explain:
            _explain(settings, as_json)
            return
    data = mask(settings.model_dump(mode="json"))
    if as_json:
        print_json(data)
        return
    import yaml

    console.print(escape(yaml.safe_dump(data, sort_keys=False, allow_unicode=True)), end="")


@config_app.command("check")
def check(
    file: Annotated[
        str | None,
        typer.Argument(metavar="FILE", help="The file to check (default: the one in use)."),
    ] = None,
) -> None:
    """Validate a config file: exit 0 when it is valid, 2 with the error when not."""
    target = Path(file) if file else find_config()
    if target is None:
        console.print("no config file in use: built-in defaults (see `unifind config path`)")
        return
    if not target.is_file():
        print_error(f"{target}: no such file")
        raise typer.Exit(2)
    try:
        load_settings(target)
    except ConfigError as exc:
        print_error(" ".join(str(exc).split()))
        raise typer.Exit(2) from exc
    console.print(f"{escape(str(target))}: valid", soft_wrap=True)


def explained(settings: Settings) -> dict[str, Any]:
    """``{"settings": {key: {value, layer}}, "assistants": {name: {key: {value, layer}}}}``:
    every setting flattened to a dotted key, and each assistant's effective ``ask.*``."""
    from unifind.agent.layers import merge, settings_layers

    layers = settings.layers()
    values = flatten(mask(settings.model_dump(mode="json")))
    out: dict[str, Any] = {
        "settings": {k: {"value": v, "layer": layers[k]} for k, v in values.items()},
        "assistants": {},
    }
    for name in settings.assistants:
        eff = merge(settings_layers(settings, name))
        out["assistants"][name] = {
            f"ask.{k}": {"value": v, "layer": eff.layers[k]} for k, v in eff.values.items()
        }
    return out


def _explain(settings: Settings, as_json: bool) -> None:
    data = explained(settings)
    if as_json:
        print_json(data)
        return
    blocks = [("", data["settings"])]
    blocks += [(f"assistant {n}: the ask settings of a request naming it", rows)
               for n, rows in data["assistants"].items()]  # fmt: skip
    for title, rows in blocks:
        if title:
            console.print(f"\n# {escape(title)}")
        width = max(map(len, rows), default=0)
        for key, row in rows.items():
            value = json.dumps(row["value"], ensure_ascii=False)
            line = f"{key:<{width}} = {value}  # {row['layer']}"
            console.print(escape(line), soft_wrap=True)


def mask(value: Any, key: str = "") -> Any:
    """``value`` with secrets replaced by ``***``: values of secret-named keys, URL passwords."""
    if isinstance(value, dict):
        return {k: mask(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v, key) for v in value]
    if isinstance(value, str):
        if value and _SECRET_KEY.search(key):
            return MASK
        return _URL_PASSWORD.sub(rf"\g<head>{MASK}", value)
    return value
