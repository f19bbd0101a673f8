"""ONNX sessions from a kept optimised graph: a hybrid search's start-up (#18).

Creating a session applies onnxruntime's graph optimisations (``ORT_ENABLE_ALL``: node
fusions, layout transforms) to the model each time: ~0.3 s of bge-small's ~0.4 s load,
on every CLI process. onnxruntime can write the optimised graph out
(``SessionOptions.optimized_model_filepath``); loaded with optimisations off it runs the
same kernels, so the outputs are bit-identical (tested) at a third of the load time.
onnxruntime warns that an ``ENABLE_ALL`` graph may hold optimisations for the machine
it was made on ("Serializing optimized model with Graph Optimization level greater than
ORT_ENABLE_EXTENDED …"), so the kept file is named by a digest of the model's bytes,
onnxruntime's version and this machine's CPU (architecture and feature flags).

It lives in ``<home>/cache/onnx`` (``UNIFIND_HOME``, else ``~/.unifind`` when that
exists), never in a shared temp dir: the file is a program onnxruntime runs. Writing is
atomic (a temp file renamed); a kept file that fails to load is replaced.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import platform
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger("unifind.embed")


@functools.lru_cache(maxsize=1)
def _machine() -> str:
    """The CPU's architecture and feature flags (what ORT_ENABLE_ALL may specialise on)."""
    flags = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith(("flags", "Features")):  # x86, ARM
                flags = line.split(":", 1)[-1].strip()
                break
    return f"{platform.machine()} {platform.processor()} {flags}"


def kept_graph(model: Path, model_sha256: str, ort_version: str) -> Path | None:
    """Where the optimised graph of ``model`` is kept on this machine; None with no home."""
    home = os.environ.get("UNIFIND_HOME") or "~/.unifind"
    folder = Path(home).expanduser()
    if not folder.is_dir():  # a home is created by unifind's own commands, not here
        return None
    digest = hashlib.sha256(f"{model_sha256}\0{ort_version}\0{_machine()}".encode())
    return folder / "cache" / "onnx" / f"{model.stem}-{digest.hexdigest()[:20]}.onnx"


def open_session(ort: Any, model: Path, model_sha256: str, opts: Any) -> Any:
    """An InferenceSession of ``model`` with ``opts``, from its kept optimised graph when
    there is one, else from the model (keeping the optimised graph for the next process)."""
    kept = kept_graph(model, model_sha256, ort.__version__)
    if kept is None:
        return _session(ort, model, opts)
    if kept.is_file():
        fast = _copy(ort, opts)
        fast.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        try:
            return _session(ort, kept, fast)
        except Exception as exc:  # a damaged file: made again below
            log.warning("kept ONNX graph %s unreadable (%s): rebuilding it", kept, exc)
    return _build(ort, model, opts, kept)


def _build(ort: Any, model: Path, opts: Any, kept: Path) -> Any:
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=kept.parent, suffix=".onnx.tmp")
        os.close(fd)
    except OSError as exc:  # a read-only home: load as before, keep nothing
        log.debug("no ONNX graph cache in %s: %s", kept.parent, exc)
        return _session(ort, model, opts)
    saving = _copy(ort, opts)
    saving.optimized_model_filepath = tmp
    saving.log_severity_level = 3  # the machine-specific warning: the name holds the machine
    try:
        session = _session(ort, model, saving)
        # Atomic: another process sees no file or the whole one. Failing keeps nothing.
        with contextlib.suppress(OSError):
            os.replace(tmp, kept)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return session


def _copy(ort: Any, opts: Any) -> Any:
    """A fresh SessionOptions with ``opts``' thread and optimisation settings."""
    out = ort.SessionOptions()
    out.intra_op_num_threads = opts.intra_op_num_threads
    out.inter_op_num_threads = opts.inter_op_num_threads
    out.graph_optimization_level = opts.graph_optimization_level
    return out


def _session(ort: Any, path: Path, opts: Any) -> Any:
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
