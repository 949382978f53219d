"""Checks the "new" half added for the work kinds of issue 29: history answers (a commit named by hash or
subject, a date in any usual form), docs (a docstring or a README section that says X, nothing else changed),
data files (parsed and compared value for value with the release's own copy), renames (an old name gone from
every file of a kind). Host-side, these read and parse files; they never import or run the project's code."""

from __future__ import annotations

import ast
import datetime as dt
import fnmatch
import json
import re
import tomllib

from benchreal.checks import changed_files, read_bounded, unchanged
from benchreal.fixtures import git
from benchreal.spec import Check, Ctx, Verdict


def _only_changed(ctx: Ctx, path: str) -> Verdict:
    others = [n for n in changed_files(ctx) if n != path]
    return (False, f"another file changed: {others[0]}") if others else (True, "")


# History ------------------------------------------------------------------------------------------------------

def date_re(iso: str) -> str:
    """A calendar date as people and tools write it: 2024-03-05, 5 Mar 2024, March 5(th), 2024, 03/05/2024."""
    day = dt.date.fromisoformat(iso[:10])
    month, abbr = day.strftime("%B"), day.strftime("%b")
    d = rf"(?<!\d)0?{day.day}(?:st|nd|rd|th)?"
    forms = [rf"{day:%Y-%m-%d}", rf"{d}\s+(?:{month}|{abbr})\.?,?\s+{day.year}",
             rf"(?:{month}|{abbr})\.?\s+{d},?\s+{day.year}", rf"{day:%m/%d/%Y}", rf"{day:%d.%m.%Y}",
             rf"{abbr}\s+{d}\s+[\d:]+\s+{day.year}"]  # the last: git's own "Tue Mar 5 10:00:00 2024"
    return "(?:" + "|".join(forms) + ")"


def _commit(ctx: Ctx, subject: str) -> tuple[str, str]:
    """(full hash, subject) of the one commit whose subject contains ``subject``."""
    for line in git(ctx.repo, "log", "--format=%H%x00%s", ctx.base).splitlines():
        sha, _, text = line.partition("\0")
        if subject.lower() in text.lower():
            return sha, text
    raise ValueError(f"no commit with {subject!r} in its subject (authoring error)")


def names_commit(subject: str, *patterns: str) -> Check:
    """The answer names the commit whose subject contains ``subject`` (7+ characters of its hash, or its whole
    subject) and matches every pattern; the working tree and HEAD are untouched."""
    def check(ctx: Ctx) -> Verdict:
        sha, text = _commit(ctx, subject)
        answer = ctx.run.answer
        hashes = re.findall(r"\b[0-9a-f]{7,40}\b", answer.lower())
        named = any(sha.startswith(h) for h in hashes) or " ".join(text.lower().split()) in " ".join(
            answer.lower().split())
        if not named:
            return False, f"the answer does not name the commit {sha[:7]} ({text!r})"
        missing = [p for p in patterns if not re.search(p, answer, re.I)]
        if missing:
            return False, f"the answer lacks /{missing[0]}/"
        if not unchanged(ctx):
            return False, "a question changed the working tree"
        return True, f"named {sha[:7]}"
    return check


# Docs ---------------------------------------------------------------------------------------------------------

