"""scaffold(kind, name, options?): propose new files written the way this repo writes them.

Always a proposal (kind "scaffold"): the files appear as one diff; only approval writes them,
after a checkpoint, through the same apply path as every other edit.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from tui.protocol.proposals import Decision, Proposal, new_proposal_id
from tui.protocol.errors import ToolError
from tui.scaffold import KINDS, build_scaffold, scaffold_diff
from tui.tools.base import ToolContext, ToolResult, ToolSpec, params
from tui.tools.support.common import str_arg


def _directory(args: dict[str, Any]) -> str | None:
    options = args.get("options") or {}
    if not isinstance(options, dict):
        raise ToolError("options must be an object, e.g. {\"dir\": \"src/ui\"}")
    value = options.get("dir") or args.get("dir")
    return str(value) if value else None


def split_name(name: str, directory: str | None) -> tuple[str, str | None, str | None]:
    """A name given as the new file's path, with its extension (lib/range.js, the way models and people often
    write it), is the name range in the directory lib when no directory is given as well; the checks of name and
    place still apply. A module's path is kept as its file (lib/path-utils.js: the module pathUtils written to
    that file; render refuses one outside the repo or of another language). Anything else with a slash is refused
    as before ("a name, not a path")."""
    if not re.search(r"\.(?:py|[cm]?js|jsx|ts|tsx|go|rs)$", name):
        return name, directory, None
    folder = (directory or "").strip().strip("/")
    file = name if not folder or name.startswith(folder + "/") else f"{folder}/{name}"
    directory, _, name = file.rpartition("/")
    return file_name(name.rsplit(".", 1)[0]), directory or None, file


def file_name(stem: str) -> str:
    """The identifier of a module whose file is ``stem`` (path-utils: pathUtils); other stems as they are."""
    from tui.scaffold.render import CAMEL, styled

    return stem if CAMEL.match(stem) or not re.fullmatch(r"[A-Za-z][\w-]*", stem) else styled(stem, "camel")


async def propose(ctx: ToolContext, args: dict[str, Any]) -> Proposal:
    kind = str_arg(args, "kind").strip().lower()
    name, directory, file = split_name(str_arg(args, "name").strip(), _directory(args))
    scaffold = await asyncio.to_thread(build_scaffold, ctx.repo, kind, name, directory,
                                       file if kind == "module" else None)
    diff = scaffold_diff(scaffold)
    files = list(scaffold.files)
    return Proposal(
        id=new_proposal_id(), kind="scaffold", tool="scaffold",
        summary=f"scaffold {kind} {name}: {len(files)} new files ({'; '.join(scaffold.notes)})",
        diff=diff, files=files, arguments={**args, "test_file": scaffold.test_file},
    )


async def execute(ctx: ToolContext, proposal: Proposal, decision: Decision) -> ToolResult:
    from tui.safety.paths import resolve_in_repo
    from tui.tools.support.edits import apply_edit

    for rel in proposal.files:
        if resolve_in_repo(ctx.repo, rel).exists():
            return ToolResult(False, f"{rel} appeared since the scaffold was proposed; nothing was written.",
                              f"scaffold: {rel} exists")
    result = await apply_edit(ctx, proposal, decision)
    test_file = str(proposal.arguments.get("test_file") or "")
    if result.ok and test_file and (test_file in result.diff or test_file.startswith("./")):
        result.output += f"\nNew test: {test_file}. Run it with run_tests(selection=\"{test_file}\")."
        result.data["test_selection"] = test_file
    return result


SPEC = ToolSpec(
    name="scaffold",
    description="Create new files following the repo's conventions: kind component|page|route|module|widget|package.",
    parameters=params(
        ["kind", "name"],
        kind={"type": "string", "enum": list(KINDS)},
        name={"type": "string", "description": "e.g. Button (component), settings (page), text_utils (module)"},
        options={"type": "object", "description": "optional: {\"dir\": \"where the files go\"}"},
    ),
    read_only=False,
    propose=propose,
    execute=execute,
)
