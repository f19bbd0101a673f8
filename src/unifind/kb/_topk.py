"""Top-k selection with the store contract's order: score descending, then chunk id ascending."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def top_k(
    scores: npt.NDArray[np.floating], keys: npt.NDArray[np.int64], k: int
) -> npt.NDArray[np.intp]:
    """Positions of the ``k`` best entries, best first; equal scores go by ascending key.

    ``argpartition`` alone would cut arbitrarily among the scores tied with the k-th one,
    so the entries strictly above it are all kept and the boundary tie is settled by key.
    Everything is O(n) except the final sort of ``k`` entries.
    """
    n = len(scores)
    if k <= 0 or n == 0:
        return np.empty(0, dtype=np.intp)
    if k < n:
        kth = np.partition(scores, n - k)[n - k]
        above = np.flatnonzero(scores > kth)
        tied = np.flatnonzero(scores == kth)
        need = k - len(above)
        if need < len(tied):
            tied = tied[np.argpartition(keys[tied], need - 1)[:need]]
        chosen = np.concatenate([above, tied])
    else:
        chosen = np.arange(n)
    order = np.lexsort((keys[chosen], -scores[chosen]))
    return chosen[order[:k]]
