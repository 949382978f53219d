"""Shared machinery for edit proposals: build the diff, checkpoint, apply the accepted hunks.

Edits are applied by devagent itself (``git apply`` of exactly the accepted hunks), never by a
model-run shell, and only after approval. What was rejected goes back to the model by content.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from tui.protocol.proposals import Decision, Proposal, new_proposal_id
from tui.protocol.errors import DevagentError, ToolError
from tui.protocol.events import Checkpointed, Notice
from tui.safety.parsing import parse_python
from tui.safety.paths import read_bounded, resolve_in_repo
from tui.tools.base import ToolContext, ToolResult

MAX_EDIT_BYTES = 8_000_000  # a larger file is not rewritten through a diff proposal


def repo_of(ctx: ToolContext) -> Any:
    """The core.repo.Repo for this context (created once, GitPython loaded lazily)."""
    if "repo" not in ctx.extras:
        from tui.git.repo import Repo

        ctx.extras["repo"] = Repo(ctx.repo)
    return ctx.extras["repo"]


async def checkpoint(ctx: ToolContext, label: str) -> Any:
    """Snapshot the working tree before an approved change; emits Checkpointed. None if it fails."""
    from tui.git import checkpoints

    try:
        cp = await asyncio.to_thread(checkpoints.create, repo_of(ctx), label, ctx.session_id or "adhoc",
                                     keep=ctx.config.checkpoints.keep)
    except DevagentError as err:
        ctx.emit(Notice(f"no checkpoint taken: {err.message}", level="warning"))
        return None
    ctx.emit(Checkpointed(ref=cp.ref, label=label, not_covered=tuple(cp.not_covered)))
    return cp


def read_current(ctx: ToolContext, rel: str) -> tuple[Path, bytes | None]:
    """The file an edit proposal starts from (None: it does not exist yet); bounded, never blocking."""
    target = resolve_in_repo(ctx.repo, rel)
    if target.is_dir():
        raise ToolError(f"{rel} is a directory, not a file")
    try:
        data, size = read_bounded(ctx.repo, rel, MAX_EDIT_BYTES + 1)
    except FileNotFoundError:
        return target, None
    if size > MAX_EDIT_BYTES:
        raise ToolError(f"{rel} is too large to edit here ({size} bytes; the limit is {MAX_EDIT_BYTES}); "
                        "nothing was changed")
    return target, data


def kept_lines(old: str, new: str) -> tuple[int, int]:
    """(non-blank lines of ``old`` still present in ``new``, non-blank lines of ``old``), compared stripped."""
    before = [line.strip() for line in old.splitlines() if line.strip()]
    after = {line.strip() for line in new.splitlines()}
    return sum(line in after for line in before), len(before)


def match_line_endings(old: bytes | None, new: bytes) -> bytes:
    """Keep a CRLF file CRLF when the model writes LF."""
    if old and b"\r\n" in old and b"\r\n" not in new:
        return new.replace(b"\n", b"\r\n")
    return new


# A model that writes a placeholder instead of the code ("// Your modified code here", "# ... rest of the
# function ...") would replace real code with a comment. Only added lines count: a file may have its own.
PLACEHOLDER = re.compile(
    r"(?i)(?:#|//|/\*|<!--|--)\s*(?:\.\.\.\s*)?(?:(?:your|the|my)\s+(?:\w+\s+)?(?:code|logic|implementation)\s+"
    r"(?:goes\s+|comes\s+)?here|(?:rest|remainder)\s+of\s+(?:the\s+)?(?:code|function|method|class|file|"
    r"implementation)|(?:existing|remaining|other|previous|unchanged|original)\s+(?:code|lines|methods|functions|"
    r"implementation)(?:\s+(?:here|unchanged|stays?|remains?))?\s*(?:\.\.\.|$)|(?:implement|add)\s+(?:your|the)\s+"
    r"(?:logic|code)\s+here)")


def placeholder(old: str, new: str) -> str:
    """The first added line of ``new`` that is a placeholder for code ('' when none)."""
    before = set(old.splitlines())
    return next((ln.strip() for ln in new.splitlines() if ln not in before and PLACEHOLDER.search(ln)), "")


def breaks_syntax(rel: str, old: str, new: str) -> str:
    """The syntax error a Python edit introduces into a file that parsed before ('' when none)."""
    if not rel.endswith((".py", ".pyi")):
        return ""
    import ast

    try:
        parse_python(old, rel)  # parsing only: nothing runs
    except (SyntaxError, ValueError):
        return ""  # it did not parse before either: not this edit's doing
    try:
        parse_python(new, rel)
    except SyntaxError as err:
        line = (err.text or "").strip()[:100]
        return f"line {err.lineno}: {err.msg}" + (f": {line}" if line else "")
    except ValueError as err:
        return str(err)
    return ""


def redefined(rel: str, old: str, new: str) -> tuple[str, int] | None:
    """A module-level def/class the edit defines a second time (the new one would silently replace the first at
    import): its name and the line of the first (None when none, or when either version does not parse)."""
    import ast

    if not rel.endswith(".py"):
        return None

    def tops(text: str) -> dict[str, list[int]] | None:
        try:
            tree = parse_python(text)
        except (SyntaxError, ValueError):
            return None
        seen: dict[str, list[int]] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not any(
                    "overload" in ast.unparse(d) or "register" in ast.unparse(d) for d in node.decorator_list):
                seen.setdefault(node.name, []).append(node.lineno)
        return seen

    before, after = tops(old), tops(new)
    if before is None or after is None:
        return None
    name = next((n for n, lines in after.items() if len(lines) > max(1, len(before.get(n, [])))), "")
    return (name, after[name][0]) if name else None


def renamed_tests(rel: str, old: str, new: str, turn_start: str | None = None) -> tuple[str, list[str]]:
    """In a test file, a module-level test the edit adds under a name the file already uses (a 1.5B model asked
    to "add a test" appends a second ``def test_intcomma``, which would silently replace the first) gets a free
    name of its own, once per turn: when the model sends it again (the same name, or the original one), that is a
    revision of the test it added, which it replaces. A module-level test that takes ``self`` (pytest has no such
    fixture) loses it. The new text and what was done, in words (unchanged, [] when nothing applies).
    ``turn_start`` is the file as the turn found it (what was there before the model's own additions)."""
    import ast

    from tui.symbols.model import is_test_file

    if not rel.endswith(".py") or not is_test_file(rel):
        return new, []
    try:
        before, after = parse_python(old or ""), parse_python(new)
        original = parse_python(turn_start) if turn_start is not None else before
    except (SyntaxError, ValueError, RecursionError):
        return new, []
    funcs = (ast.FunctionDef, ast.AsyncFunctionDef)
    first_names = {n.name for n in original.body if isinstance(n, (*funcs, ast.ClassDef))}
    had_self = {n.name for n in before.body if isinstance(n, funcs) and n.args.args[:1] and n.args.args[0].arg == "self"}
    taken = {n.name for n in ast.walk(after) if isinstance(n, (*funcs, ast.ClassDef))}
    tests = [n for n in after.body if isinstance(n, funcs) and n.name.startswith("test")]
    lines = new.split("\n")
    drop: list[tuple[int, int]] = []  # line spans of earlier copies a revision replaces
    done: list[str] = []
    for index, node in enumerate(tests):
        earlier = [t for t in tests[:index] if t.name == node.name and (t.lineno, t.end_lineno) not in
                   [(a, b) for a, b in drop]]
        line = lines[node.lineno - 1]
        name = node.name
        if earlier:
            base = re.sub(r"(?:_\d+)+$", "", name) or name
            mine = [t for t in tests[:index] if re.fullmatch(rf"{re.escape(base)}(?:_\d+)*", t.name)
                    and t.name not in first_names]
            if name not in first_names or mine:  # a revision of the test this turn added: it replaces that one
                target = mine[-1] if mine else earlier[-1]
                start = min([target.lineno] + [d.lineno for d in target.decorator_list])
                drop.append((start, target.end_lineno or target.lineno))
                fresh = target.name
                done.append(f"it replaces {fresh}, which this request added")
            else:
                k = 2
                while f"{base}_{k}" in taken:
                    k += 1
                fresh = f"{base}_{k}"
                taken.add(fresh)
                done.append(f"the new test is named {fresh} ({name} was taken)")
            line = re.sub(rf"\bdef\s+{re.escape(name)}\b", f"def {fresh}", line, count=1)
            name = fresh
        if node.args.args[:1] and node.args.args[0].arg == "self" and node.name not in had_self:
            stripped = re.sub(r"\(\s*self\s*(?:,\s*|(?=\)))", "(", line, count=1)
            if stripped != line:
                line = stripped
                done.append(f"{name} is a module-level test, so it takes no self")
        lines[node.lineno - 1] = line
    if not done:
        return new, []
    for start, stop in sorted(drop, reverse=True):
        del lines[start - 1:stop]
    text = re.sub(r"\n{4,}", "\n\n\n", "\n".join(lines))
    return text, list(dict.fromkeys(done))


_EXPORTS_OBJECT = re.compile(r"^module\.exports\s*=\s*\{(?P<body>[^{}]*)\}\s*;?[ \t]*$", re.M)
_EXPORT_ENTRY = re.compile(r"^\s*(?:(?P<key>[A-Za-z_$][\w$]*)\s*:\s*(?P<value>[A-Za-z_$][\w$.]*)|(?P<short>[A-Za-z_$][\w$]*))\s*$")


def merged_exports(rel: str, old: str, new: str) -> tuple[str, str]:
    """In a CommonJS module whose ``module.exports = { a: a, b: b }`` the edit repeats with only the new names
    (a 1.5B model appends ``module.exports = { isEmpty: isEmpty };``, which would drop every other export), the
    new names go into the existing object and the second assignment goes. The new text and a note ('' when it
    does not apply, or when the second object is not plain names)."""
    if not rel.endswith((".js", ".cjs", ".mjs", ".jsx", ".ts")):
        return new, ""
    if len(_EXPORTS_OBJECT.findall(old or "")) != 1:
        return new, ""
    found = list(_EXPORTS_OBJECT.finditer(new))
    if len(found) != 2:
        return new, ""
    first, second = found
    entries = []
    for part in [p for p in second.group("body").split(",") if p.strip()]:
        m = _EXPORT_ENTRY.match(part)
        if not m:
            return new, ""
        key = m.group("key") or m.group("short")
        entries.append((key, part.strip()))
    have = {m.group("key") or m.group("short") for m in map(_EXPORT_ENTRY.match, first.group("body").split(","))
            if m}
    added = [(k, text) for k, text in entries if k not in have]
    body = first.group("body")
    lines = body.rstrip().split("\n")
    indent = re.match(r"\s*", lines[-1]).group(0) if len(lines) > 1 else " "  # type: ignore[union-attr]
    if added:
        body = body.rstrip()
        body = body + ("," if not body.endswith(",") else "") + "".join(
            f"\n{indent}{text}" if "\n" in first.group("body") else f" {text}," for _, text in added)
        body = body.rstrip(",") + ("\n" if "\n" in first.group("body") else " ")
    # The merged object stands where the second one stood, after every definition (a ``var`` above it is
    # assigned by then; at the first one's place it would still be undefined).
    merged_object = new[first.start():first.start("body")] + body + new[first.end("body"):first.end()]
    before_first = new[:first.start()].rstrip("\n")
    between = new[first.end():second.start()].strip("\n")
    merged = "\n\n".join(part for part in (before_first, between, merged_object) if part) + new[second.end():]
    merged = merged if merged.endswith("\n") else merged + "\n"
    names = ", ".join(k for k, _ in added) or "nothing new"
    return merged, f"{names} added to the existing module.exports (a second module.exports = {{...}} would drop the rest)"


def new_stub(rel: str, old: str, new: str) -> str:
    """A function the edit gives a body of only ``...`` ('' when none): a template sent back, not code (a 1.5B model
    sent a hint's own ``def peek(self, key, default=None):\n    ...``, which parses, passes every test and does
    nothing). Stubs the file had already, abstract methods, overloads and .pyi files are left alone."""
    if not rel.endswith(".py"):
        return ""
    import ast

    def stubs(text: str) -> set[str] | None:
        try:
            tree = parse_python(text, rel)
        except (SyntaxError, ValueError, RecursionError):
            return None
        found = set()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or any(
                    getattr(d, "attr", getattr(d, "id", "")) in ("abstractmethod", "overload")
                    for d in node.decorator_list):
                continue
            body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
            if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and body[0].value.value is Ellipsis:
                found.add(node.name)
        return found

    after = stubs(new)
    return min((after - (stubs(old) or set())) if after else set(), default="")


async def edit_proposal(ctx: ToolContext, tool: str, args: dict[str, Any], rel: str, old: bytes | None,
                        new: bytes) -> Proposal:
    from tui.git.diffs import DiffIndex, file_diff

    if old == new:
        raise ToolError(f"that leaves {rel} unchanged; nothing to propose")
    before, after = (old or b"").decode("utf-8", "replace"), new.decode("utf-8", "replace")
    stub = placeholder(before, after)
    if stub:
        raise ToolError(f"the new code has a placeholder instead of code ({stub!r}); nothing was changed. Write the "
                        "code itself: the lines that stay, copied from the current code, with the change made.")
    empty = new_stub(rel, before, after)
    if empty:
        raise ToolError(f"the body of {empty} is only `...`, so it would do nothing; nothing was changed. Send the "
                        "whole definition with the lines that do what the request asks in place of the `...`.")
    start = ctx.turn_start.get(rel)  # absent: not edited yet this turn (before is the turn's start); None: created
    after, renamed = renamed_tests(rel, before, after, start.decode("utf-8", "replace") if isinstance(start, bytes)
                                   else "" if rel in ctx.turn_start else None)
    after, exported = merged_exports(rel, before, after)
    if exported:
        renamed.append(exported)
    from tui.tools.support.jstests import fitted_tests
    from tui.tools.support.pycheck import qualified

    for fit in (lambda text: qualified(ctx.repo, rel, before, text), lambda text: fitted_tests(rel, before, text)):
        after, note = fit(after)
        renamed += [note] if note else []
    if renamed:
        new = after.encode("utf-8")  # only a def line changed; the text keeps its own line endings
    broken = breaks_syntax(rel, before, after)
    if broken:
        raise ToolError(f"that would make {rel} stop parsing ({broken}); nothing was changed. Python statements "
                        "go on lines of their own, indented under the line they belong to: send the edit again with "
                        "the new lines written out as they will stand in the file.")
    from tui.tools.support.jscheck import breaks_js

    js_broken = await asyncio.to_thread(breaks_js, ctx.repo, rel, before if old is not None else None, after)
    if js_broken:
        raise ToolError(f"that would make {rel} stop parsing ({js_broken}); nothing was changed. Check the quotes "
                        "and brackets of the new code (a quote inside a '...' string is written \\' ) and send the "
                        "edit again.")
    from tui.tools.support.jstests import repeated_title
    from tui.symbols.pysignature import check_new
    from tui.tools.support.pysmells import script_added, stray_method

    again = repeated_title(rel, before, after)
    if again:
        raise ToolError(f"{rel} already has a test titled {again[0]!r} (line {again[1]}); this one repeats it, so "
                        "nothing was changed. A new test gets a title of its own that says what it checks, and "
                        "code that checks what the developer asked for.")
    script = script_added(rel, before if old is not None else None, after)
    if script and not re.search(r"\b(?:top[- ]level|module[- ]level|imported|(?:on|at) import|"
                                r"import time|script)\b", str(ctx.extras.get("request") or ""), re.I):
        raise ToolError(f"that puts code at the top level of {rel} (line {script[0]}: {script[1]}), which runs every "
                        "time it is imported (pytest imports a test file to collect it); nothing was changed. To try "
                        "code out, send it to run_python (nothing is written); to keep it as a test, put it in "
                        "def test_<what it checks>(): with an assert.")
    check_new(rel, before if old is not None else None, after, str(ctx.extras.get("request") or ""))
    stray = stray_method(rel, before, after)
    if stray:
        raise ToolError(f"{stray[0]} is already a method (line {stray[1]} of {rel}); a module-level copy of it that "
                        "takes self would be a second, broken one, so nothing was changed. The method stands as it "
                        "is: go on with the rest of the request, or answer in plain text.")
    twice = redefined(rel, before, after)
    if twice:
        raise ToolError(f"that would define {twice[0]} a second time in {rel} (the first is at line {twice[1]}), "
                        "and the second would replace the first when the module is "
                        "imported; nothing was changed. To change the existing definition, edit its own lines with "
                        "edit_file, or replace it with edit_symbol.")
    diff = file_diff(rel, old, new)
    index = DiffIndex.from_text(diff)
    added = sum(h.added for h in index.hunks)
    removed = sum(h.removed for h in index.hunks)
    verb = "create" if old is None else "edit"
    note = f" ({'; '.join(renamed)})" if renamed else ""
    return Proposal(
        id=new_proposal_id(), kind="edit", tool=tool, summary=f"{verb} {rel} (+{added} -{removed}){note}",
        diff=diff, files=[rel], arguments=args,
    )


def changed_lines(patch: str, limit: int = 1500) -> str:
    """The -/+ lines of a patch, bounded: enough for a model to see its edit landed, without the context."""
    from tui.tools.support.common import bound

    body = [line for line in patch.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))]
    return bound("\n".join(body), limit, "changed lines")


