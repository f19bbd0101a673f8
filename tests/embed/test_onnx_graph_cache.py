"""The optimised ONNX graph is kept in the home and loaded by the next process (#18): the
same vectors, bit for bit; a damaged file is rebuilt; no home, nothing written."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from unifind.embed import _onnx
from unifind.embed.bge import BgeSmallEmbedder

pytestmark = pytest.mark.slow

TEXTS = ["how do refunds work", "退款流程", "Warranty claims need the receipt. " * 40]


@pytest.fixture(autouse=True)
def _no_shared_runner() -> Iterator[None]:
    """Each load below opens its own session, as a new process would."""
    saved = dict(_onnx._RUNNERS)
    _onnx._RUNNERS.clear()
    yield
    _onnx._RUNNERS.clear()
    _onnx._RUNNERS.update(saved)


def _kept(home: Path) -> list[Path]:
    return sorted((home / "cache" / "onnx").glob("*.onnx"))


def test_the_next_process_loads_the_kept_graph_and_gets_the_same_vectors(
    unifind_home: Path,
) -> None:
    unifind_home.mkdir()
    first = BgeSmallEmbedder()
    (kept,) = _kept(unifind_home)
    assert first.runner.session._model_path != str(kept)  # built from the model, then kept
    code = (
        "import sys, numpy as np\n"
        "from unifind.embed.bge import BgeSmallEmbedder\n"
        "e = BgeSmallEmbedder()\n"
        "print(e.runner.session._model_path)\n"
        f"np.save(sys.argv[1], e.embed_documents({TEXTS!r}))\n"
    )
    out_file = unifind_home / "vectors.npy"
    out = subprocess.run(
        [sys.executable, "-c", code, str(out_file)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(kept)
    assert np.array_equal(np.load(out_file), first.embed_documents(TEXTS))


def test_a_damaged_kept_graph_is_rebuilt(unifind_home: Path) -> None:
    unifind_home.mkdir()
    expected = BgeSmallEmbedder().embed_documents(TEXTS)
    (kept,) = _kept(unifind_home)
    kept.write_bytes(b"not an onnx graph")
    _onnx._RUNNERS.clear()
    again = BgeSmallEmbedder()
    assert np.array_equal(again.embed_documents(TEXTS), expected)
    assert kept.stat().st_size > 1_000_000  # written again, whole
    _onnx._RUNNERS.clear()
    assert BgeSmallEmbedder().runner.session._model_path == str(kept)


def test_no_home_folder_no_file(unifind_home: Path) -> None:
    assert not unifind_home.exists()
    BgeSmallEmbedder().embed_query("refunds")
    assert not unifind_home.exists()
