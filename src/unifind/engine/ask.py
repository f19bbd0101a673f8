"""``Searcher.ask``: the agent pipeline (plan → searches → references → answer)."""

from __future__ import annotations

from unifind.engine.sync import SyncFacade


class Asking(SyncFacade):
    """The agent pipeline's entry points."""
