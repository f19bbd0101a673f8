#!/usr/bin/env bash
# Install unifind into .venv and run the demo on the embedded default (one SQLite file
# under $UNIFIND_HOME, default ~/.unifind; offline models). Extra args go to `unifind demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --disable-pip-version-check --upgrade pip
python -m pip install -q --disable-pip-version-check -e .
export OMP_NUM_THREADS=1
unifind demo "$@"
