"""Chunking: exact offsets, size limits, paragraph/sentence preference, overlap."""

from __future__ import annotations

import itertools
import random

import pytest

from unifind.errors import InputError
from unifind.kb.chunk import Span, chunk


def check_invariants(text: str, spans: list[Span], max_chars: int) -> None:
    covered = bytearray(len(text))
    for s in spans:
        assert s.text == text[s.start : s.end]
        assert 0 < len(s.text) <= max_chars
        assert s.text == s.text.strip()
        covered[s.start : s.end] = b"\x01" * (s.end - s.start)
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert not missing, f"uncovered characters at {missing[:10]}"
    starts = [s.start for s in spans]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)


def test_short_text_is_one_chunk() -> None:
    text = "  Refunds are paid within 30 days.\n\nKeep the receipt.  \n"
    assert chunk(text) == [Span(2, 53, text[2:53])]
    assert chunk(text)[0].text == "Refunds are paid within 30 days.\n\nKeep the receipt."


@pytest.mark.parametrize("text", ["", "   \n\n\t "])
def test_blank_text_has_no_chunks(text: str) -> None:
    assert chunk(text) == []


def test_cuts_at_paragraph_break_before_sentence_end() -> None:
    p1 = "Alpha one is here. Alpha two is here. Alpha three is here."  # 58 chars
    p2 = "Beta one is here. Beta two is here."
    p3 = "Gamma one is here. Gamma two is here. Gamma three is here."
    text = f"{p1}\n\n{p2}\n\n{p3}"
    spans = chunk(text, max_chars=120, overlap=0)
    # p1+p2 fit (95 chars); adding p3's first sentence would still fit, but the cut
    # goes to the paragraph break because it keeps more than half the chunk.
    assert [s.text for s in spans] == [f"{p1}\n\n{p2}", p3]


def test_cuts_at_sentence_end_when_no_paragraph_break_fits() -> None:
    sentences = [f"Sentence number {i} says something." for i in range(10)]
    text = " ".join(sentences)
    spans = chunk(text, max_chars=80, overlap=0)
    assert all(s.text.endswith(".") for s in spans)
    assert " ".join(s.text for s in spans) == text
    check_invariants(text, spans, 80)


def test_overlap_repeats_whole_trailing_sentences() -> None:
    sentences = [f"S{i} is a short one." for i in range(12)]  # 17-18 chars each
    text = " ".join(sentences)
    spans = chunk(text, max_chars=100, overlap=40)
    check_invariants(text, spans, 100)
    for prev, nxt in itertools.pairwise(spans):
        assert nxt.start < prev.end  # they overlap ...
        shared = text[nxt.start : prev.end]
        assert shared in sentences[-1] or shared.endswith(".")  # ... by whole sentences
        assert len(shared) <= 40


def test_no_overlap_when_overlap_zero() -> None:
    text = " ".join(f"Sentence {i} is here." for i in range(40))
    spans = chunk(text, max_chars=100, overlap=0)
    assert all(b.start >= a.end for a, b in itertools.pairwise(spans))


def test_chinese_sentences_split_on_full_stops() -> None:
    text = "退款需要三十天。" * 30  # no spaces at all
    spans = chunk(text, max_chars=50, overlap=0)
    check_invariants(text, spans, 50)
    assert all(s.text.endswith("。") for s in spans)


def test_long_sentence_hard_split_at_whitespace_with_overlap() -> None:
    text = " ".join(f"word{i}" for i in range(200))  # one 1,289-char "sentence"
    spans = chunk(text, max_chars=100, overlap=20)
    check_invariants(text, spans, 100)
    for s in spans:  # cut between words, never inside one
        assert s.text.split()[0].startswith("word") and s.text.split()[-1] in text.split()
        assert all(w in text.split() for w in s.text.split())
    assert all(b.start < a.end for a, b in itertools.pairwise(spans))


def test_unbreakable_run_is_cut_at_max_chars() -> None:
    text = "x" * 250
    spans = chunk(text, max_chars=100, overlap=10)
    check_invariants(text, spans, 100)
    assert [len(s.text) for s in spans][:2] == [100, 100]


def test_markdown_heading_opens_a_paragraph() -> None:
    body = "Text line one is long enough. " * 3
    text = f"# Refunds\n{body}\n## Shipping\n{body}"
    spans = chunk(text, max_chars=len(text) - 5, overlap=0)
    assert spans[1].text.startswith("## Shipping")


def test_invalid_sizes_are_refused() -> None:
    with pytest.raises(InputError, match="max_chars"):
        chunk("x", max_chars=0)
    with pytest.raises(InputError, match="overlap"):
        chunk("x", max_chars=100, overlap=100)
    with pytest.raises(InputError, match="overlap"):
        chunk("x", max_chars=100, overlap=-1)


_PIECES = [
    "Refunds are paid within 30 days.",
    "Keep the receipt!",
    "Is it covered?",
    "e.g. 3.5 percent",
    "退款流程需要三十天。",
    "请联系客服！",
    "averyveryverylongwordwithoutanyspacesinsideitatallreally",
    "line without a period",
]
_GLUE = [" ", "  ", "\n", "\n\n", "\n\n\n", "\t", "", " \n \n ", "\n# Heading ", "\u3000"]


@pytest.mark.parametrize("seed", range(60))
def test_random_texts_keep_every_guarantee(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(rng.choice(_PIECES) + rng.choice(_GLUE) for _ in range(rng.randint(0, 120)))
    max_chars = rng.choice([8, 20, 50, 120, 400, 1200])
    overlap = rng.randint(0, max_chars - 1)
    spans = chunk(text, max_chars=max_chars, overlap=overlap)
    check_invariants(text, spans, max_chars)
    assert spans == chunk(text, max_chars=max_chars, overlap=overlap)  # deterministic


def test_large_document_one_chunk_per_paragraph() -> None:
    paragraph = "A sentence about refunds and returns. " * 20  # 759 chars: two don't fit
    text = (paragraph + "\n\n") * 700  # ~0.5 MB, chunked in well under a second
    spans = chunk(text)
    check_invariants(text, spans, 1200)
    assert len(spans) == 700
    assert all(text[s.end : s.end + 2] == " \n" for s in spans[:-1])  # ends at paragraph ends
    # From the second on, each starts with the previous paragraph's last sentences.
    assert all(s.text.startswith("A sentence") and len(s.text) > 759 for s in spans[1:])
