"""Fixtures shared by the embedder tests."""

from __future__ import annotations

import os

# One intra-op thread everywhere (models.md): the machines are small and shared.
os.environ.setdefault("OMP_NUM_THREADS", "1")
