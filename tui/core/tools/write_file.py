"""write_file(path, content): propose a whole-file write (new or replaced) as a diff."""

from __future__ import annotations

from typing import Any

from tui.core.approval import Proposal
from tui.core.tools.base import ToolContext, ToolSpec, params
from tui.core.tools.common import str_arg
from tui.core.tools.edits import apply_edit, edit_proposal, match_line_endings, read_current


async def propose(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    rel = str_arg(args, "path")
    content = str_arg(args, "content", required=False)
    _, old = read_current(ctx, rel)
    new = match_line_endings(old, content.encode("utf-8"))
    return edit_proposal(ctx, "write_file", args, rel, old, new)


SPEC = ToolSpec(
    name="write_file",
    description="Create a file or replace its whole content (shown to the developer as a diff).",
    parameters=params(
        ["path", "content"],
        path={"type": "string", "description": "path relative to the repo root"},
        content={"type": "string", "description": "the complete new file content"},
    ),
    read_only=False,
    propose=propose,
    execute=apply_edit,
)
