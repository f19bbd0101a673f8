"""The console entry point loads and parses a command with the cyclic collector off, and
turns it on, start-up frozen, when the command's code starts (#18, ``cli/_gc.py``)."""

from __future__ import annotations

import subprocess
import sys

#: A command module in the subprocess: its option callback runs while arguments are parsed,
#: its body when the command's code starts; both print what the collector is doing.
PRELUDE = """
import gc, sys, types
import typer
mod = types.ModuleType("probe_cmd")
def _parsed(value):
    print("PARSE", gc.isenabled())
    return value
def register(app):
    @app.command("probe")
    def probe(x: int = typer.Option(1, callback=_parsed)) -> None:
        '''Probe.'''
        print("IN", gc.isenabled(), gc.get_freeze_count() > 0)
mod.register = register
sys.modules["probe_cmd"] = mod
from unifind.cli import COMMANDS, app, main
COMMANDS["probe"] = ("probe_cmd", "Probe.")
"""


def _run(body: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PRELUDE + body], capture_output=True, text=True, check=True
    )
    return [line for line in out.stdout.splitlines() if line.split(" ")[0].isupper()]


def _main(argv: list[str]) -> str:
    return (
        f"sys.argv = ['unifind', *{argv!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('AFTER', gc.isenabled(), gc.get_freeze_count() > 0)\n"
    )


def test_a_command_parses_with_the_collector_off_and_runs_with_it_on() -> None:
    assert _run(_main(["probe", "--x", "2"])) == [
        "PARSE False",
        "IN True True",  # on again, what start-up allocated in the permanent generation
        "AFTER True True",
    ]


def test_help_or_a_usage_error_leaves_the_collector_on_and_nothing_frozen() -> None:
    assert _run(_main(["--help"])) == ["AFTER True False"]
    assert _run(_main(["probe", "--x", "not-a-number"])) == ["AFTER True False"]


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    assert _run("gc.disable()\n" + _main(["probe"])) == [
        "PARSE False",
        "IN False False",
        "AFTER False False",
    ]


def test_the_app_called_directly_keeps_the_collector_as_it_is() -> None:
    # CliRunner and in-process callers use ``app``, not the entry point: nothing changes.
    body = "try:\n    app(['probe'])\nexcept SystemExit:\n    pass\n"
    assert _run(body) == ["PARSE True", "IN True False"]
