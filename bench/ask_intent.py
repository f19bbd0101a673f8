"""The builtin intent stage on the labelled sets: search/no-search and legs accuracy.

    python bench/ask_intent.py            # every set, with the misses
    python bench/ask_intent.py --quiet    # figures only

Sets (``message<TAB>none|kb,web,db``): ``ask_intent_dev.tsv`` (rules were tuned on it),
``ask_intent_heldout.tsv`` (written before the rules were run on it, never used to change
a rule), ``ask_intent_heldout_b.tsv`` (informal register; its misses were read for the
normaliser round, so no longer held out), ``ask_intent_heldout_c.tsv`` (mixed registers;
measured once after the normaliser round, then its misses were read for the rules round,
so no longer held out), ``ask_intent_heldout_d.tsv`` (registers and topics varied widely;
measured once after the rules round, then its misses were read for the next one, so no
longer held out), ``ask_intent_heldout_e.tsv`` (host-forwarded messages, tickets,
keyword-only queries, negation, hypotheticals, comparisons, follow-ups; measured once after
the set-D round, then its misses were read for the next one, so no longer held out) and
``ask_intent_heldout_f.tsv`` (every earlier set's styles mixed; written and committed
before the set-E round, measured once after it, then its misses were read for the next
one, so no longer held out) and ``ask_intent_heldout_g.tsv`` (styles mixed, plus public
news about the shop's products and onboarding questions naming them; written and committed
before the set-F round, measured once after it). The vocabulary is the demo's, read
as ``ask`` reads it: the demo shop's declared models as the DB leg introspects them
(sampled values, the words of their rows' names), the titles of the demo handbook's
documents and their sections (heading words and acronyms), and the handbook's salient terms
(frequent in one document, absent from the others). Target (issue #10): >= 90 % on
each figure with builtin.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
from pathlib import Path

from unifind import load_settings
from unifind.agent.intent import Vocabulary, classify
from unifind.agent.vocab import vocabulary
from unifind.db.demo import DEMO_FILE, create_demo
from unifind.engine import Searcher

ROOT = Path(__file__).resolve().parents[1]
SETS = (
    "ask_intent_dev.tsv",
    "ask_intent_heldout.tsv",
    "ask_intent_heldout_b.tsv",
    "ask_intent_heldout_c.tsv",
    "ask_intent_heldout_d.tsv",
    "ask_intent_heldout_e.tsv",
    "ask_intent_heldout_f.tsv",
    "ask_intent_heldout_g.tsv",
)


def demo_vocabulary() -> Vocabulary:
    """The vocabulary ``ask`` reads on the demo, the way it reads it: the demo handbook
    ingested (its document titles, English and Chinese) and the demo shop's models."""
    with tempfile.TemporaryDirectory(prefix="unifind-intent-") as tmp:
        home = Path(tmp)
        create_demo(home / DEMO_FILE)
        s = Searcher(load_settings(home=home, kb={"embedder": "hash"}))
        try:
            s.kb.create("handbook", embedder=None)
            s.kb.ingest("handbook", [ROOT / "src/unifind/demo/corpus"])
            vocab, notes = asyncio.run(vocabulary(s))
        finally:
            s.close()
    if notes:
        raise RuntimeError(f"the demo vocabulary is incomplete: {notes}")
    return vocab


def rows(name: str) -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for line in (ROOT / "bench" / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            message, label = line.split("\t")
            out.append((message, () if label == "none" else tuple(label.split(","))))
    return out


def accuracy(name: str, vocab: Vocabulary) -> tuple[float, float, list[str]]:
    """(search/no-search accuracy, legs accuracy, the misses) of one set."""
    data = rows(name)
    search = legs = 0
    misses = []
    for message, want in data:
        got = classify(message, vocab)
        search += got.search == bool(want)
        legs += got.legs == want
        if got.legs != want:
            misses.append(f"  {message!r}: want {','.join(want) or 'none'}, "
                          f"got {','.join(got.legs) or 'none'}")  # fmt: skip
    return search / len(data), legs / len(data), misses


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quiet", action="store_true", help="figures only, no misses")
    args = ap.parse_args()
    vocab = demo_vocabulary()
    print("| set | messages | Chinese | search/no-search | legs |")
    print("|---|---|---|---|---|")
    report = []
    for name in SETS:
        data = rows(name)
        zh = sum(1 for m, _ in data if re.search("[\u4e00-\u9fff]", m))
        search, legs, misses = accuracy(name, vocab)
        print(f"| {name} | {len(data)} | {zh} | {search:.1%} | {legs:.1%} |")
        report += [f"{name}: {len(misses)} miss(es)", *misses]
    if not args.quiet:
        print("\n".join(report))


if __name__ == "__main__":
    main()
