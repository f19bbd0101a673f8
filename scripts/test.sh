#!/usr/bin/env bash
# Install (idempotently, into .venv) and run every check CI runs: lint, the layer
# contract, the tests. Extra arguments go to pytest (e.g. `bash scripts/test.sh -k kb`).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --disable-pip-version-check --upgrade pip
python -m pip install -q --disable-pip-version-check -e ".[dev,postgres,mcp,bench,redis,http,pgvector,qdrant,milvus,milvus-server,mysql,duckdb,otel,langchain,llamaindex,haystack,integrations-tests,console-tests]"
# One intra-op thread: two threads on a shared 2-core machine made MiniLM 3x slower.
export OMP_NUM_THREADS=1
ruff check src tests bench
ruff format --check src tests bench
lint-imports
mypy
python -m pytest "$@"
