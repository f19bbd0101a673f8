"""``builtin``: order by ``score × weight`` (DESIGN §4), so a user-attached item (weight 1.0)
outranks an auto-searched one (0.6) of equal fused score. No I/O, never fails."""

from __future__ import annotations

from collections.abc import Sequence

from unifind.config import Settings
from unifind.rank.merge import weighted_order
from unifind.rerankers.base import Ranking, RerankMode
from unifind.types import Item


class BuiltinMode(RerankMode):
    """``score × weight``, stable; the product becomes the item's score."""

    name = "builtin"
    form = "builtin"

    async def rank(
        self, items: Sequence[Item], query: str, arg: str, settings: Settings
    ) -> Ranking:
        position = {id(it): i for i, it in enumerate(items)}
        ordered = weighted_order(items)
        return Ranking(tuple((position[id(it)], it.score * it.weight) for it in ordered))
