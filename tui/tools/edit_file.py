"""edit_file(path, old, new): replace one exact occurrence of ``old`` with ``new``.

Small models often get indentation or trailing spaces slightly wrong: when the exact
text is absent, a block whose lines match after stripping whitespace is accepted if it
is unique. An empty ``old`` adds ``new`` at the end of the file (how a small model adds a
function or a test without rewriting the file). Anything else is refused with the reason
and, when the text was not found, the file's current content (for a long file, the lines most like ``old``),
so the model can retry.
"""

from __future__ import annotations

import difflib
import heapq
import re
from typing import Any

from tui.protocol.proposals import Proposal
from tui.protocol.errors import ToolError
from tui.symbols.pysplice import place_appended
from tui.tools.base import ToolContext, ToolSpec, params
from tui.tools.support.common import CHARS_PER_TOKEN, bound, str_arg
from tui.tools.support.edits import apply_edit, edit_proposal, kept_lines, match_line_endings, read_current
from tui.tools.support.occurrences import ambiguous, occurrences


def _loose_spans(text: str, old: str) -> list[tuple[int, int]]:
    """Find ``old`` by lines compared without surrounding whitespace; the spans in ``text``."""
    want = [line.strip() for line in old.strip("\n").splitlines()]
    if not want or not any(want):
        return []
    lines = text.splitlines(keepends=True)
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line)
    hits = [i for i in range(len(lines) - len(want) + 1)
            if all(lines[i + k].strip() == want[k] for k in range(len(want)))]
    return [(starts[i], starts[i + len(want) - 1] + len(lines[i + len(want) - 1].rstrip("\r\n"))) for i in hits]


_TOKEN = re.compile(r"\w+|\S")
CANDIDATES = 8  # windows scored in full after the cheap token count


def closest(text: str, old: str) -> tuple[int, str] | None:
    """The block of ``text`` most like ``old`` (compared line by line without surrounding whitespace): its first
    line number and its exact lines; None when nothing comes close (under 60% alike). Every window is first
    scored by the tokens its lines share with ``old`` (linear in the file); only the best few are compared
    character by character, so a 6,000-line module answers at once."""
    want_lines = old.strip("\n").splitlines()
    want = "\n".join(line.strip() for line in want_lines)
    lines = text.splitlines()
    size = len(want_lines)
    if not want.strip() or not 0 < size <= 40 or size > len(lines):
        return None
    vocabulary = set(_TOKEN.findall(want))
    shared = [len(vocabulary.intersection(_TOKEN.findall(line))) for line in lines]
    sums = [sum(shared[:size])]
    for i in range(1, len(lines) - size + 1):
        sums.append(sums[-1] - shared[i - 1] + shared[i + size - 1])
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(want)  # the side difflib indexes: once, not once per window
    best, at = 0.6, -1
    for i in heapq.nlargest(CANDIDATES, range(len(sums)), key=sums.__getitem__):
        matcher.set_seq1("\n".join(line.strip() for line in lines[i:i + size]))
        if matcher.real_quick_ratio() > best and matcher.quick_ratio() > best and matcher.ratio() > best:
            best, at = matcher.ratio(), i
    return (at + 1, "\n".join(lines[at:at + size])) if at >= 0 else None


class NotFound(ToolError):
    """The text to replace is not in the file."""


DATA_FILES = (".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml", ".toml", ".ini", ".cfg")


def _rewrites(text: str, new: str, rel: str = "") -> bool:
    """``new`` and ``text`` mostly share their lines (stripped, both ways): a rewritten file, not an addition. A
    data file's new content that starts with the file's own first line (its header, its opening) is the whole
    file rewritten too (cleaned rows share few lines with the ones they replace)."""
    (new_kept, new_total), (old_kept, old_total) = kept_lines(new, text), kept_lines(text, new)
    if new_total > 0 and old_total > 0 and new_kept * 2 > new_total and old_kept * 2 >= old_total:
        return True
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return rel.lower().endswith(DATA_FILES) and len(first) > 2 and new.strip().splitlines()[0].strip() == first