def _strip_docstrings(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.dump(tree, include_attributes=False)


def _find(tree: ast.AST, qualname: str) -> ast.AST | None:
    node: ast.AST | None = tree
    for part in qualname.split("."):
        node = next((n for n in getattr(node, "body", []) if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == part), None)
        if node is None:
            return None
    return node


def docstring_says(path: str, qualname: str, *patterns: str) -> Check:
    """The docstring of ``qualname`` in the Python file ``path`` matches every pattern; the file's code (all but
    its docstrings) is as it was and no other file changed."""
    def check(ctx: Ctx) -> Verdict:
        text = read_bounded(ctx.repo / path)
        try:
            tree = ast.parse(text or "")
        except SyntaxError as exc:
            return False, f"{path} no longer parses: {exc.msg} (line {exc.lineno})"
        node = _find(tree, qualname)
        doc = ast.get_docstring(node, clean=True) if isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else None
        if not doc:
            return False, f"{qualname} has no docstring in {path}"
        missing = [p for p in patterns if not re.search(p, doc, re.I)]
        if missing:
            return False, f"the docstring of {qualname} lacks /{missing[0]}/"
        before = ast.parse(git(ctx.repo, "show", f"{ctx.base}:{path}"))
        if _strip_docstrings(tree) != _strip_docstrings(before):
            return False, f"{path}: code changed, not only docstrings"
        ok, why = _only_changed(ctx, path)
        return (ok, why) if not ok else (True, "the docstring says it")
    return check


def section_says(path: str, heading: str, *patterns: str) -> Check:
    """A Markdown or reST section of ``path`` whose title matches ``heading`` says every pattern (its text up to
    the next title of the same or a higher level); no other file changed."""
    def check(ctx: Ctx) -> Verdict:
        text = read_bounded(ctx.repo / path) or ""
        lines = text.splitlines()
        for i, line in enumerate(lines):
            md = re.match(r"^(#+)\s+(.*)", line)
            rst = i + 1 < len(lines) and re.match(r"^([=\-~^\"'`#*+])\1{2,}\s*$", lines[i + 1]) and line.strip()
            if not (md or rst) or not re.search(heading, md.group(2) if md else line, re.I):
                continue
            level = len(md.group(1)) if md else 0
            end = len(lines)
            for j in range(i + 1, len(lines)):
                nxt = re.match(r"^(#+)\s", lines[j])
                if md and nxt and len(nxt.group(1)) <= level:
                    end = j
                    break
                if rst and j + 1 < len(lines) and j > i + 1 and re.match(r"^([=\-~^\"'`#*+])\1{2,}\s*$",
                                                                           lines[j + 1]) and lines[j].strip():
                    end = j
                    break
            body = "\n".join(lines[i:end])
            missing = [p for p in patterns if not re.search(p, body, re.I)]
            if missing:
                return False, f"the section {line.strip()!r} of {path} lacks /{missing[0]}/"
            ok, why = _only_changed(ctx, path)
            return (ok, why) if not ok else (True, f"{path} has the section")
        return False, f"{path} has no section titled like /{heading}/"
    return check


# Data files ---------------------------------------------------------------------------------------------------

def _parse(fmt: str, text: str) -> object:
    return json.loads(text) if fmt == "json" else tomllib.loads(text)


def data_kept(path: str, fmt: str) -> Check:
    """``path`` parses (JSON or TOML) and holds exactly the values of the release's own copy (the fixture's first
    commit); no other file changed."""
    def check(ctx: Ctx) -> Verdict:
        text = read_bounded(ctx.repo / path)
        if text is None:
            return False, f"{path} is missing"
        try:
            now = _parse(fmt, text)
        except ValueError as exc:
            return False, f"{path} does not parse as {fmt.upper()}: {str(exc)[:120]}"
        root = git(ctx.repo, "rev-list", "--max-parents=0", ctx.base).split()[0]
        if now != _parse(fmt, git(ctx.repo, "show", f"{root}:{path}")):
            return False, f"{path} parses, but its values are not all the original ones"
        ok, why = _only_changed(ctx, path)
        return (ok, why) if not ok else (True, f"{path} parses and keeps every value")
    return check


def data_is(path: str, expected: object) -> Check:
    """``path`` parses as JSON to exactly ``expected``; no other file changed."""
    def check(ctx: Ctx) -> Verdict:
        text = read_bounded(ctx.repo / path)
        try:
            now = json.loads(text or "")
        except ValueError:
            return False, f"{path} is missing or not valid JSON"
        if now != expected:
            return False, f"{path} is valid JSON but not the expected data"
        ok, why = _only_changed(ctx, path)
        return (ok, why) if not ok else (True, f"{path} is right")
    return check


# Renames ------------------------------------------------------------------------------------------------------

def name_gone(old: str, *globs: str) -> Check:
    """No tracked or new file matching ``globs`` (node_modules and virtualenvs aside) matches the regex ``old``."""
    def check(ctx: Ctx) -> Verdict:
        files = git(ctx.repo, "ls-files", "-co", "--exclude-standard").splitlines()
        for name in files:
            if not any(fnmatch.fnmatch(name, g) for g in globs):
                continue
            text = read_bounded(ctx.repo / name)
            if text is not None and re.search(old, text):
                return False, f"{name} still has /{old}/"
        return True, f"/{old}/ is gone"
    return check
