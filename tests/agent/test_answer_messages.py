"""The answer's chat messages: the references' and the prompt's braces are data, never a
format string (issue #18)."""

from __future__ import annotations

from unifind.agent.answer import messages
from unifind.cite import CitationContext, build_references
from unifind.types import Item


def test_braces_in_the_references_and_the_message_reach_the_llm_verbatim() -> None:
    text = "{xml} {prompt} {0} {x.__class__} {id!r:99} {"
    item = Item(type="kb", title="{title}", content=text, collection="c", chunk_id="1")
    refs = build_references(CitationContext("r").assign([item]), custom_prompt="{y} {example}")
    system, user = messages("{message} {0}", refs)
    assert text in system["content"] and 'title="{title}"' in system["content"]
    assert "{y} [ref_001]" in system["content"]
    assert user == {"role": "user", "content": "{message} {0}"}
