"""CLI start-up: wall and CPU time of whole `unifind` processes, as a shell or an agent runs them.

Default (issue #18): the demo home — ``unifind demo`` run once into a temporary
UNIFIND_HOME (the KB collection ``demo`` with the handbook in English and Chinese; the demo
shop DB) — then, each as one warm-up and N fresh processes (median, min, max of wall time;
median CPU time, user + system, of the process and its children):

* ``python -c pass``: the floor of this machine at this moment, measured in the same run;
* ``unifind --help``;
* ``unifind search "how do refunds work" --kb demo`` in ``--mode text`` and ``--mode hybrid``
  (hybrid loads the bge-small ONNX embedder), and text again with ``UNIFIND_RECORDS=false``
  (no records database: it keeps each request's citation numbers across processes);
* ``unifind ask MESSAGE --plan --json`` for a greeting, a DB-ish and a Chinese message, and
  the greeting once more with the intent stage's KB cache deleted before every run (the
  first plan after the KB changed).

``--collections`` measures issue #8's rows instead: text search on small English and
Chinese collections, the Chinese one cold (no jieba caches) and warm, with the KB lexical
stage's ``took_ms`` from ``--json`` runs.

``--compare SRC`` runs every command a second time per repeat on another tree (``PYTHONPATH=SRC``,
e.g. ``git archive <commit> src | tar -x -C /tmp/before``), interleaved, on the same home: on
a loaded machine the two columns see the same load, which two runs minutes apart do not.

Run: python bench/startup.py [--repeats 5] [--collections] [--compare SRC]
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import resource
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
QUERY = "how do refunds work"
ASKS = {"greeting": "hi there", "DB-ish": "how many orders shipped last week",
        "Chinese": "退款要多久到账"}  # fmt: skip


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall s, CPU s, stdout) of one process; CPU from the children's rusage delta."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, _children_cpu() - cpu0, out.stdout


#: ``--compare SRC``: each process is followed by the same command on the tree ``SRC``
#: (``PYTHONPATH``), so both see the same load (this machine's changes by the minute).
COMPARE: str | None = None


def _measure(
    repeats: int,
    cmd: list[str],
    env: dict[str, str],
    before: Callable[[], None] | None = None,
    warm_up: bool = True,
) -> dict[str, float]:
    envs = {"": env}
    if COMPARE:
        envs["other_"] = {**env, "PYTHONPATH": COMPARE}
    if warm_up:  # page cache, .pyc files, the home's caches: what a second call finds
        for e in envs.values():
            if before:
                before()
            _run(cmd, e)
    walls: dict[str, list[float]] = {k: [] for k in envs}
    cpus: dict[str, list[float]] = {k: [] for k in envs}
    for _ in range(repeats):
        for k, e in envs.items():  # interleaved: this tree, then the other, each repeat
            if before:
                before()
            wall, cpu, _ = _run(cmd, e)
            walls[k].append(wall)
            cpus[k].append(cpu)
    out: dict[str, float] = {}
    for k in envs:
        out |= {f"{k}median_s": statistics.median(walls[k]), f"{k}min_s": min(walls[k]),
                f"{k}max_s": max(walls[k]), f"{k}cpu_s": statistics.median(cpus[k])}  # fmt: skip
    return out


def _home() -> tuple[Path, dict[str, str]]:
    home = Path(tempfile.mkdtemp(prefix="unifind-startup-"))
    # TMPDIR inside the home too: jieba's own default cache (and older unifind's) lives
    # in the temp dir, and "cold" must mean no cache anywhere.
    (home / "tmp").mkdir()
    env = {**os.environ, "UNIFIND_HOME": str(home), "TMPDIR": str(home / "tmp")}
    env.pop("UNIFIND_CONFIG", None)
    return home, env


def demo_rows(repeats: int, env: dict[str, str], home: Path) -> dict[str, dict[str, float]]:
    """Issue #18's rows on the demo home."""
    _run([UNIFIND, "demo"], env)

    def drop_intent_cache() -> None:
        (home / "cache" / "intent-kb.sqlite").unlink(missing_ok=True)

    search = [UNIFIND, "search", QUERY, "--kb", "demo", "--mode"]
    rows = {
        "python -c pass": _measure(repeats, [sys.executable, "-c", "pass"], env),
        "unifind --help": _measure(repeats, [UNIFIND, "--help"], env),
        f'unifind search "{QUERY}" --kb demo --mode text': _measure(
            repeats, [*search, "text"], env
        ),
        f'unifind search "{QUERY}" --kb demo --mode hybrid': _measure(
            repeats, [*search, "hybrid"], env
        ),
        # Without the records database (which keeps citation numbers across processes, #20).
        f'UNIFIND_RECORDS=false unifind search "{QUERY}" --kb demo --mode text': _measure(
            repeats, [*search, "text"], {**env, "UNIFIND_RECORDS": "false"}
        ),
    }
    for kind, message in ASKS.items():
        rows[f'unifind ask "{message}" --plan --json ({kind})'] = _measure(
            repeats, [UNIFIND, "ask", message, "--plan", "--json"], env
        )
    greet = [UNIFIND, "ask", ASKS["greeting"], "--plan", "--json"]
    cold = f'unifind ask "{ASKS["greeting"]}" --plan --json (cold: no intent KB cache)'
    rows[cold] = _measure(repeats, greet, env, before=drop_intent_cache)
    return rows


