"""LlamaIndex: unifind as a retriever and as a tool (``pip install "unifind[llamaindex]"``).

- :class:`UnifindRetriever` is a ``BaseRetriever`` returning ``NodeWithScore``: a fused
  search over ``sources`` (``kb``, ``web``, ``db``), sync and async, each node's metadata
  carrying its citation id, provenance (``matched``) and every backend's status. It plugs
  into ``RetrieverQueryEngine`` like any retriever.
- :func:`search_tool` is a ``FunctionTool`` with the MCP ``search`` tool's schema: the
  cited text as its output, the structured result as ``raw_output``, and bad arguments
  answered in-band (``ToolOutput.is_error``) instead of raised.

Offline: llama-index-core 0.14 ships NLTK's stopwords/punkt_tab and tiktoken's encodings in
its wheel (``llama_index/core/_static``) and uses them unless ``NLTK_DATA`` or
``TIKTOKEN_CACHE_DIR`` point elsewhere; this module itself touches neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

try:
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
    from llama_index.core.tools import FunctionTool, ToolMetadata, ToolOutput
    from llama_index.core.vector_stores.types import (
        FilterCondition,
        FilterOperator,
        MetadataFilter,
        MetadataFilters,
    )
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from unifind.errors import MissingDependency

    raise MissingDependency("llama-index-core", "llamaindex") from exc

from unifind import InputError, Searcher
from unifind.integrations._common import (
    SUPPORTED_FILTERS,
    Retrieved,
    Search,
    item_id,
    metadata,
    mongo_filters,
)

__all__ = ["UnifindRetriever", "as_filters", "search_tool", "to_nodes"]


def as_filters(filters: MetadataFilters | dict[str, Any] | None) -> dict[str, Any] | None:
    """LlamaIndex ``MetadataFilters`` as the KB's filters: ``==`` and ``in``, joined by AND.

    Any other operator or condition is refused naming what is supported (a dropped filter
    would widen the search silently). A plain dict is read as in the LangChain adapter.
    """
    if filters is None or isinstance(filters, dict):
        return mongo_filters(filters)
    if filters.condition not in (FilterCondition.AND, None) and len(filters.filters) > 1:
        raise InputError(
            f"unsupported filter condition {filters.condition.value!r}; "
            f"supported: {SUPPORTED_FILTERS}"
        )
    out: dict[str, Any] = {}
    for f in filters.filters:
        if isinstance(f, MetadataFilters):
            out.update(as_filters(f) or {})
            continue
        if not isinstance(f, MetadataFilter) or f.operator not in (
            FilterOperator.EQ,
            FilterOperator.IN,
        ):
            op = getattr(getattr(f, "operator", None), "value", f)
            raise InputError(
                f"unsupported filter operator {op!r} on {getattr(f, 'key', '?')!r}; supported: "
                f"'==' and 'in' ({SUPPORTED_FILTERS})"
            )
        if f.key in out:
            raise InputError(f"two conditions on {f.key!r}; give one condition per field")
        op = "$in" if f.operator is FilterOperator.IN else "$eq"
        out.update(mongo_filters({f.key: {op: f.value}}) or {})
    return out or None


#: What a synthesizer's prompt shows of a node's metadata: enough to cite it. The rest
#: (provenance, every backend's status) is for the program, not for the LLM's context.
_SHOWN = ("citation_id", "title", "url")


def to_nodes(retrieved: Retrieved) -> list[NodeWithScore]:
    """The fused hits as scored text nodes, best first."""
    out = []
    for it in retrieved.items:
        meta = metadata(it, retrieved)
        hidden = [k for k in meta if k not in _SHOWN]
        out.append(_build(item_id(it), it.content, meta, hidden, it.score))
    return out


def _validated(
    id_: str, text: str, meta: dict[str, Any], hidden: list[str], score: float
) -> NodeWithScore:
    node = TextNode(
        id_=id_,
        text=text,
        metadata=meta,
        excluded_llm_metadata_keys=hidden,
        excluded_embed_metadata_keys=hidden,
    )
    return NodeWithScore(node=node, score=score)


class _NodeBuilder:
    """Scored text nodes built from values whose types are already right, without pydantic
    validating them again: the same objects as :func:`_validated`'s at about half the cost
    (building ten nodes is most of what this adapter adds to a search, issue #21).

    The first node a process builds is also built the validated way and compared, field
    by field: a llama-index release whose nodes derive or check something in a validator
    would differ there, and then every node is built the validated way.
    """

    #: The fields ``_validated`` passes: what a validated node's ``model_fields_set`` holds.
    SET = frozenset(
        ("id_", "text", "metadata", "excluded_llm_metadata_keys", "excluded_embed_metadata_keys")
    )

    def __init__(self) -> None:
        self.trusted: bool | None = None  # None: not compared yet

    @cached_property
    def _base(self) -> dict[str, Any]:
        """A validated node's field values (every default), which each node starts from."""
        return dict(TextNode(id_="", text="").__dict__)

    @cached_property
    def _fresh(self) -> list[str]:
        """Containers among the defaults (``relationships``): each node gets its own."""
        base = self._base.items()
        return [k for k, v in base if isinstance(v, dict | list | set) and k not in self.SET]

    def __call__(
        self, id_: str, text: str, meta: dict[str, Any], hidden: list[str], score: float
    ) -> NodeWithScore:
        if self.trusted is False:
            return _validated(id_, text, meta, hidden, score)
        fast = self._unvalidated(id_, text, meta, hidden, score)
        if self.trusted is None:
            ref = _validated(id_, text, meta, hidden, score)
            self.trusted = _same(fast, ref) and _same(fast.node, ref.node)
            return fast if self.trusted else ref
        return fast

    def _unvalidated(
        self, id_: str, text: str, meta: dict[str, Any], hidden: list[str], score: float
    ) -> NodeWithScore:
        values = {**self._base, "id_": id_, "text": text, "metadata": meta}
        values["excluded_llm_metadata_keys"] = hidden
        values["excluded_embed_metadata_keys"] = list(hidden)
        for k in self._fresh:
            values[k] = values[k].copy()
        node = _construct(TextNode, values, self.SET)
        scored: NodeWithScore = _construct(NodeWithScore, {"node": node, "score": score}, _SCORED)
        return scored


_SCORED = frozenset(("node", "score"))


def _construct(cls: type[Any], values: dict[str, Any], fields_set: Iterable[str]) -> Any:
    # What pydantic's model_construct ends with, without its per-field default lookups
    # (which made it slower than validating); unifind.types.evolve does the same for Item.
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(fields_set))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b) or a.__dict__.keys() != b.__dict__.keys():
        return False
    own = [k for k in a.__dict__ if k != "node"]  # a NodeWithScore's node: compared apart
    return (
        all(a.__dict__[k] == b.__dict__[k] for k in own)
        and a.__pydantic_fields_set__ == b.__pydantic_fields_set__
        and a.__pydantic_extra__ == b.__pydantic_extra__
        and a.__pydantic_private__ == b.__pydantic_private__
    )


