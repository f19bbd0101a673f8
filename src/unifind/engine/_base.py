"""The Searcher's state: settings, the legs (built on first use), the KB and the records."""

from __future__ import annotations

import importlib
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from unifind.cite import CitationContext
from unifind.config import Settings, load_settings
from unifind.kb._sync import LoopThread
from unifind.types import Principal, SearchRequest, SearchResult

if TYPE_CHECKING:  # imported where used: SQLAlchemy and the KB stack cost ~0.2 s at start-up
    from unifind.kb.service import KnowledgeBase
    from unifind.store import RecordStore


class LegRunner(Protocol):
    """What the engine needs from a leg (the kb and db legs also take ``principal=``)."""

    async def search(self, req: SearchRequest) -> SearchResult: ...


#: Where each leg's runner lives; a leg whose module is absent is reported ``disabled``.
LEG_MODULES = {"web": "unifind.web.leg:WebLeg", "db": "unifind.db.leg:DBLeg"}
#: Per-leg deadline when neither the request nor the config sets one (seconds).
DEFAULT_TIMEOUTS = {"web": 15.0, "kb": 30.0, "db": 15.0}


class SearcherBase:
    """What every part of the Searcher shares; the parts are its subclasses."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        kb: KnowledgeBase | None = None,
        legs: Mapping[str, LegRunner] | None = None,
        records: RecordStore | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self._kb = kb
        self._records = records
        self._legs: dict[str, Any] = dict(legs or {})
        # (tenant, request id) → its context: one tenant never sees another's numbering.
        self._contexts: OrderedDict[tuple[str | None, str], CitationContext] = OrderedDict()
        self._sync_loop = LoopThread("unifind-sync")  # the sync facade's loop

    @property
    def kb(self) -> KnowledgeBase:
        """The knowledge base on the configured store (opened on first use)."""
        if self._kb is None:
            from unifind.kb.service import KnowledgeBase

            self._kb = KnowledgeBase.open(self.settings)
        return self._kb

    @property
    def records(self) -> RecordStore | None:
        """Where search records go (None when ``settings.records`` is off)."""
        if self._records is None and self.settings.records:
            from unifind.store import RecordStore

            self._records = RecordStore.from_settings(self.settings)
        return self._records

    def leg(self, name: str) -> Any:
        """The runner of leg ``name`` (``web``, ``kb``, ``db``), built on first use; None when
        this build lacks it."""
        return self._leg(name)

    def _leg(self, leg: str) -> Any:
        if leg in self._legs:
            return self._legs[leg]
        if leg == "kb":
            return self.kb
        module, _, attr = LEG_MODULES[leg].partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            self._legs[leg] = None
        else:
            self._legs[leg] = cls.from_settings(self.settings)
        return self._legs[leg]

    def _who(self, principal: Principal | None) -> Principal | None:
        """The caller's principal, else the configured local one (``settings.principal``)."""
        return principal if principal is not None else self.settings.principal

    def _timeout(self, req: SearchRequest) -> float:
        configured = self.settings.timeouts
        return req.timeout_s or float(configured.get(req.type, DEFAULT_TIMEOUTS[req.type]))

    def _close_stores(self) -> None:
        if self._kb is not None:
            self._kb.close()
        if self._records is not None:
            self._records.close()
        for leg in self._legs.values():
            closer = getattr(leg, "close", None)
            if callable(closer):
                closer()

    async def _aclose_legs(self) -> None:
        for leg in self._legs.values():
            closer = getattr(leg, "aclose", None)
            if callable(closer):
                await closer()
