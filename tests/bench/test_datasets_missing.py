"""A bench script run where ../shared/datasets is not (a fresh clone) says where the data is
expected and how to point at it, in one line, exit 2, no traceback (issue #18)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPTS = [
    ["quality.py"],
    ["speed.py"],
    ["support.py"],
    ["stores.py", "--part", "quality"],
    ["kb_latency.py"],
]


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script, *rest = args
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *rest],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("args", SCRIPTS, ids=lambda a: a[0])
def test_a_missing_datasets_folder_is_one_line_and_exit_2(args: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "no-datasets-here"
    proc = run(args, {**os.environ, "UNIFIND_DATASETS": str(missing)})
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert str(missing) in lines[0]
    assert "UNIFIND_DATASETS=DIR" in lines[0] and "--data DIR" in lines[0]
    assert proc.stdout == ""


def test_data_naming_a_folder_without_the_set_names_the_set(tmp_path: Path) -> None:
    (tmp_path / "scifact").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "UNIFIND_DATASETS"}
    proc = run(["quality.py", "--data", str(tmp_path), "--sets", "scifact,cacm"], env)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"no cacm in {tmp_path}" in proc.stderr
