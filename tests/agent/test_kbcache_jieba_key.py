"""The intent cache's keys follow jieba's installed files, found without reading package
metadata (#18: a plan's start-up)."""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import pytest

from unifind.agent import _kbcache


@pytest.fixture
def fake_jieba(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pkg = tmp_path / "jieba"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("__version__ = '0.42.1'\n")
    (pkg / "dict.txt").write_text("退款 3 v\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "jieba", raising=False)  # find_spec would answer it
    return pkg


def test_a_changed_dictionary_or_module_changes_every_key(fake_jieba: Path) -> None:
    before = _kbcache._code.__wrapped__()
    assert before == _kbcache._code.__wrapped__()
    (fake_jieba / "dict.txt").write_text("退款 3 v\n到账 2 v\n")
    after_dict = _kbcache._code.__wrapped__()
    (fake_jieba / "__init__.py").write_text("__version__ = '0.43.0'\n")
    after_module = _kbcache._code.__wrapped__()
    assert len({before, after_dict, after_module}) == 3


def test_the_key_reads_no_package_metadata(
    fake_jieba: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("package metadata read")

    for name in ("distribution", "version", "distributions"):
        monkeypatch.setattr(importlib.metadata, name, refuse)
    monkeypatch.setattr(importlib.metadata.Distribution, "from_name", refuse)
    assert str(fake_jieba / "dict.txt") in _kbcache._jieba_files()
    assert _kbcache._code.__wrapped__()
