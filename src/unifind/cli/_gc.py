"""The cyclic garbage collector while a ``unifind`` process starts (#18).

Start-up allocates a few hundred thousand objects that live as long as the process:
modules, classes, functions, pydantic's schemas and validators, typer's parameter adapters.
CPython's generational collector scans them again each time they are promoted, and finds
no garbage among them: a text search on the demo home spent ~70 ms of its ~450 ms of CPU
in ~130 collections, one of them a full one of ~30 ms (measured with ``gc.callbacks``).

So the console entry point turns the collector off while the command is loaded and its
arguments parsed (:func:`paused`), and turns it back on when the command's own code starts
(:func:`resuming`), first moving everything allocated so far into the permanent generation
with :func:`gc.freeze` (added to CPython for pre-fork servers, bpo-31558), so that later
collections scan only what the command allocates. Commands that run for long (serve, mcp,
ingest) do all their work with the collector on, as before. Cyclic garbage made during
start-up is kept until exit: a bounded amount, once.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_paused = False


@contextmanager
def paused() -> Iterator[None]:
    """The collector off until a command's code starts or the block ends; a no-op when the
    caller already turned it off (it stays as the caller left it)."""
    global _paused
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _paused = True
    try:
        yield
    finally:
        if _paused:  # no command ran (help, a usage error): nothing to freeze
            _paused = False
            gc.enable()


def resume() -> None:
    """Freeze what start-up allocated and turn the collector back on, once per pause."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def resuming(callback: Callable[..., Any]) -> Callable[..., Any]:
    """``callback`` that resumes the collector before it runs."""

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        resume()
        return callback(*args, **kwargs)

    return run
