"""The engine (L4): :class:`Searcher` and the agent pipeline in front of it."""

from unifind.engine._base import DEFAULT_TIMEOUTS, LegRunner
from unifind.engine._util import Mode, new_request_id
from unifind.engine.searcher import Searcher
from unifind.engine.sync import run_sync

__all__ = ["DEFAULT_TIMEOUTS", "LegRunner", "Mode", "Searcher", "new_request_id", "run_sync"]
