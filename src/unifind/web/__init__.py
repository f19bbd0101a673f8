"""The web leg (DESIGN §5): open registries of search providers and fetchers, the resolution
law, honest failures, and rendering for LLMs. Importing this package is cheap; providers
load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unifind.web.leg import WebLeg
    from unifind.web.model import FetchResult
    from unifind.web.render import render_fetch, render_results

_LAZY = {
    "WebLeg": "unifind.web.leg",
    "FetchResult": "unifind.web.model",
    "render_fetch": "unifind.web.render",
    "render_results": "unifind.web.render",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'unifind.web' has no attribute {name!r}")


__all__ = ["FetchResult", "WebLeg", "render_fetch", "render_results"]