def append(text: str, new: str, rel: str) -> str:
    """``new`` after the end of ``text``, separated the way the file's language expects.

    When ``new`` mostly repeats the file, the model meant the whole new content: it replaces the file.
    """
    body = new.strip("\n")
    if not body.strip():
        raise ToolError("'old' and 'new' are both empty: nothing to change")
    if not text.strip() or _rewrites(text, body, rel):
        return body + "\n"
    if body.strip() in text:
        named = re.match(r"\s*(?:@.*\n\s*)*(?:async\s+)?(?:def\s+(test\w*)|(?:test|it)\s*\(\s*['\"`]([^'\"`]+))", body)
        if named:  # the example test it was shown, resent (pluggy, minimist: outside the benchmark)
            line = text[:text.find(body.strip())].count("\n") + 1
            raise ToolError(f"{rel} already contains that text: it is the existing test {named.group(1) or named.group(2)!r} "
                            f"(line {line}), copied; nothing was added. A new test needs a name of its own and code "
                            "that checks what the developer asked for.")
        raise ToolError(f"{rel} already contains that text; nothing was added")
    placed = place_appended(text, body) if rel.endswith(".py") else None
    if placed is not None:  # an indented def belongs at module level (or in the class it follows), not nested
        return placed
    top_level = rel.endswith(".py") and not body[:1].isspace() and body.lstrip().startswith(("def ", "class ", "@", "async def "))
    return text.rstrip("\n") + ("\n\n\n" if top_level else "\n\n") + body + "\n"


def _unescaped(text: str, old: str, new: str) -> tuple[str, str]:
    """``old`` and ``new`` as the model meant them when JSON turned the ``\\t`` it wrote for the source's
    two characters backslash-t into a tab: ``indent='\\t'`` sent as ``"indent='\\t'"`` arrives with a real
    tab, which the file does not have. Only when the text as sent is absent and the escaped form is there."""
    if "\t" not in old or old in text:
        return old, new
    escaped = old.replace("\t", "\\t")
    return (escaped, new.replace("\t", "\\t")) if escaped in text else (old, new)


def replace_once(text: str, old: str, new: str, rel: str) -> str:
    if not old.strip():
        return append(text, new, rel)
    old, new = _unescaped(text, old, new)
    spans = [(start, start + len(old)) for start in occurrences(text, old)]
    if not spans:
        new = new.strip("\n")
        spans = _loose_spans(text, old)
    if len(spans) > 1:
        raise ToolError(ambiguous(text, spans, new, rel))
    if not spans:
        raise NotFound(f"the text to replace was not found in {rel}; nothing was changed.")
    start, end = spans[0]
    return text[:start] + new + text[end:]


async def propose(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    rel = str_arg(args, "path")
    old_text = str_arg(args, "old", required=False)
    new_text = str_arg(args, "new", required=False)
    _, old = read_current(ctx, rel)
    if old is None and not old_text.strip() and new_text.strip():  # adding to a file that is not there yet: a new
        from tui.tools import write_file  # file (the model was told "use write_file" and lost a step on it)

        return await write_file.propose(ctx, {"path": rel, "content": new_text if new_text.endswith("\n")
                                              else new_text + "\n"})
    if old is None:
        raise ToolError(f"{rel} does not exist; use write_file to create it")
    if b"\0" in old[:8000]:
        raise ToolError(f"{rel} is binary; it cannot be edited as text")
    crlf = b"\r\n" in old
    text = old.decode("utf-8", "surrogateescape")
    if crlf:
        text = text.replace("\r\n", "\n")
    try:
        updated = replace_once(text, old_text.replace("\r\n", "\n"), new_text.replace("\r\n", "\n"), rel)
    except NotFound as err:  # show what is there: small models then copy the exact lines
        budget = ctx.config.limits.file_tokens * CHARS_PER_TOKEN
        near = closest(text, old_text.replace("\r\n", "\n")) if len(text) > budget // 2 else None
        if near is not None:  # a long file: the lines the model meant, not a file cut to fit that may leave them out
            raise ToolError(f"{err.message} The closest text in {rel} (line {near[0]}) is:\n{near[1]}\nIf you meant "
                            "those lines, send the edit again with old copied from them exactly, character for "
                            "character (the indentation too).") from None
        raise ToolError(f"{err.message} The current content of {rel} is below. Copy the exact lines to replace "
                        f"(or use old=\"\" to add text at the end):\n{bound(text, budget, 'the file')}") from None
    new = updated.encode("utf-8", "surrogateescape")
    new = match_line_endings(old, new) if crlf else new
    return await edit_proposal(ctx, "edit_file", args, rel, old, new)


SPEC = ToolSpec(
    name="edit_file",
    description="Replace an exact piece of text in a file with new text; old=\"\" adds new at the end of the file.",
    parameters=params(
        ["path", "old", "new"],
        path={"type": "string", "description": "path relative to the repo root"},
        old={"type": "string", "description": "the exact existing text to replace (empty: append to the file)"},
        new={"type": "string", "description": "the replacement text"},
    ),
    read_only=False,
    propose=propose,
    execute=apply_edit,
)
