"""Configured hooks by a plain name: registered like every plug-in (the ``unifind.hooks``
entry-point group, or ``registry("hooks").register``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from unifind import load_settings
from unifind.engine import Searcher
from unifind.errors import ConfigError
from unifind.registry import registry


def add_faq(plan: Any, ctx: Any) -> None:
    plan.notes.append("faq hook ran")


@pytest.fixture
def named_hook() -> Iterator[None]:
    registry("hooks").register("faq", add_faq)
    yield
    registry("hooks").unregister("faq")


async def test_a_hook_named_in_the_config_runs(tmp_path: Path, named_hook: None) -> None:
    s = Searcher(load_settings(home=tmp_path, kb={"embedder": "hash"}, ask={"hooks": ["faq"]}))
    try:
        plan = await s.plan("what is our refund window?")
    finally:
        s.close()
    assert "faq hook ran" in plan.notes


async def test_an_unknown_hook_name_lists_the_registered_ones(
    tmp_path: Path, named_hook: None
) -> None:
    s = Searcher(load_settings(home=tmp_path, kb={"embedder": "hash"}, ask={"hooks": ["fqa"]}))
    try:
        with pytest.raises(ConfigError, match=r"fqa.*faq"):
            await s.plan("what is our refund window?")
    finally:
        s.close()
