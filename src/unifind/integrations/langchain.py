"""LangChain: unifind as a retriever and as a tool (``pip install "unifind[langchain]"``).

- :class:`UnifindRetriever` is a ``BaseRetriever``: a fused search over the legs named in
  ``sources`` (``kb``, ``web``, ``db``), sync and async, each hit a ``Document`` whose
  metadata carries its citation id, its provenance (``matched``) and every backend's
  status (``statuses``; ``status`` is the overall ``ok`` / ``partial`` / ``unavailable``).
- :class:`UnifindSearchTool` is a ``BaseTool`` for an agent: the MCP ``search`` tool's own
  argument schema, the compact cited text as the content and the structured result as the
  artifact (``response_format="content_and_artifact"``). Bad arguments come back as text
  naming what is valid (the same in-band errors as :func:`unifind.tools.call`), so the
  agent loop hands them to the model instead of dying.

Both pass ``langchain-tests``' standard suites (tests/integrations/test_langchain.py).
"""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        AsyncCallbackManagerForToolRun,
        CallbackManagerForRetrieverRun,
        CallbackManagerForToolRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.tools import BaseTool
    from pydantic import ConfigDict, Field, PrivateAttr
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from unifind.errors import MissingDependency

    raise MissingDependency("langchain-core", "langchain") from exc

from unifind import Searcher
from unifind.integrations._common import Retrieved, Search, item_id, metadata, mongo_filters

__all__ = ["UnifindRetriever", "UnifindSearchTool", "to_documents"]


def to_documents(retrieved: Retrieved) -> list[Document]:
    """The fused hits as LangChain documents, best first."""
    return [
        Document(id=item_id(it), page_content=it.content, metadata=metadata(it, retrieved))
        for it in retrieved.items
    ]


class UnifindRetriever(BaseRetriever):
    """A fused unifind search as a LangChain retriever.

    ``filters`` (here or per call: ``retriever.invoke(q, filters={...})``) are KB metadata
    filters, also in the vector-store form (``{"lang": {"$eq": "en"}}``, ``$in``,
    ``$and``); other operators are refused naming the supported ones. A call's ``k`` and
    ``filters`` replace the retriever's for that call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    searcher: Searcher | None = None
    """An open Searcher to use (left open); one is built from ``config`` when omitted."""
    config: str | None = None
    """Path of a unifind config file; the usual discovery when omitted."""
    sources: list[str] = Field(default_factory=lambda: ["kb"])
    k: int = Field(default=10, ge=1, le=1000)
    collections: list[str] | None = None
    mode: str | None = None
    filters: dict[str, Any] | None = None
    models: list[str] | None = None

    _search: Search = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        self._search = Search(
            self.searcher,
            sources=self.sources,
            limit=self.k,
            collections=self.collections,
            mode=self.mode,
            filters=mongo_filters(self.filters),
            models=self.models,
            config=self.config,
        )

    def _options(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        unknown = set(kwargs) - {"k", "filters"}
        if unknown:
            from unifind.errors import InputError

            raise InputError(f"unknown option(s) {sorted(unknown)}; valid per call: k, filters")
        return {"limit": kwargs.get("k"), "filters": mongo_filters(kwargs.get("filters"))}

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return to_documents(self._search.run(query, **self._options(kwargs)))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return to_documents(await self._search.arun(query, **self._options(kwargs)))

    def close(self) -> None:
        """Close the Searcher this retriever built (a given one stays open)."""
        self._search.close()


def _search_tool_schema() -> dict[str, Any]:
    from unifind.tools import schemas

    tool = next(t for t in schemas("anthropic") if t["name"] == "search")
    return dict(tool["input_schema"])


def _search_tool_description() -> str:
    from unifind.tools import schemas

    return str(next(t for t in schemas("anthropic") if t["name"] == "search")["description"])


class UnifindSearchTool(BaseTool):
    """unifind's ``search`` tool for a LangChain agent: cited text for the model, the
    structured result (items, every backend's status) as the artifact."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "search"
    description: str = Field(default_factory=_search_tool_description)
    # The MCP tool's JSON Schema, so the model sees exactly what the MCP server accepts;
    # LangChain passes JSON-Schema arguments through unvalidated, and unifind.tools
    # validates them, answering bad ones in-band.
    args_schema: dict[str, Any] = Field(default_factory=_search_tool_schema)  # type: ignore[assignment]
    response_format: str = "content_and_artifact"  # type: ignore[assignment]
    searcher: Searcher | None = None
    """An open Searcher to use (left open); one is built per call from the configuration
    when omitted."""

    def _result(self, result: Any) -> tuple[str, dict[str, Any]]:
        artifact = dict(result.data or {})
        artifact["is_error"] = result.is_error
        return result.text, artifact

    def _run(
        self, *, run_manager: CallbackManagerForToolRun | None = None, **kwargs: Any
    ) -> tuple[str, dict[str, Any]]:
        from unifind.tools import call

        return self._result(call("search", kwargs, searcher=self.searcher))

    async def _arun(
        self, *, run_manager: AsyncCallbackManagerForToolRun | None = None, **kwargs: Any
    ) -> tuple[str, dict[str, Any]]:
        from unifind.tools import acall

        return self._result(await acall("search", kwargs, searcher=self.searcher))
