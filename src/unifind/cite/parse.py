"""Find citations in LLM output and check them against the references given."""

from __future__ import annotations

import re
from dataclasses import dataclass

from unifind.cite.references import References

# Anchor form first (<a href="#ref:ref_001">), then bare #ref:ID, [ref_001], [^3] and [3].
_PATTERNS = (
    re.compile(r"""<a\s[^>]*href\s*=\s*["']#ref:([A-Za-z0-9_\-]+)["'][^>]*>""", re.I),
    re.compile(r"(?<![\w/])#ref:([A-Za-z0-9_\-]+)"),
    re.compile(r"\[\^?((?:ref_)?\d+)\]"),
)


def extract_citations(text: str) -> list[str]:
    """Citation tokens in order of first appearance: ids (``ref_001``) or indexes (``3``)."""
    found: list[tuple[int, str]] = []
    for pattern in _PATTERNS:
        found.extend((m.start(), m.group(1)) for m in pattern.finditer(text))
    seen: dict[str, None] = {}
    for _, token in sorted(found):
        seen.setdefault(token, None)
    return list(seen)


@dataclass(frozen=True)
class CitationCheck:
    """Which cited ids exist, which were cut by the budget, which are unknown."""

    valid: tuple[str, ...]
    omitted: tuple[str, ...]
    """Ids of real references the LLM never saw (cut by the budget)."""
    unknown: tuple[str, ...]
    """Tokens matching no reference: invented or mistyped."""

    @property
    def ok(self) -> bool:
        return not self.unknown and not self.omitted


def check_citations(text: str, refs: References) -> CitationCheck:
    """Resolve every citation in ``text`` (ids or 1-based indexes) against ``refs``."""
    by_index = {str(i): r.citation_id for i, r in enumerate(refs.references, start=1)}
    shown = {r.citation_id for r in refs.references}
    valid, omitted, unknown = [], [], []
    for token in extract_citations(text):
        cid = by_index.get(token, token) if token.isdigit() else token
        if cid in shown:
            valid.append(cid)
        elif cid in refs.omitted:
            omitted.append(cid)
        else:
            unknown.append(token)
    return CitationCheck(tuple(dict.fromkeys(valid)), tuple(omitted), tuple(unknown))  # type: ignore[arg-type]