def _lexical_ms(stdout: str) -> float:
    reports = json.loads(stdout)["reports"]
    return float(next(r["took_ms"] for r in reports if r["stage"] == "lexical"))


def collection_rows(repeats: int, env: dict[str, str], home: Path) -> dict[str, dict[str, float]]:
    """Issue #8's rows: small English and Chinese collections, jieba's caches cold and warm."""
    for name, files in (
        ("en", [p for p in CORPUS.iterdir() if not p.name.startswith("zh-")]),
        ("zh", [p for p in CORPUS.iterdir() if p.name.startswith("zh-")]),
    ):
        _run([UNIFIND, "kb", "create", name], env)
        _run([UNIFIND, "kb", "ingest", name, *map(str, files)], env)

    def drop_caches() -> None:
        shutil.rmtree(home / "cache", ignore_errors=True)
        for cache in (home / "tmp").glob("*jieba*"):
            cache.unlink()

    cases = {
        'unifind search "refund policy" --kb en --mode text': (
            ["search", "refund policy", "--kb", "en", "--mode", "text"], None),
        'unifind search "退款流程" --kb zh --mode text (cold: no jieba cache)': (
            ["search", "退款流程", "--kb", "zh", "--mode", "text"], drop_caches),
        'unifind search "退款流程" --kb zh --mode text (warm)': (
            ["search", "退款流程", "--kb", "zh", "--mode", "text"], None),
    }  # fmt: skip
    rows = {"unifind --help": _measure(repeats, [UNIFIND, "--help"], env, warm_up=False)}
    for name, (args, before) in cases.items():
        row = _measure(repeats, [UNIFIND, *args], env, before, warm_up=False)
        lexical = []
        for _ in range(repeats):
            if before:
                before()
            lexical.append(_lexical_ms(_run([UNIFIND, *args, "--json"], env)[2]))
        rows[name] = {**row, "lexical_ms": statistics.median(lexical)}
    return rows


def _load() -> str:
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return "unknown"


def _compile(other: str | None) -> None:
    """Bytecode for the trees measured, as an installed package has it: with
    PYTHONDONTWRITEBYTECODE set (this machine sets it) an edited module would otherwise be
    compiled again in every process measured."""
    spec = importlib.util.find_spec("unifind")
    trees = list(spec.submodule_search_locations or []) if spec else []
    if other:
        trees.append(str(Path(other) / "unifind"))
    for tree in trees:
        compileall.compile_dir(tree, quiet=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--collections", action="store_true", help="issue #8's rows instead")
    ap.add_argument("--compare", metavar="SRC", help="also run each command on the tree SRC "
                    "(a src folder, e.g. of `git archive`), interleaved")  # fmt: skip
    args = ap.parse_args()
    global COMPARE
    COMPARE = str(Path(args.compare).resolve()) if args.compare else None
    _compile(COMPARE)
    home, env = _home()
    load0 = _load()
    try:
        measure = collection_rows if args.collections else demo_rows
        rows = measure(args.repeats, env, home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print("Source trees compiled to bytecode first (compileall), as an installed package is.")
    print(f"{args.repeats} fresh processes each after a warm-up; Python "
          f"{sys.version.split()[0]}, {os.cpu_count()} CPUs; load average (1, 5, 15 min) "
          f"{load0} before, {_load()} after")  # fmt: skip
    print()
    if COMPARE:
        print(f"other tree (interleaved, same home): {COMPARE}\n")
        print("| command | median s | CPU s | other: median s | other: CPU s | CPU change |")
        print("|---|---|---|---|---|---|")
        for name, r in rows.items():
            change = r["cpu_s"] / r["other_cpu_s"] - 1 if r["other_cpu_s"] else 0.0
            other = f"{r['other_median_s']:.3f} | {r['other_cpu_s']:.3f}"
            print(f"| `{name}` | {r['median_s']:.3f} | {r['cpu_s']:.3f} | {other} "
                  f"| {change:+.0%} |")  # fmt: skip
        return
    print("| command | median s | min s | max s | CPU s (median) | lexical stage ms |")
    print("|---|---|---|---|---|---|")
    for name, r in rows.items():
        lex = f"{r['lexical_ms']:.1f}" if "lexical_ms" in r else "-"
        print(f"| `{name}` | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['max_s']:.3f} "
              f"| {r['cpu_s']:.3f} | {lex} |")  # fmt: skip


if __name__ == "__main__":
    main()
