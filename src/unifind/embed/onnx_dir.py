"""Any local ONNX embedding model directory (sentence-transformers export layout).

Accepted layout: ``tokenizer.json`` plus ``model.onnx`` or ``onnx/model.onnx``; optional
``1_Pooling/config.json`` (pooling mode), ``config.json`` (hidden size, positions),
``config_sentence_transformers.json`` (its ``prompts.query``: the query prefix).
The spec pins the model bytes: ``onnx:<absolute dir>@<first 16 hex of sha256(model.onnx)>``,
and resolving such a spec again checks the directory still holds the same model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from unifind.embed._onnx import MAX_TOKENS, OnnxEmbedder, file_sha256, load_runner
from unifind.errors import ConfigError, EmbedderMismatch

Pooling = Literal["mean", "cls", "max"]

#: Hex digits of sha256 kept in the spec: 64 bits, plenty to tell two models apart.
SPEC_HASH_CHARS = 16

# sentence-transformers' Pooling config keys → our pooling names
# (https://sbert.net/docs/package_reference/sentence_transformer/models.html#pooling).
_ST_POOLING = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_max_tokens": "max",
}


def _split_pinned(path: str | Path) -> tuple[Path, str | None]:
    """``/dir@ab12…`` → (``/dir``, ``ab12…``) when ``/dir`` exists; a path is tried whole first."""
    raw = str(path)
    head, sep, tail = raw.rpartition("@")
    hexdigits = tail and all(c in "0123456789abcdef" for c in tail)
    if sep and hexdigits and not Path(raw).expanduser().exists():
        return Path(head).expanduser(), tail
    return Path(raw).expanduser(), None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object")
    return data


def _find_model(folder: Path) -> Path:
    for candidate in (folder / "model.onnx", folder / "onnx" / "model.onnx"):
        if candidate.is_file():
            return candidate
    raise ConfigError(
        f"no ONNX model in {folder}: expected model.onnx or onnx/model.onnx "
        "(export one with `optimum-cli export onnx --model <name> <dir>`)"
    )


def _declared_pooling(folder: Path) -> str | None:
    cfg_path = folder / "1_Pooling" / "config.json"
    if not cfg_path.is_file():
        return None
    cfg = _read_json(cfg_path)
    modes = [name for key, name in _ST_POOLING.items() if cfg.get(key)]
    if len(modes) != 1:
        raise ConfigError(
            f"{cfg_path} enables pooling {modes or 'none'}; unifind supports exactly one of "
            "cls, mean, max: pass pooling= explicitly"
        )
    return modes[0]


def _declared_query_prompt(folder: Path) -> str:
    # sentence-transformers >= 3 keeps named prompts here (e5: "query: ", bge: its
    # instruction); https://sbert.net/examples/sentence_transformer/applications/prompts
    path = folder / "config_sentence_transformers.json"
    prompts = _read_json(path).get("prompts") if path.is_file() else None
    query = prompts.get("query") if isinstance(prompts, dict) else None
    return query if isinstance(query, str) else ""


class OnnxDirEmbedder(OnnxEmbedder):
    """An embedder over a local ONNX model directory.

    ``pooling`` defaults to the directory's ``1_Pooling/config.json``, else ``mean``;
    ``query_prefix`` to its sentence-transformers ``prompts["query"]``, else none.
    ``batch_size`` defaults to 1: int8 exports quantise activations per batch, which
    makes a row depend on its batch mates (see ``bge.py``); raise it for fp32 models.
    """

    def __init__(
        self,
        path: str | Path,
        pooling: Pooling | None = None,
        query_prefix: str | None = None,
        *,
        batch_size: int = 1,
        max_length: int = MAX_TOKENS,
        intra_op_threads: int = 1,
        inter_op_threads: int = 1,
    ) -> None:
        folder, pinned = _split_pinned(path)
        folder = folder.resolve()
        if not folder.is_dir():
            raise ConfigError(f"ONNX model directory not found: {folder}")
        model = _find_model(folder)
        digest = file_sha256(model)[:SPEC_HASH_CHARS]
        if pinned is not None and not digest.startswith(pinned[:SPEC_HASH_CHARS]):
            raise EmbedderMismatch(
                f"{model} changed: its sha256 starts {digest}, the spec pins {pinned}; "
                "re-embed the collection with the new model or restore the old file"
            )
        self.spec = f"onnx:{folder}@{digest}"
        self.folder = folder
        config = _read_json(folder / "config.json") if (folder / "config.json").is_file() else {}
        positions = int(config.get("max_position_embeddings", MAX_TOKENS))
        runner = load_runner(
            model,
            folder / "tokenizer.json",
            max_length=min(max_length, positions),
            intra_op_threads=intra_op_threads,
            inter_op_threads=inter_op_threads,
        )
        chosen = pooling or _declared_pooling(folder) or "mean"
        prefix = query_prefix if query_prefix is not None else _declared_query_prompt(folder)
        self._setup(runner, pooling=chosen, query_prefix=prefix, batch_size=batch_size)
        self.dim = self._find_dim(config)

    def _find_dim(self, config: dict[str, Any]) -> int:
        for name in ("sentence_embedding", *self.runner.outputs):
            shape = self.runner.outputs.get(name)
            if shape and isinstance(shape[-1], int):
                return int(shape[-1])
        if isinstance(config.get("hidden_size"), int):
            return int(config["hidden_size"])
        # The graph leaves the width symbolic and no config says it: ask the model once.
        self.dim = 0
        return int(self._embed(["dimension probe"]).shape[1])
