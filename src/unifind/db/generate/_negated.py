"""A stored value named after a negation: "channels that are not owned by CCTV", "programs
whose origin is not 'Beijing'", "all regions except for Denmark", "heads born outside the
California state" (issue #19).

The value itself is read by ``_cells`` (a whole stored value of the model's own column) or
``_values`` (an enumerated or sampled one, whose own negation reads only the words right
before it: "not from X"); a negation before it, with at most four words between that start
no new clause, makes the condition ``!=`` (``notin`` for a list; NULLs stay out, as in SQL).
Left unread, "not" made these answers partial with the rows *holding* the value. Only the
model's own columns: a value of a related model's rows negated is "no related row holds
it", which a ``!=`` over the join does not say.
"""

from __future__ import annotations

import dataclasses
import re

from unifind.db.dsl import Where
from unifind.db.generate._cells import Cell
from unifind.db.generate._scan import Scan

#: The negation and the words it may stand from its value: not a conjunction, a relative
#: word or another negation ("not owned by", "is not of type equal to", "not located in").
#: "in Statistics but not (in) Psychology" contrasts two values of one column: a set
#: difference over what the rows share (titles), not a condition on each row.
_CUE = re.compile(
    r"(?<![a-z])(?<!but )(?<!and )(?:not|never|except(?:\s+for)?|other\s+than|excluding"
    r"|outside(?:\s+of)?|apart\s+from|besides|isn't|aren't|wasn't|weren't|doesn't|don't|didn't)"
    r"(?P<gap>(?:\s+(?!(?:and|or|but|who|whose|which|that|where|when|while|not|no)\b)"
    r"[a-z]+){0,4})\s*[\"'“‘]?$"
)
_NEGATED = {"=": "!=", "in": "notin"}


def negated_before(text: str) -> re.Match[str] | None:
    """The negation ``text`` ends with (the words before a value), if any."""
    return _CUE.search(text)


def negate_cells(scan: Scan, cells: list[Cell]) -> list[Cell]:
    """``cells`` with each value named right after an unread negation made ``!=``/``notin``
    (the negation read)."""
    out = []
    for cell in cells:
        where = cell.where
        op = _NEGATED.get(where.op) if where.field and "." not in where.field else None
        m = negated_before(scan.rest[: cell.span[0]]) if op else None
        if m is None or op is None:
            out.append(cell)
            continue
        scan.consume(m.start(), m.start("gap"))
        negated = Where(field=where.field, op=op, value=where.value)  # type: ignore[arg-type]
        out.append(dataclasses.replace(cell, where=negated))
    return out
