"""Citations in a streamed answer: never split a ``[ref_001, ref_003]`` across two deltas.

An LLM's deltas cut text anywhere: ``"... window [re"`` then ``"f_001] is"``. The processor
holds back a tail that may still become a citation group (an open ``[``, ``【`` or ``［``
with nothing but citation characters after it) and releases it when the group closes or
proves not to be one; likewise the start of an id outside brackets (``(ref_0``). Each
released delta comes with the citation tokens it completed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from unifind.cite import extract_citations

_OPEN = "[【［"
#: What may follow an open bracket inside a citation group before it closes.
_GROUP_BODY = re.compile(r"[\^\s\w,;，；、\-–]*", re.I)
_MAX_GROUP = 64  # longer than any citation group: a bracket held this long is text
#: The start of an id outside brackets ("... (re" then "f_001)"), at the end of a delta.
_BARE_TAIL = re.compile(r"(?<![A-Za-z0-9_])(?:r|re|ref|ref_\d{0,12})$", re.I)


@dataclass
class CitationStream:
    """Feed deltas in, get safe deltas out; ``cited`` keeps every token seen, in order."""

    cited: list[str] = field(default_factory=list)
    _held: str = ""

    def feed(self, delta: str) -> tuple[str, list[str]]:
        """The text safe to show now, and the citation tokens it completes."""
        text = self._held + delta
        cut = _hold_from(text)
        out, self._held = text[:cut], text[cut:]
        return out, self._note(out)

    def flush(self) -> tuple[str, list[str]]:
        """Whatever is held at the end of the stream."""
        out, self._held = self._held, ""
        return out, self._note(out)

    def _note(self, out: str) -> list[str]:
        new = [t for t in extract_citations(out) if t not in self.cited]
        self.cited.extend(new)
        return new


def _hold_from(text: str) -> int:
    """Where a possibly unfinished citation starts (``len(text)`` when none)."""
    start = max(text.rfind(c) for c in _OPEN)
    if start >= 0 and len(text) - start <= _MAX_GROUP:
        tail = text[start + 1 :]
        # A closed group is released whole: extract_citations sees all of it.
        if not any(c in tail for c in "]】］") and _GROUP_BODY.fullmatch(tail):
            return start
    bare = _BARE_TAIL.search(text, max(0, len(text) - 17))
    return bare.start() if bare else len(text)