_build = _NodeBuilder()


class UnifindRetriever(BaseRetriever):
    """A fused unifind search as a LlamaIndex retriever.

    ``searcher`` is used and left open when given; otherwise one is built from ``config``
    (else the discovered configuration) on first use. ``filters`` are KB metadata filters
    (``MetadataFilters`` with ``==`` / ``in`` and AND, or a dict).
    """

    def __init__(
        self,
        searcher: Searcher | None = None,
        *,
        sources: tuple[str, ...] | list[str] = ("kb",),
        similarity_top_k: int = 10,
        collections: list[str] | None = None,
        mode: str | None = None,
        filters: MetadataFilters | dict[str, Any] | None = None,
        models: list[str] | None = None,
        config: str | None = None,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        self._search = Search(
            searcher,
            sources=sources,
            limit=similarity_top_k,
            collections=collections,
            mode=mode,
            filters=as_filters(filters),
            models=models,
            config=config,
        )
        super().__init__(callback_manager=callback_manager)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return to_nodes(self._search.run(query_bundle.query_str))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return to_nodes(await self._search.arun(query_bundle.query_str))

    def close(self) -> None:
        """Close the Searcher this retriever built (a given one stays open)."""
        self._search.close()


@dataclass
class _SchemaMetadata(ToolMetadata):
    """Tool metadata whose parameters are a JSON Schema given as data (the MCP tool's),
    not derived from a pydantic model."""

    parameters: dict[str, Any] | None = None

    def get_parameters_dict(self) -> dict[str, Any]:
        return dict(self.parameters or {})


class _UnifindTool(FunctionTool):
    """A FunctionTool whose output carries unifind's in-band error flag."""

    def call(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return _output(super().call(*args, **kwargs))

    async def acall(self, *args: Any, **kwargs: Any) -> ToolOutput:
        return _output(await super().acall(*args, **kwargs))


def _output(out: ToolOutput) -> ToolOutput:
    result = out.raw_output
    return ToolOutput(
        tool_name=out.tool_name,
        content=result.text,
        raw_input=out.raw_input,
        raw_output=result.data,
        is_error=result.is_error,
    )


def search_tool(searcher: Searcher | None = None) -> FunctionTool:
    """unifind's ``search`` tool as a LlamaIndex ``FunctionTool`` (for an agent's tools list).

    ``searcher`` is used and left open when given; otherwise each call builds one from the
    configuration.
    """
    from unifind.tools import acall, call, schemas

    declared = next(t for t in schemas("anthropic") if t["name"] == "search")

    def search(**arguments: Any) -> Any:
        return call("search", arguments, searcher=searcher)

    async def asearch(**arguments: Any) -> Any:
        return await acall("search", arguments, searcher=searcher)

    meta = _SchemaMetadata(
        description=declared["description"],
        name="search",
        fn_schema=None,
        parameters=declared["input_schema"],
    )
    return _UnifindTool.from_defaults(fn=search, async_fn=asearch, tool_metadata=meta)
