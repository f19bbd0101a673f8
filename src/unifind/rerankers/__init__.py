"""Cross-leg rerank of the engine's fused list, chosen by a ``uses`` string (DESIGN §4, §9).

``await rerank(items, query, uses="agent:judge", settings=s)`` → ``(items, report)``; the
contract is written once in :mod:`unifind.rerankers.base`. Modes live in the
``rerank_modes`` registry; the built-ins register exactly like a plug-in would.
"""

from __future__ import annotations

from collections.abc import Sequence

from unifind.config import Settings
from unifind.errors import InputError, UnknownName
from unifind.registry import registry
from unifind.rerankers.base import Ranking, RerankMode, run_mode
from unifind.types import Item, LegReport

__all__ = ["Ranking", "RerankMode", "check_uses", "modes", "rerank", "resolve"]

# Built-in modes are registry built-ins and entry points, exactly like a plug-in's.
_modes = registry("rerank_modes")


def modes() -> list[str]:
    """Registered mode names, built-ins first."""
    return _modes.names()


def resolve(uses: str, settings: Settings) -> tuple[RerankMode, str]:
    """The mode and its argument for ``uses``, checked; bad input raises naming valid forms."""
    if not isinstance(uses, str) or not uses.strip():
        raise InputError(f"rerank 'uses' is empty; valid forms: {_forms()}")
    name, _, arg = uses.strip().partition(":")
    try:
        factory = _modes.get(name)
    except UnknownName as exc:
        raise UnknownName("rerank mode", uses, _forms_list()) from exc
    mode: RerankMode = factory()
    mode.check(arg, settings)
    return mode, arg


def check_uses(uses: str, settings: Settings) -> None:
    """Raise if ``uses`` can't run with ``settings`` (call before a search starts)."""
    resolve(uses, settings)


async def rerank(
    items: Sequence[Item],
    query: str,
    *,
    uses: str,
    settings: Settings,
    top_n: int | None = None,
) -> tuple[list[Item], LegReport]:
    """Reorder the fused ``items`` with the mode ``uses`` names; see ``base`` for the contract."""
    if top_n is not None and top_n < 0:
        raise InputError(f"rerank top_n must be 0 or more, got {top_n}")
    mode, arg = resolve(uses, settings)
    return await run_mode(
        mode, items, query, uses=uses.strip(), arg=arg, settings=settings, top_n=top_n
    )


def _forms_list() -> list[str]:
    forms = []
    for name in modes():
        try:
            forms.append(str(_modes.get(name).form))
        except Exception:  # a broken third-party plug-in must not hide the valid forms
            forms.append(name)
    return forms


def _forms() -> str:
    return ", ".join(_forms_list())
