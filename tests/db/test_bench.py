"""The dev-set accuracy bar (bench/db_nl.py) holds: at least 90% exact match."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "db_nl.py"


async def test_builtin_generator_meets_the_devset_bar() -> None:
    spec = importlib.util.spec_from_file_location("db_nl", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    summary = await module.evaluate()
    assert summary["n"] >= 80
    assert summary["accuracy"] >= 0.9, [(f["id"], f["q"]) for f in summary["failures"]]
    assert set(summary["by_lang"]) == {"en", "zh"}
