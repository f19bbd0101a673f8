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

The model's sha256 (checked against the tested one, and naming the kept graph) is kept
there too, in ``sha256.json``: hashing bge-small's 34 MB costs ~50 ms a process. A kept
digest is used only while the file's device, inode, size, mtime and ctime are the ones it
was computed for; ctime changes with any write or ``utime``, and no caller can set it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import platform
import re
import tempfile
import time
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


def _folder() -> Path | None:
    """``<home>/cache/onnx``; None when there is no home folder."""
    home = os.environ.get("UNIFIND_HOME") or "~/.unifind"
    folder = Path(home).expanduser()
    if not folder.is_dir():  # a home is created by unifind's own commands, not here
        return None
    return folder / "cache" / "onnx"


def kept_graph(model: Path, model_sha256: str, ort_version: str) -> Path | None:
    """Where the optimised graph of ``model`` is kept on this machine; None with no home."""
    folder = _folder()
    if folder is None:
        return None
    digest = hashlib.sha256(f"{model_sha256}\0{ort_version}\0{_machine()}".encode())
    return folder / f"{model.stem}-{digest.hexdigest()[:20]}.onnx"


_DIGESTS = "sha256.json"
#: How old (ctime) a file must be for its digest to be kept.
SETTLED_NS = 2_000_000_000


def _stamp(st: os.stat_result) -> list[int]:
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _digests(folder: Path) -> dict[str, Any]:
    try:
        kept = json.loads((folder / _DIGESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none yet, unreadable or damaged: hashed again
        return {}
    return kept if isinstance(kept, dict) else {}


def kept_sha256(path: Path, st: os.stat_result) -> str | None:
    """The sha256 kept for the file at ``path`` (resolved) as ``st`` describes it, if any."""
    folder = _folder()
    entry = _digests(folder).get(str(path)) if folder is not None else None
    if not isinstance(entry, dict) or entry.get("stat") != _stamp(st):
        return None
    digest = entry.get("sha256")
    ok = isinstance(digest, str) and re.fullmatch("[0-9a-f]{64}", digest) is not None
    return digest if ok else None


def keep_sha256(path: Path, st: os.stat_result, digest: str) -> None:
    """Keep ``digest`` for ``path`` as ``st`` describes it (nothing kept with no home, or
    when the file changed since ``st``: the digest may be of neither version)."""
    folder = _folder()
    try:
        changed = _stamp(path.stat()) != _stamp(st)
    except OSError:
        changed = True
    # A file changed within the last moments may change again inside the same timestamp
    # tick (~4 ms) without its ctime moving: keep only digests of settled files (as git
    # treats "racily clean" entries). An installed model is older than that.
    if folder is None or changed or time.time_ns() - st.st_ctime_ns < SETTLED_NS:
        return
    kept = _digests(folder)
    kept[str(path)] = {"stat": _stamp(st), "sha256": digest}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".json.tmp")
    except OSError as exc:  # a read-only home: hash again next time
        log.debug("no sha256 record in %s: %s", folder, exc)
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(kept, fh)
        os.replace(tmp, folder / _DIGESTS)  # atomic: a reader sees the old or the new file
    except OSError as exc:
        log.debug("no sha256 record in %s: %s", folder, exc)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


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
