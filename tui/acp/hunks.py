"""One hunk of an edit proposal as the (old text, new text) pair an editor shows as a diff.

An editor reviews an edit hunk by hunk: each permission request carries the file as it is now and the
file with exactly that hunk applied, so what the developer allows is what devagent applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tui.git.diffs import DiffIndex
from tui.protocol.errors import DevagentError, PatchError
from tui.safety.paths import resolve_in_repo

MAX_FILE = 2_000_000  # bytes of a file shown in a diff; larger files are described, not shown


@dataclass(frozen=True)
class HunkView:
    index: int
    path: str  # absolute, inside the repo
    rel: str
    old_text: str | None  # None: the file does not exist yet
    new_text: str | None  # None: not shown as a text diff (binary, deletion, too large)
    description: str  # the hunk as unified diff text (always available)


def apply_hunks(old: str, index: DiffIndex, hunks: list[int]) -> str:
    """``old`` with the given hunks (all of one file, in diff order) applied; exact, no fuzz. The hunks' lines
    are unidiff's parse (DiffIndex.file_hunks), as when they are staged."""
    lines = old.split("\n")
    ends = [True] * (len(lines) - 1) + [False]  # whether each line had a newline after it
    if lines[-1] == "":
        lines, ends = lines[:-1], ends[:-1]
    out: list[tuple[str, bool]] = []
    pos = 0
    parsed = index.file_hunks(index.hunks[hunks[0]].file_index) if hunks else {}
    for i in sorted(hunks):
        h = parsed[i]
        start = h.source_start - 1 if h.source_length else h.source_start
        out.extend(zip(lines[pos:start], ends[pos:start]))
        pos = start
        last = ""
        for line in h:
            tag = line.line_type
            if tag == " ":
                out.append((lines[pos], ends[pos]))
                pos += 1
            elif tag == "-":
                pos += 1
            elif tag == "+":
                out.append((line.value[:-1] if line.value.endswith("\n") else line.value, True))
            elif tag == "\\" and last == "+":  # "\ No newline at end of file" after an added line
                out[-1] = (out[-1][0], False)
            if tag in " -+":
                last = tag
    out.extend(zip(lines[pos:], ends[pos:]))
    return "".join(text + ("\n" if end else "") for text, end in out)


def hunk_views(repo: Path, diff: str) -> list[HunkView]:
    """Every hunk of ``diff`` with the current file text and the text after that hunk alone."""
    index = DiffIndex.from_text(diff)
    views: list[HunkView] = []
    for f in index.files:
        try:
            target = resolve_in_repo(repo, f.path)
        except DevagentError:
            target = repo / f.path
        old: str | None = None
        readable = not f.binary and f.status != "deleted"
        if readable and target.is_file():
            data = target.read_bytes()[:MAX_FILE + 1]
            readable = len(data) <= MAX_FILE and b"\0" not in data[:8000]
            old = data.decode("utf-8", "replace")
        for i in f.hunks:
            h = index.hunks[i]
            text = index.hunk_text(i)
            try:
                new = apply_hunks(old or "", index, [i]) if readable and not h.whole_file else None
            except PatchError:  # a hunk that does not parse is shown as its text only
                new = None
            views.append(HunkView(i, str(target), f.path, old, new, text))
    return views
