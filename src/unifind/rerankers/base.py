"""The cross-leg rerank contract, and the one runner every rerank mode goes through.

Contract
--------
::

    async def rerank(items: Sequence[Item], query: str, *, uses: str, settings: Settings,
                     top_n: int | None = None) -> tuple[list[Item], LegReport]

* ``items`` is the engine's FUSED list (web, kb and db items together), best first.
* ``uses`` picks the mode: ``builtin`` (``score × weight``), ``cross-encoder`` (the offline
  ms-marco model; ``cross-encoder:/dir`` for another one), ``agent:<name>`` (an
  OpenAI-compatible chat endpoint from ``settings.agents``), ``mcp:<server>.<tool>`` (a tool
  on a server from ``settings.mcp_servers``). Third-party modes register under the
  ``unifind.rerank_modes`` entry-point group.
* ``top_n`` is the rerank depth: only the first ``top_n`` items are sent to the mode; the
  rest follow in their original order.
* The answer holds every input item exactly once: a reranker never drops or invents items.
  Items the mode ranked come first, in its order, with ``score`` set to its score (or
  ``1/rank`` when it gave an order without scores); items it did not rank keep their
  relative order and their score, after the ranked ones.
* One :class:`~unifind.types.LegReport` describes the rerank: ``leg`` is the first item's
  leg, ``backend`` is ``rerank:<uses>``, ``stage`` is ``rerank``, ``hits`` counts the
  items the mode ranked.
* Failures never raise: an unreachable endpoint, a timeout, an unparseable answer, a
  crashing model keep the original order and give a ``degraded`` report whose ``reason``
  is ``unreachable``/``timeout``/``bad_response``/``error`` and whose text names the mode.
  ``settings.timeouts["rerank"]``, when set, bounds any mode.
* Bad input raises before anything runs: an unknown mode or a malformed ``uses`` string is
  :class:`~unifind.errors.UnknownName`/:class:`~unifind.errors.InputError` listing the valid
  forms; a missing optional package is :class:`~unifind.errors.MissingDependency`.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from unifind.config import Settings
from unifind.errors import InputError, SourceError
from unifind.types import Item, Leg, LegReport, Reason, Status


@dataclass(frozen=True)
class Ranking:
    """A mode's answer: positions in the list it was given, best first, with scores."""

    order: tuple[tuple[int, float], ...]
    """``(index, score)`` pairs; indexes are 0-based into the items the mode received."""
    note: str | None = None
    """A fact worth reporting (ignored ids, unranked items)."""


class RerankMode(ABC):
    """One way to reorder items. Subclasses declare ``name`` and ``form`` and do no I/O
    in ``check``; the runner owns timing, deadlines and failure → status mapping."""

    name: ClassVar[str]
    form: ClassVar[str]
    """How ``uses`` spells this mode, for error messages (``agent:<name>``)."""

    def check(self, arg: str, settings: Settings) -> None:
        """Raise InputError if ``arg`` or the settings it needs are wrong. No I/O."""
        if arg:
            raise InputError(f"rerank mode {self.name!r} takes no argument: use {self.form!r}")

    @abstractmethod
    async def rank(
        self, items: Sequence[Item], query: str, arg: str, settings: Settings
    ) -> Ranking:
        """Rank ``items``; raise SourceError (or anything) on failure."""


def positional(indexes: Sequence[int]) -> Ranking:
    """A ranking from an order alone: the item at rank ``r`` (1-based) scores ``1/r``."""
    return Ranking(tuple((i, 1.0 / r) for r, i in enumerate(indexes, start=1)))


def by_score(scores: Sequence[float]) -> Ranking:
    """A ranking of every item by ``scores`` (higher first; ties keep the input order)."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return Ranking(tuple((i, float(scores[i])) for i in order))


def apply_ranking(items: Sequence[Item], ranking: Ranking) -> tuple[list[Item], int]:
    """Reorder ``items``: ranked ones first (rescored), the rest after in input order.

    Out-of-range and repeated indexes are ignored, so every item appears exactly once.
    Returns the list and how many items were ranked.
    """
    placed: set[int] = set()
    out: list[Item] = []
    for index, score in ranking.order:
        if 0 <= index < len(items) and index not in placed:
            placed.add(index)
            out.append(items[index].model_copy(update={"score": score}))
    out.extend(item for i, item in enumerate(items) if i not in placed)
    return out, len(placed)


async def run_mode(
    mode: RerankMode,
    items: Sequence[Item],
    query: str,
    *,
    uses: str,
    arg: str,
    settings: Settings,
    top_n: int | None = None,
) -> tuple[list[Item], LegReport]:
    """Run ``mode`` on the head of ``items`` under the contract above; never raises."""
    t0 = time.perf_counter()
    leg: Leg = items[0].type if items else "kb"
    head, tail = (list(items), []) if top_n is None else (list(items[:top_n]), list(items[top_n:]))

    def report(status: Status, **kw: Any) -> LegReport:
        took = round((time.perf_counter() - t0) * 1000, 3)
        backend = f"rerank:{uses}"
        return LegReport(
            leg=leg, backend=backend, stage="rerank", status=status, took_ms=took, **kw
        )

    if not head:
        return list(items), report(Status.OK, note="nothing to rerank")
    try:
        ranking = await _bounded(mode.rank(head, query, arg, settings), settings)
    except Exception as exc:  # a failing mode is data (DESIGN §3), never an exception
        reason, text = _failure(exc, settings)
        error = f"rerank {uses}: {text}; kept the original order"
        return list(items), report(Status.DEGRADED, reason=reason, error=error)
    ranked, hits = apply_ranking(head, ranking)
    note = f"reranked top {len(head)} of {len(items)}" if tail else None
    note = "; ".join(n for n in (ranking.note, note) if n) or None
    return ranked + tail, report(Status.OK, hits=hits, note=note)


async def _bounded(work: Coroutine[Any, Any, Ranking], settings: Settings) -> Ranking:
    async with asyncio.timeout(settings.timeouts.get("rerank")):
        return await work


def _failure(exc: Exception, settings: Settings) -> tuple[Reason, str]:
    if isinstance(exc, SourceError):
        return exc.reason, str(exc)
    if isinstance(exc, TimeoutError):
        deadline = settings.timeouts.get("rerank")
        return Reason.TIMEOUT, f"no answer within {deadline:g}s" if deadline else "timed out"
    return Reason.ERROR, f"{type(exc).__name__}: {exc}"
