"""Plug-in registries. Built-ins register exactly like third-party plug-ins: entry points.

A kind (``kb_stores``, ``embedders``, ``rerankers``, ``web_providers``, ...) maps names to
``module:attr`` targets, loaded lazily on first use. Third parties add theirs with an entry
point in the ``unifind.<kind>`` group or by calling :meth:`Registry.register`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from unifind.errors import UnknownName

T = TypeVar("T")


class Registry(Generic[T]):
    """Names → lazily imported plug-ins of one kind, in registration order."""

    def __init__(self, kind: str, builtins: dict[str, str] | None = None) -> None:
        self.kind = kind
        self._targets: dict[str, str | T] = dict(builtins or {})
        self._loaded: dict[str, T] = {}
        self._scanned = False

    def register(self, name: str, target: str | T) -> None:
        """Add or replace a plug-in: an object, or a ``"module:attr"`` string loaded on use."""
        self._scan()  # entry points first: they keep their place before later registrations
        self._targets[name] = target
        self._loaded.pop(name, None)

    def unregister(self, name: str) -> None:
        self._scan()  # an entry point a built-in shadows must not appear once it is gone
        self._targets.pop(name, None)
        self._loaded.pop(name, None)

    def _scan(self) -> None:
        # Entry points are read once, lazily: scanning metadata costs ~10-20 ms (every
        # installed distribution's entry_points.txt). A name already known needs no scan:
        # an entry point never replaces a target (setdefault), and register/unregister
        # scan first, so the names and their order are what an early scan would give.
        if self._scanned:
            return
        self._scanned = True
        for ep in entry_points(group=f"unifind.{self.kind}"):
            self._targets.setdefault(ep.name, ep.value)

    def names(self) -> list[str]:
        self._scan()
        return list(self._targets)

    def __contains__(self, name: object) -> bool:
        if name not in self._targets:
            self._scan()
        return name in self._targets

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> T:
        """The plug-in called ``name``; an unknown name raises, listing the valid ones."""
        if name not in self._targets:
            self._scan()
        if name in self._loaded:
            return self._loaded[name]
        if name not in self._targets:
            raise UnknownName(self.kind.rstrip("s").replace("_", " "), name, self._targets)
        target = self._targets[name]
        obj: T = _load(target) if isinstance(target, str) else target
        self._loaded[name] = obj
        return obj


def _load(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


_REGISTRIES: dict[str, Registry[Any]] = {}

#: Built-ins, mirrored in pyproject's entry points so a source checkout works uninstalled.
_BUILTINS: dict[str, dict[str, str]] = {
    "kb_stores": {
        "sqlite": "unifind.kb.sqlite:SQLiteStore",
        "postgres": "unifind.kb.postgres:PostgresStore",
        "qdrant": "unifind.kb.qdrant:QdrantStore",
    },
    "embedders": {
        "bge-small-en-v1.5": "unifind.embed.bge:BgeSmallEmbedder",
        "onnx": "unifind.embed.onnx_dir:OnnxDirEmbedder",
        "openai": "unifind.embed.openai:OpenAIEmbedder",
        "hash": "unifind.testing.fakes:HashEmbedder",
    },
    "rerankers": {"cross-encoder": "unifind.embed.cross_encoder:CrossEncoderReranker"},
    "rerank_modes": {
        "builtin": "unifind.rerankers.builtin:BuiltinMode",
        "cross-encoder": "unifind.rerankers.cross_encoder:CrossEncoderMode",
        "agent": "unifind.rerankers.agent:AgentMode",
        "mcp": "unifind.rerankers.mcp:McpMode",
    },
    "db_generators": {
        "builtin": "unifind.db.generate.builtin:BuiltinGenerator",
        "agent": "unifind.db.generate.llm:LLMGenerator",
    },
    # Registration order matters: the first keyed provider with a key wins (DESIGN §5).
    "web_providers": {
        "tavily": "unifind.web.providers.tavily:Tavily",
        "serper": "unifind.web.providers.serper:Serper",
        "serpapi": "unifind.web.providers.serpapi:SerpAPI",
        "exa": "unifind.web.providers.exa:Exa",
        "brave": "unifind.web.providers.brave:Brave",
        "firecrawl": "unifind.web.providers.firecrawl:FirecrawlSearch",
        "jina": "unifind.web.providers.jina:JinaSearch",
        "searxng": "unifind.web.providers.searxng:SearXNG",
        "duckduckgo": "unifind.web.providers.duckduckgo:DuckDuckGo",
    },
    # Bytes → (text, title) by MIME type: how the web leg reads a fetched PDF or Word file
    # with the KB's extractor while neither layer imports the other (DESIGN §2).
    "document_readers": {
        "application/pdf": "unifind.kb.extract:extract_bytes",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": (
            "unifind.kb.extract:extract_bytes"
        ),
    },
    "web_fetchers": {
        "local": "unifind.web.fetchers.local:LocalFetcher",
        "jina": "unifind.web.fetchers.jina:JinaReader",
        "firecrawl": "unifind.web.fetchers.firecrawl:FirecrawlScrape",
        "exa": "unifind.web.fetchers.exa:ExaContents",
    },
}


def registry(kind: str) -> Registry[Any]:
    """The registry for ``kind`` (created on first use)."""
    if kind not in _REGISTRIES:
        _REGISTRIES[kind] = Registry(kind, _BUILTINS.get(kind))
    return _REGISTRIES[kind]


def register(kind: str, name: str) -> Callable[[T], T]:
    """Decorator form: ``@register("web_providers", "mine") class Mine: ...``."""

    def deco(obj: T) -> T:
        registry(kind).register(name, obj)
        return obj

    return deco
