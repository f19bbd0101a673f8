"""Optional dependencies: imported where used, and named loudly when missing."""

from __future__ import annotations

import importlib
from types import ModuleType

from unifind.errors import MissingDependency


def require(module: str, extra: str | None = None) -> ModuleType:
    """Import ``module`` or raise MissingDependency naming ``pip install "unifind[extra]"``."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.split(".")[0] != exc.name.split(".")[0]:
            raise  # a bug inside the module, not a missing package
        raise MissingDependency(module, extra) from exc
