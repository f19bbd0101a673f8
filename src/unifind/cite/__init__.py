"""Citations (L2, pure): ids, the ``<references>`` context, the prompt, and a parser."""

from unifind.cite.ids import CitationContext
from unifind.cite.parse import CitationCheck, check_citations, extract_citations
from unifind.cite.references import (
    DEFAULT_PROMPT,
    References,
    build_references,
    citation_template,
)

__all__ = [
    "DEFAULT_PROMPT",
    "CitationCheck",
    "CitationContext",
    "References",
    "build_references",
    "check_citations",
    "citation_template",
    "extract_citations",
]
