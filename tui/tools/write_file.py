"""write_file(path, content): propose a whole-file write (new or replaced) as a diff.

Small models asked to "add a function" often call write_file with only the new
function, which would delete the rest of the file. A write that keeps less than half
of an existing file's lines is refused with the exact edit_file call that appends the
text instead; ``replace: true`` says the whole file really is meant to go.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tui.protocol.proposals import Proposal
from tui.protocol.errors import ToolError
from tui.tools.base import ToolContext, ToolSpec, params
from tui.tools.support.common import bool_arg, str_arg
from tui.tools.support.edits import apply_edit, edit_proposal, kept_lines, match_line_endings, read_current

_DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:def|class|function|func|fn|interface|type)\s+(\w+)", re.M)
MIN_LINES = 4  # files shorter than this are rewritten without a question
ECHO_LIMIT = 1500  # longest content repeated back in the suggested call


def destructive_rewrite(rel: str, old: str, new: str) -> str:
    """Why this whole-file write looks like a mistake ('' when it does not)."""
    kept, total = kept_lines(old, new)
    if total < MIN_LINES or kept * 2 >= total:
        return ""
    lost = [name for name in _DEFINITION.findall(old) if not re.search(rf"\b{re.escape(name)}\b", new)]
    defines = f", defining {', '.join(lost[:8])}" if lost else ""
    new_text = new if len(new) <= ECHO_LIMIT else "<the same text>"
    call = json.dumps({"name": "edit_file", "arguments": {"path": rel, "old": "", "new": new_text}})
    return (f"write_file would replace the whole of {rel} ({total} lines{defines}) and keep only {kept} of its "
            f"lines; nothing was changed. To add your text at the end of {rel}, call:\n{call}\n"
            f"To change part of {rel}, use edit_file with the exact old lines. To really replace the whole file, "
            'call write_file again with "replace": true.')


async def propose(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    rel = str_arg(args, "path")
    content = str_arg(args, "content", required=False)
    _, old = read_current(ctx, rel)
    if old is not None and b"\0" not in old[:8000] and not bool_arg(args, "replace"):
        why = destructive_rewrite(rel, old.decode("utf-8", "replace"), content)
        if why:
            raise ToolError(why)
    if old is None and not bool_arg(args, "replace"):
        await _refuse_a_copy(ctx, rel, content)
    new = match_line_endings(old, content.encode("utf-8"))
    return await edit_proposal(ctx, "write_file", args, rel, old, new)


async def _refuse_a_copy(ctx: ToolContext, rel: str, content: str) -> None:
    """A new file defining a class the repo already defines elsewhere is a small model naming the file after the
    class it was asked to extend (``LRUCache.py`` beside the real one): refused, pointing to the real file."""
    from tui.tools.edit_symbol import defining_file

    for name in dict.fromkeys(re.findall(r"^\s*class\s+(\w+)", content, re.M)):
        found = await defining_file(ctx, name)
        if found and found != rel:
            raise ToolError(f"{rel} does not exist, and {name} is already defined in {found}: to change or extend it "
                            f"use edit_symbol with path {found!r} (a method goes into its class as symbol "
                            f"'{name}.method'). To really create a second {name} in a new file, call write_file "
                            'again with "replace": true.')


SPEC = ToolSpec(
    name="write_file",
    description="Create a new file, or replace a whole file (shown to the developer as a diff).",
    parameters=params(
        ["path", "content"],
        path={"type": "string", "description": "path relative to the repo root"},
        content={"type": "string", "description": "the complete new file content"},
    ),
    read_only=False,
    propose=propose,
    execute=apply_edit,
)
