"""Model text escaped for a client that renders Markdown (an ACP editor) shows there exactly as written.

The judge is a real CommonMark renderer (markdown-it-py, with GFM tables and strikethrough, as editors use):
the escaped text, rendered, must read as the original, character for character, code fences as code.
"""

from __future__ import annotations

import random

import pytest
from markdown_it import MarkdownIt

from tui.engine.loop.prose import finished_prefix
from tui.safety.mdtext import (MarkdownEscaper, code_span, code_spans, escape_markdown, fence_closes, fence_open,
                               split_fences)

MD = MarkdownIt("commonmark").enable("table").enable("strikethrough")

# Lines from transcripts of the 1.5B model (docs/local-models.md, issue 31's first run) and shapes like them.
SAID = [
    "pkg/__init__.py sets __all__ to snake_case_name and other_name.",
    "LIFOCache is defined in src/cachetools/__init__.py; the items live in self._Cache__data.",
    "snake_case_name(*args, **kwargs) returns its *args and **kwargs unchanged",
    "other_name() returns the path C:\\temp\\new_file (a raw string, so the backslashes stay)",
    "Use `__init__.py` (or ``a ` b``) and keep [link](x) & <b>tags</b>, ~~this~~ and a | b | c as typed.",
    "# not a heading: a Python comment\n> not a quote\n---\n===\n+1 for that",
    "The regex is r\"\\d+\\.\\d*\" and the glob is src/**/*.py; 2 * 3 = 6 and _private_name is private.",
    "Line one of the answer\nline two, in the same paragraph\n\nA new paragraph.",
    "An unclosed `backtick and a trailing backslash \\",
]


def rendered(markdown: str) -> str:
    """What a reader sees: the text of the rendered document, a code span with its backticks, code marked."""
    out: list[str] = []

    def walk(tokens: list) -> None:
        for token in tokens:
            if token.type == "inline":
                walk(token.children or [])
            elif token.type == "text":
                out.append(token.content)
            elif token.type == "code_inline":
                out.append(token.markup + token.content + token.markup)
            elif token.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif token.type in ("fence", "code_block"):
                out.append(f"<code {token.info}>{token.content}</code>")
            elif token.type in ("paragraph_close", "heading_close"):
                out.append("\n")
            elif token.type.startswith("html") or token.type in ("link_open", "em_open", "strong_open", "s_open"):
                out.append(f"<{token.type}>")

    walk(MD.parse(markdown))
    return "".join(out).strip("\n")


def paragraphs(text: str) -> str:
    return "\n".join(line.strip() for line in text.split("\n") if line.strip())


@pytest.mark.parametrize("text", SAID)
def test_escaped_prose_renders_as_written(text: str) -> None:
    assert paragraphs(rendered(escape_markdown(text))) == paragraphs(text)


def test_without_escaping_a_markdown_renderer_alters_the_same_text() -> None:
    """The reason this exists: rendered as is, the dunder names lose their underscores."""
    assert "pkg/init.py sets all" in rendered(SAID[0]).replace("<strong_open>", "")


def test_code_fences_and_code_spans_go_through_unchanged() -> None:
    text = ("Here:\n\n```python\ndef f(__x, *a):\n    return a_b  # C:\\temp\n```\n"
            "and `__init__.py` stays code;\n~~~\nraw ~~~ block __x__\n~~~\n")
    escaped = escape_markdown(text)
    assert "```python\ndef f(__x, *a):\n    return a_b  # C:\\temp\n```\n" in escaped
    assert "`__init__.py`" in escaped
    shown = rendered(escaped)
    assert "<code python>def f(__x, *a):\n    return a_b  # C:\\temp\n</code>" in shown
    assert "<code >raw ~~~ block __x__\n</code>" in shown


def test_lists_stay_lists_and_their_items_literal() -> None:
    escaped = escape_markdown("- __init__.py exports __all__\n1. run_tests(*args)\n")
    tokens = [t.type for t in MD.parse(escaped)]
    assert "bullet_list_open" in tokens and "ordered_list_open" in tokens
    assert "__init__.py exports __all__" in rendered(escaped) and "run_tests(*args)" in rendered(escaped)


def test_streamed_in_any_pieces_it_escapes_the_same() -> None:
    rnd = random.Random(31)
    alphabet = list("ab _*`\\[]<>&|~#-+=!().:") + ["__init__", "\n", "    ", "x_y", "**", "```", "~~~", "1. ",
                                                  "\n\n", "- ", "C:\\temp"]
    for _ in range(3000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 30)))
        whole = escape_markdown(text)
        escaper, out, at = MarkdownEscaper(), [], 0
        for cut in sorted(rnd.sample(range(len(text) + 1), min(4, len(text) + 1))):
            out.append(escaper.push(text[at:cut]))
            at = cut
        out.append(escaper.push(text[at:]) + escaper.finish())
        assert "".join(out) == whole, text


def test_random_prose_renders_as_written() -> None:
    """Anything without block structure of its own (a list, a fence, indented code) reads back the same; a code
    span may only lose the one space CommonMark strips at each end."""
    rnd = random.Random(7)
    alphabet = list("ab _*\\[]<>&|~#-+=!().:") + ["__init__", "\n", "x_y", "**", "__all__", "*args", "C:\\temp"]
    for _ in range(3000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 30)))
        if any(line.lstrip()[:2] in ("- ", "+ ", "* ") or line.lstrip() in ("-", "+", "*") for line in text.split("\n")):
            continue  # a list item: stays a list (its marker is the bullet)
        assert paragraphs(rendered(escape_markdown(text))) == paragraphs(text), text


def test_a_streamed_prose_line_is_not_held_back() -> None:
    escaper = MarkdownEscaper()
    assert escaper.push("The answer is in __init__") == "The answer is in \\_\\_init\\_\\_"
    assert escaper.push(".py and `x") == ".py and "  # a code span may close later on the line
    assert escaper.push("` ok\n") == "`x` ok"  # the newline waits: a hard break if the paragraph goes on
    assert escaper.push("more") == "  \nmore"
    assert escaper.finish() == ""


def test_fences_by_commonmark_rules() -> None:
    assert fence_open("```python\n") == ("`", 3, "python", 0)
    assert fence_open("  ~~~~ json title=x") == ("~", 4, "json title=x", 2)
    assert fence_open("```x```") is None and fence_open("``x") is None and fence_open("text ```") is None
    fence = fence_open("````md")
    assert fence is not None and not fence_closes("```\n", fence) and fence_closes("`````\n", fence)
    assert not fence_closes("```` x\n", fence)
    parts = split_fences("a\n````md\n```\ninner\n```\n````\nb\n")
    assert parts[0] == ("a\n", None) and parts[1][0] == "```\ninner\n```\n" and parts[2] == ("b\n", None)
    assert finished_prefix("text\n````md\n```\n\nstill code\n", 0) == 0  # the inner ``` does not close it


def test_code_spans_and_a_code_span_of_any_text() -> None:
    assert code_spans("a `x` b ``y`z`` c `open") == [(2, 5), (8, 15)]
    for text in ("pkg/__init__.py", "a `b` c", "``", "`lead", "rm -rf build/*"):
        span = code_span(text)
        token = next(t for t in MD.parse(span)[1].children if t.type == "code_inline")
        assert token.content == text
