"""Adapters for agent frameworks, one module each, each behind its own extra.

- :mod:`unifind.integrations.langchain` (``pip install "unifind[langchain]"``): a retriever
  and a tool;
- :mod:`unifind.integrations.llamaindex` (``unifind[llamaindex]``): a retriever and a
  ``FunctionTool``;
- :mod:`unifind.integrations.haystack` (``unifind[haystack]``): a retriever and a fused
  searcher as serialisable components.

They sit on the public API (:class:`unifind.Searcher`, :class:`unifind.SearchRequest`);
nothing here is imported by ``import unifind``.
"""
