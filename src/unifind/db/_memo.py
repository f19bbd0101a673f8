"""Structures the builtin generator derives from a model, kept per model object.

A join question is read twice (the model, then its joined view with hundreds of phrases),
and each read rebuilt the same phrase lists, patterns and alternations from the same
``learn()`` senses (issue #19: ~8 ms a join question over its SQL). ``learn`` and the views
are cached per model object; what is derived from them is kept beside them here. The
argument is held, so its ``id`` is not reused while the entry lives; the values are shared
and must not be changed by callers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def per_object(fn: Callable[[T], R], maxsize: int = 256) -> Callable[[T], R]:
    """``fn(obj)`` computed once per object (by identity, not equality)."""
    cache: dict[int, tuple[T, R]] = {}

    @functools.wraps(fn)
    def cached(obj: T) -> R:
        hit = cache.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        out = fn(obj)
        if len(cache) >= maxsize:
            cache.clear()
        cache[id(obj)] = (obj, out)
        return out

    return cached
