"""Review of the staged diff: deterministic checks first, then (if a server answers) a time-boxed model review.

Deterministic checks never need a model: conflict markers, likely secrets,
large or binary files, debug leftovers, ``git diff --cached --check``, and
Python / JSON / TOML files that do not parse. Model findings are advisory
(at most "warning"), so a small model's mistake can never block a commit.
"""

from __future__ import annotations

import asyncio
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from tui.git.diffs import DiffIndex, to_text
from tui.safety.parsing import TooDeep, loads_json, loads_toml, parse_python

if TYPE_CHECKING:
    from tui.config import Config
    from tui.llm.base import Backend
    from tui.git.repo import Repo

SEVERITIES = ("error", "warning", "info")
PARSE_LIMIT = 5 * 1024 * 1024  # larger files are not parsed (a syntax check is not worth the wait), nor diffed
DIFF_LIMIT = 8 * 1024 * 1024  # of the staged diff read for the review (what a commit stages may be any size)
_PARSERS = (".py", ".json", ".toml")


@dataclass(frozen=True)
class Finding:
    file: str
    line: int | None
    severity: str  # error | warning | info
    check: str  # conflict-marker, secret, large-file, large-diff, binary-file, debug, whitespace, syntax, not-checked, model
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def render(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{self.severity:<7} {where}: {self.reason} [{self.check}]"


@dataclass
class ReviewResult:
    findings: list[Finding] = field(default_factory=list)
    model_status: str = "not asked"  # what happened with the model part, shown to the developer

    def blocking(self, config: "Config") -> list[Finding]:
        return [f for f in self.findings if f.severity in config.review.blocking]

    def to_dict(self) -> dict[str, Any]:
        return {"findings": [f.to_dict() for f in self.findings], "model": self.model_status}


_SECRETS: list[tuple[str, re.Pattern[str], str]] = [
    ("error", re.compile(r"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY(?: BLOCK)?-----"), "a private key"),
    ("error", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "an AWS access key id"),
    ("error", re.compile(r"(?i)aws_secret_access_key\s*[:=]\s*['\"]?[A-Za-z0-9/+=]{40}"), "an AWS secret key"),
    ("error", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"), "a GitHub token"),
    ("error", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b"), "a GitHub token"),
    ("error", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"), "a Slack token"),
    ("error", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), "a Google API key"),
    ("error", re.compile(r"\bsk-[A-Za-z0-9]{32,}\b"), "an API secret key"),
    ("warning", re.compile(r"(?i)\b(?:api[_-]?key|secret|token|passw(?:or)?d)\w*\s*[:=]\s*['\"][^'\"\s]{8,}['\"]"),
     "what looks like a hard-coded credential"),
]
_DEBUG: list[tuple[re.Pattern[str], tuple[str, ...], str]] = [
    (re.compile(r"^\s*breakpoint\(\)"), (".py",), "breakpoint() left in"),
    (re.compile(r"^\s*import i?pdb\b|\bi?pdb\.set_trace\("), (".py",), "a pdb debugger call left in"),
    (re.compile(r"\bconsole\.(log|debug)\("), (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte"),
     "console.log left in"),
    (re.compile(r"^\s*debugger;?\s*$"), (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte"),
     "a debugger statement left in"),
]
_CONFLICT = re.compile(r"^(<{7} |={7}$|>{7} |\|{7} )")


def added_lines(diff: str) -> Iterator[tuple[str, int, str]]:
    """(file, new line number, text) of every added line in a diff (its hunks parsed by unidiff)."""
    from tui.protocol.errors import PatchError

    idx = DiffIndex.from_text(diff)
    for f in idx.files:
        try:
            hunks = idx.file_hunks(f.index).values()
        except PatchError:  # not as git writes diffs: no line to point at
            continue
        for hunk in hunks:
            for line in hunk:
                if line.is_added:
                    yield f.path, line.target_line_no, line.value.rstrip("\n").rstrip("\r")


def check_lines(diff: str) -> list[Finding]:
    """Conflict markers, secrets and debug leftovers on the added lines."""
    out: list[Finding] = []
    for path, line, text in added_lines(diff):
        if _CONFLICT.match(text):
            out.append(Finding(path, line, "error", "conflict-marker", "a merge conflict marker"))
        for severity, pattern, what in _SECRETS:
            if pattern.search(text):
                out.append(Finding(path, line, severity, "secret", f"{what} is being committed"))
                break
        for pattern, suffixes, what in _DEBUG:
            if path.endswith(suffixes) and pattern.search(text):
                out.append(Finding(path, line, "warning", "debug", what))
    return out


def check_files(repo: "Repo", diff: str, config: "Config") -> list[Finding]:
    """Large and binary files, and staged files that do not parse."""
    out: list[Finding] = []
    files = [f for f in DiffIndex.from_text(diff).files if f.status != "deleted"]
    limit = config.review.max_file_kb * 1024
    sizes = repo.blob_sizes([f":{f.path}" for f in files])
    parseable = [f":{f.path}" for f in files if not f.binary and f.path.endswith(_PARSERS)
                 and (sizes.get(f":{f.path}") or 0) <= PARSE_LIMIT]
    blobs = repo.read_blobs(parseable)
    for f in files:
        size = sizes.get(f":{f.path}")
        if size is not None and size > limit:
            out.append(Finding(f.path, None, "warning", "large-file",
                               f"{size // 1024} KiB (review.max_file_kb is {config.review.max_file_kb})"))
        if f.binary and size is not None and size > PARSE_LIMIT:  # git shows it as binary: its text is not read
            out.append(Finding(f.path, None, "info", "large-file", f"over {PARSE_LIMIT >> 20} MB: not read, so not "
                               "reviewed line by line"))
            continue
        if f.binary:
            out.append(Finding(f.path, None, "info", "binary-file", "a binary file"))
            continue
        data = blobs.get(f":{f.path}")
        problem = _parse_problem(f.path, data) if data is not None else None
        if problem:
            severity = "warning" if problem[2] else "error"  # too deep to check is not known to be broken
            out.append(Finding(f.path, problem[0], severity, "not-checked" if problem[2] else "syntax", problem[1]))
    return out


def _parse_problem(path: str, data: bytes) -> tuple[int | None, str, bool] | None:
    """(line, what is wrong, whether it only could not be checked) for a file that does not parse."""
    try:
        if path.endswith(".py"):
            parse_python(data, filename=path, limit=None)  # only "does it parse": nothing walks the tree
        elif path.endswith(".json"):
            loads_json(data, path)
        elif path.endswith(".toml"):
            loads_toml(data.decode("utf-8"), path)
    except TooDeep as exc:
        return None, f"not checked: {exc.reason}", True
    except SyntaxError as exc:
        return exc.lineno, f"Python does not parse: {exc.msg}", False
    except json.JSONDecodeError as exc:
        return exc.lineno, f"JSON does not parse: {exc.msg}", False
    except tomllib.TOMLDecodeError as exc:
        return None, f"TOML does not parse: {exc}", False
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"cannot be read as text: {exc}", False
    return None


def check_whitespace(repo: "Repo", diff: str) -> list[Finding]:
    """``git diff --cached --check`` (trailing whitespace, space before tab, blank lines at EOF) on the files of
    ``diff`` that are not too large to read (git's --check reads a file whole, whatever its size)."""
    files = [f.path for f in DiffIndex.from_text(diff).files if f.status != "deleted" and not f.binary]
    sizes = repo.blob_sizes([f":{p}" for p in files])
    small = [f":(literal){p}" for p in files if (sizes.get(f":{p}") or 0) <= PARSE_LIMIT]
    if not small:
        return []
    proc = repo.run_git("diff", "--cached", "--check", "--no-color", "--", *small)
    out: list[Finding] = []
    for line in to_text(proc.stdout).splitlines():
        m = re.match(r"^(.+):(\d+): (.+?)\.?$", line)
        if m and "conflict marker" not in m.group(3):
            out.append(Finding(m.group(1), int(m.group(2)), "warning", "whitespace", m.group(3)))
    return out


def deterministic(repo: "Repo", staged_diff: str, config: "Config") -> list[Finding]:
    findings = check_lines(staged_diff) + check_files(repo, staged_diff, config) + check_whitespace(repo, staged_diff)
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(findings, key=lambda f: (order.get(f.severity, 9), f.file, f.line or 0))


_MODEL_LINE = re.compile(r"^\s*[-*]?\s*`?([^\s:`]+?)`?:(\d+)?:?\s*(warning|info|error)?\s*:?\s*(.+)$", re.IGNORECASE)


async def model_review(backend: "Backend", staged_diff: str, budget: float, *, model: str | None = None
                       ) -> tuple[list[Finding], str]:
    """Ask the model for problems in the staged diff within ``budget`` seconds; no server is not an error."""
    from tui.git.commitmsg import bounded_diff
    from tui.protocol.errors import ModelError

    files = {f.path for f in DiffIndex.from_text(staged_diff).files}
    messages = [
        {"role": "system", "content": "You review a staged git diff before it is committed. List only real "
                                      "problems (bugs, security issues, mistakes), one per line, as "
                                      "`FILE:LINE: warning|info: reason`. If there are none, reply `OK`."},
        {"role": "user", "content": bounded_diff(staged_diff)},
    ]
    text: list[str] = []

    async def ask() -> None:
        info = await backend.connect(model)
        text.append("")
        async for chunk in backend.stream_chat(messages, options={"temperature": 0.0}):
            text.append(chunk.text)
        text[0] = info.name

    try:
        await asyncio.wait_for(ask(), budget)
    except asyncio.TimeoutError:
        status = f"model review stopped at the {budget:.0f}s budget"
    except ModelError as exc:
        from tui.llm.modelcache import unreachable_note

        return [], f"no model review ({exc.message}{unreachable_note(exc)})"
    else:
        status = f"reviewed by {text[0]}"
    findings: list[Finding] = []
    for line in "".join(text[1:]).splitlines():
        m = _MODEL_LINE.match(line)
        if not m or m.group(1) not in files:
            continue
        severity = (m.group(3) or "warning").lower()
        findings.append(Finding(m.group(1), int(m.group(2)) if m.group(2) else None,
                                "info" if severity == "info" else "warning", "model", m.group(4).strip()))
    return findings, status


async def review_staged(repo: "Repo", config: "Config", *, backend: "Backend | None" = None,
                        model: str | None = None) -> ReviewResult:
    """The whole review. Pass ``backend=None`` to skip the model part."""
    staged, cut = repo.diff_staged_bounded(DIFF_LIMIT, PARSE_LIMIT)  # a huge staged file is never read whole
    result = ReviewResult(deterministic(repo, staged, config))
    if cut:
        result.findings.append(Finding("(staged diff)", None, "warning", "large-diff", f"over {DIFF_LIMIT >> 20} MB: "
                                       "only the files before that point were reviewed line by line"))
    if not staged.strip():
        result.model_status = "nothing staged"
    elif backend is None:
        result.model_status = "model review skipped"
    else:
        found, result.model_status = await model_review(backend, staged, config.review.model_budget, model=model)
        result.findings.extend(found)
    return result