async def apply_edit(ctx: ToolContext, proposal: Proposal, decision: Decision) -> ToolResult:
    """Apply the accepted hunks of an approved edit proposal, after a checkpoint."""
    from tui.git.diffs import DiffIndex, describe_hunks, select_hunks

    diff = proposal.diff or ""
    total = len(DiffIndex.from_text(diff).hunks)
    accepted = set(range(total)) if decision.hunks is None else {i for i in decision.hunks if 0 <= i < total}
    rejected = set(range(total)) - accepted
    files = ", ".join(proposal.files)
    for rel in proposal.files:  # the path may have changed under us since the proposal (symlink swap)
        resolve_in_repo(ctx.repo, rel)
    if not accepted:
        return ToolResult(False, f"The developer rejected every hunk of the edit to {files}. Nothing changed.",
                          f"{files}: all hunks rejected")
    patch = select_hunks(diff, accepted)
    for rel in proposal.files:
        ctx.turn_start.setdefault(rel, repo_of(ctx).read_worktree(rel))
    before = {rel: ctx.turn_start[rel] for rel in proposal.files if rel.endswith(".py")}
    cp = await checkpoint(ctx, f"before {proposal.summary}")
    try:
        await asyncio.to_thread(repo_of(ctx).apply, patch)
    except DevagentError as err:
        return ToolResult(False, f"The edit to {files} did not apply, nothing changed: {err.message}",
                          f"{files}: did not apply")
    lines = [f"Applied {len(accepted)} of {total} hunks to {files}. The changed lines are now:", changed_lines(patch)]
    if rejected:
        lines.append("The developer REJECTED these hunks; do not propose them again:")
        lines.append(describe_hunks(diff, rejected))
        if decision.reason:
            lines.append(f"The developer's reason: {decision.reason}")
    from tui.tools.support.pycheck import new_problems

    problems = [p for rel, old in before.items()
                for p in new_problems(old, repo_of(ctx).read_worktree(rel), rel, ctx.repo)]
    if problems:
        lines.append("A static check found problems this request's edits introduced; fix them with another edit:")
        lines.extend(problems[:10])
    summary = f"applied {len(accepted)}/{total} hunks to {files}" + (f"; {len(problems)} problem(s)" if problems else "")
    return ToolResult(True, "\n".join(lines), summary, diff=patch,
                      data={"checkpoint": getattr(cp, "ref", None), "rejected_hunks": sorted(rejected),
                            "problems": problems})
