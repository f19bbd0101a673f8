"""The builtin intent on the labelled sets in bench/ (dev: tuned on; held-out: never), with
the vocabulary ``ask`` reads on the demo (bench/ask_intent.py builds it the same way)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from unifind.agent.intent import Vocabulary, classify

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from ask_intent import accuracy, demo_vocabulary  # noqa: E402


@pytest.fixture(scope="module")
def vocab() -> Vocabulary:
    built: Vocabulary = demo_vocabulary()  # bench/ask_intent.py is not a typed package
    return built


@pytest.mark.parametrize(
    "name",
    [
        "ask_intent_dev.tsv",
        "ask_intent_heldout.tsv",
        "ask_intent_heldout_b.tsv",
        "ask_intent_heldout_c.tsv",
        "ask_intent_heldout_d.tsv",
        "ask_intent_heldout_e.tsv",
        "ask_intent_heldout_f.tsv",
    ],
)
def test_intent_meets_the_target(vocab: Vocabulary, name: str) -> None:
    # Sets B to F are no longer held out: B's misses were read for the normaliser round
    # (90.2 % / 86.9 % before it), C's for the rules round (91.7 % / 87.2 % before it),
    # D's for the next rules round (93.5 % / 87.1 % before it), E's for the round after
    # (89.7 % / 81.0 % before it), F's for the round after that (98.2 % / 85.7 % before
    # it). All are held to the target like the dev set.
    search, legs, misses = accuracy(name, vocab)
    assert search >= 0.9 and legs >= 0.9, (search, legs, misses)


def test_intent_on_held_out_set_g_keeps_its_measured_floor(vocab: Vocabulary) -> None:
    # Set G (styles mixed, public news about the shop's products, onboarding questions
    # naming them) was written and committed before the rules round for set F's misses and
    # measured once after it: 96.2 % / 90.8 % (BENCHMARKS.md). A floor a few points under,
    # so a change that loses more is seen.
    search, legs, misses = accuracy("ask_intent_heldout_g.tsv", vocab)
    assert search >= 0.93 and legs >= 0.87, (search, legs, misses)


@pytest.mark.parametrize(
    ("message", "legs"),
    [
        ("退款需要多久？", ("kb",)),  # a topic of the handbook's titles (退款流程), in Chinese
        ("how long does delivery of headphones take?", ("kb",)),  # a process, not rows
        ("what's the GDP of France?", ("web",)),  # a country alone is not a DB question
        ("customers in France", ("db",)),
        ("orders from customers who joined this month", ("db",)),  # a date filter
        ("reviews of the Sony headphones under $400 today", ("web", "db")),
        ("who do I contact about a broken monitor?", ("kb",)),
        ("write a short leave request email", ()),  # a task that only names a topic
        ("summarise our expense policy", ("kb",)),  # a task about our own things
        ("12 divided by 4", ()),
        ("5的平方减3等于多少", ()),
        ("good morning, see you tomorrow", ()),
        ("thnx!!", ()),  # chat-speak, normalised before the rules
        ("can u pls rewrite this: see u tmrw", ()),
        ("cheapest keybaord under 100 bucks", ("db",)),  # a typo of a DB word, money slang
        ("older customers", ("db",)),  # a common word is never "corrected" (older → order)
        ("price of the galaxy s24 in your store", ("db",)),  # the shop's rows, not a policy
    ],
)
def test_general_rules(vocab: Vocabulary, message: str, legs: tuple[str, ...]) -> None:
    assert classify(message, vocab).legs == legs
