"""Searcher: the engine (L4). Runs requests on legs — one, all, any, race — fuses and cites.

Each concern lives in its own module and the Searcher is their sum: state and legs
(``_base``), citations (``citations``), records (``records``), orchestration
(``orchestrate``), progress (``tracing``, ``streaming``), the blocking facade (``sync``)
and the agent pipeline (``ask``).
"""

from __future__ import annotations

from typing import Any

from unifind.config import load_settings
from unifind.engine.ask import Asking


class Searcher(Asking):
    """One entry point for web, KB and DB searches. Async core; ``*_sync`` for scripts."""

    @classmethod
    def from_config(cls, path: str | None = None, **overrides: Any) -> Searcher:
        """Build from a YAML file (or ``UNIFIND_CONFIG``, or zero-config defaults)."""
        return cls(load_settings(path, **overrides))

    def close(self) -> None:
        """Release the store, the records database, the legs' connections and the sync
        facade's event loop thread."""
        self._stop_loop()
        self._close_stores()

    async def aclose(self) -> None:
        """:meth:`close`, plus the legs' async clients (the web leg's HTTP pool)."""
        await self._aclose_legs()
        self.close()
