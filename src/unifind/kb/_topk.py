"""Top-k selection with the store contract's order: score descending, then chunk id ascending."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def top_k(scores: npt.NDArray[np.floating], keys: npt.NDArray[np.int64], k: int) -> npt.NDArray[np.intp]:
    """Positions of the ``k`` best entries, best first; equal scores go by ascending key.

    ``argpartition`` alone would cut arbitrarily among scores tied with the k-th one, so every
    entry tied at the boundary is kept as a candidate and the tie is settled by key.
    """
    n = len(scores)
    if k <= 0 or n == 0:
        return np.empty(0, dtype=np.intp)
    if k < n:
        kth = np.partition(scores, n - k)[n - k]
        candidates = np.flatnonzero(scores >= kth)
    else:
        candidates = np.arange(n)
    order = np.lexsort((keys[candidates], -scores[candidates]))
    return candidates[order[:k]]
