"""The optimised ONNX graph is kept in the home and loaded by the next process (#18): the
same vectors, bit for bit; a damaged file is rebuilt; no home, nothing written. The
model's sha256 is kept beside it for a file whose stat is unchanged."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from unifind.embed import _onnx, _onnx_cache
from unifind.embed.bge import MODEL_SHA256, BgeSmallEmbedder

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


def _digest_record(home: Path) -> dict[str, dict[str, object]]:
    record: dict[str, dict[str, object]] = json.loads(
        (home / "cache" / "onnx" / "sha256.json").read_text()
    )
    return record


def test_the_model_s_digest_is_kept_and_the_next_load_does_not_hash_it(
    unifind_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unifind_home.mkdir()
    monkeypatch.setattr(_onnx, "_HASHES", {})  # hashed in this process by earlier tests
    BgeSmallEmbedder()
    model = (_onnx.vectrix_model_dir("bge_small_en") / "model.onnx").resolve()
    assert _digest_record(unifind_home)[str(model)]["sha256"] == MODEL_SHA256
    _onnx._HASHES.clear()  # as a new process would
    _onnx._RUNNERS.clear()

    def no_hashing(path: Path) -> str:
        raise AssertionError(f"{path} hashed again")

    monkeypatch.setattr(_onnx, "_hash", no_hashing)
    assert BgeSmallEmbedder().embed_query("refunds").shape == (384,)


def _rewrite_keeping_mtime(f: Path, data: bytes) -> None:
    """Same size and mtime, new bytes: only the ctime tells (it moves with the next tick)."""
    before = f.stat()
    while f.stat().st_ctime_ns == before.st_ctime_ns:
        f.write_bytes(data)
        os.utime(f, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (f.stat().st_size, f.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_file_changed_in_place_is_hashed_again(
    unifind_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unifind_home.mkdir()
    monkeypatch.setattr(_onnx_cache, "SETTLED_NS", 0)
    f = unifind_home / "m.bin"
    f.write_bytes(b"one")
    assert _onnx.file_sha256(f) == hashlib.sha256(b"one").hexdigest()
    assert str(f.resolve()) in _digest_record(unifind_home)
    _onnx._HASHES.clear()
    _rewrite_keeping_mtime(f, b"two")
    _onnx._HASHES.clear()  # the process cache keys on (path, mtime, size): a new process
    assert _onnx.file_sha256(f) == hashlib.sha256(b"two").hexdigest()


def test_a_damaged_record_costs_a_hash_and_a_fresh_file_is_not_kept(unifind_home: Path) -> None:
    unifind_home.mkdir()
    (unifind_home / "cache" / "onnx").mkdir(parents=True)
    (unifind_home / "cache" / "onnx" / "sha256.json").write_text("{not json")
    f = unifind_home / "m.bin"
    f.write_bytes(b"one")  # written just now: it may change again within this ctime tick
    assert _onnx.file_sha256(f) == hashlib.sha256(b"one").hexdigest()
    assert (unifind_home / "cache" / "onnx" / "sha256.json").read_text() == "{not json"
