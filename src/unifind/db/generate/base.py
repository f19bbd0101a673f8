"""The generator contract: a question and one model → a QueryDSL (DESIGN §7).

A generator is chosen by a ``uses`` string: ``builtin`` or ``agent:<name>``. The part before
the colon names a class in the ``db_generators`` registry; the class builds itself from
that argument and the ``db`` settings with ``from_config(arg, config)``. A generator
returns a DSL that :func:`~unifind.db.dsl.validate_dsl` accepts, or raises
:class:`GenerationError`. With ``strict`` it must not fall back to plain keyword matching.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from unifind.db.dsl import QueryDSL
from unifind.db.models import Model
from unifind.errors import InputError
from unifind.registry import registry
from unifind.types import Reason


class GenerationError(Exception):
    """The question could not become a valid DSL; ``reason`` feeds the leg report."""

    def __init__(self, message: str, reason: Reason = Reason.BAD_RESPONSE) -> None:
        self.reason = reason
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Generation:
    """A generated DSL and what was learnt on the way."""

    dsl: QueryDSL
    keywords: tuple[str, ...] = ()
    """Free words matched with LIKE: used to score rows by match strength."""
    notes: tuple[str, ...] = field(default=())
    """Facts worth reporting: a fallback, a repair retry, words not understood."""
    off_topic: bool = False
    """Nothing in the question maps to the model: the leg returns no rows, and says why."""
    unknown: tuple[str, ...] = ()
    """Words of the question this model could not account for: when the leg picks among
    models, the one that fits best answers."""
    understood: tuple[tuple[str, str], ...] = ()
    """Each content word of the question → what it was used for ("value of city", "column
    age", "not used: ..."); empty when the generator does not account words (an LLM's)."""
    confidence: float | None = None
    """The share of content words used (1.0: all); None when not accounted."""


class Generator(Protocol):
    """Turns a question about one model into a QueryDSL."""

    name: str

    async def generate(self, question: str, model: Model, *, strict: bool = False) -> Generation:
        """Raises GenerationError when no valid DSL comes out."""
        ...


def resolve_generator(uses: str, config: Mapping[str, Any]) -> Generator:
    """The generator a ``uses`` string names; an unknown one lists the registered ones."""
    name, _, arg = uses.partition(":")
    cls = registry("db_generators").get(name.strip())
    gen: Generator = cls.from_config(arg.strip(), config)
    return gen


def check_uses(uses: str) -> None:
    """Refuse an unknown generator before anything runs."""
    name = uses.partition(":")[0].strip()
    if not name:
        raise InputError("uses is empty; valid: builtin, agent:<name>")
    registry("db_generators").get(name)
