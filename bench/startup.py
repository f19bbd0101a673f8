"""CLI start-up: wall time of whole `unifind` processes, as a shell or an agent runs them.

Measures, each as N fresh processes (median, min, max):
1. ``unifind --help``;
2. ``unifind search QUERY --kb en --mode text`` on a small English collection;
3. the same on a small Chinese collection, cold (no jieba caches under UNIFIND_HOME: the
   process builds the dictionary and writes both caches) and warm (caches present);
and, from ``--json`` runs, the KB lexical stage's took_ms (where the segmenter's load is
counted). The collections are the demo handbook's English and Chinese files, ingested
once into a temporary UNIFIND_HOME with the default embedder (text mode never loads it).

Run: python bench/startup.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "src" / "unifind" / "demo" / "corpus"
UNIFIND = str(Path(sys.executable).with_name("unifind"))


def _run(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run([UNIFIND, *args], env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, out.stdout


def _setup(home: Path, env: dict[str, str]) -> None:
    for name, files in (
        ("en", [p for p in CORPUS.iterdir() if not p.name.startswith("zh-")]),
        ("zh", [p for p in CORPUS.iterdir() if p.name.startswith("zh-")]),
    ):
        _run(["kb", "create", name], env)
        _run(["kb", "ingest", name, *map(str, files)], env)


def _lexical_ms(stdout: str) -> float:
    reports = json.loads(stdout)["reports"]
    return float(next(r["took_ms"] for r in reports if r["stage"] == "lexical"))


def _measure(
    repeats: int, args: list[str], env: dict[str, str], before: Callable[[], None] | None = None
) -> dict[str, float]:
    walls, lexical = [], []
    for _ in range(repeats):
        if before:
            before()
        walls.append(_run(args, env)[0])
    if "search" in args:
        for _ in range(repeats):
            if before:
                before()
            lexical.append(_lexical_ms(_run([*args, "--json"], env)[1]))
    row = {
        "median_s": statistics.median(walls),
        "min_s": min(walls),
        "max_s": max(walls),
    }
    if lexical:
        row["lexical_ms"] = statistics.median(lexical)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="unifind-startup-"))
    # TMPDIR inside the home too: jieba's own default cache (and older unifind's) lives
    # in the temp dir, and "cold" must mean no cache anywhere.
    (home / "tmp").mkdir()
    env = {**os.environ, "UNIFIND_HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.pop("UNIFIND_CONFIG", None)
    try:
        _setup(home, env)

        def drop_caches() -> None:
            shutil.rmtree(home / "cache", ignore_errors=True)
            for cache in (home / "tmp").glob("*jieba*"):
                cache.unlink()

        rows = {
            "unifind --help": _measure(args.repeats, ["--help"], env),
            'unifind search "refund policy" --kb en --mode text': _measure(
                args.repeats, ["search", "refund policy", "--kb", "en", "--mode", "text"], env
            ),
            'unifind search "退款流程" --kb zh --mode text (cold: no jieba cache)': _measure(
                args.repeats,
                ["search", "退款流程", "--kb", "zh", "--mode", "text"],
                env,
                before=drop_caches,
            ),
            'unifind search "退款流程" --kb zh --mode text (warm)': _measure(
                args.repeats, ["search", "退款流程", "--kb", "zh", "--mode", "text"], env
            ),
        }
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"{args.repeats} fresh processes each; {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print()
    print("| command | median s | min s | max s | lexical stage ms (median) |")
    print("|---|---|---|---|---|")
    for name, r in rows.items():
        lex = f"{r['lexical_ms']:.1f}" if "lexical_ms" in r else "-"
        print(f"| `{name}` | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['max_s']:.3f} | {lex} |")


if __name__ == "__main__":
    main()
