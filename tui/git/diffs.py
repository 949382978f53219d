"""Git-style diffs: build them for one file, index them fast, keep only the hunks the developer accepted.

Diffs are ``str`` decoded from git's bytes as UTF-8 with ``surrogateescape``
so that CRLF endings and non-UTF-8 text survive exactly; encode with
:func:`to_bytes` before handing a diff back to git. Indexing is a regex pass
over file and hunk headers only (a 1M-line diff indexes in a fraction of a
second); a hunk body is read only when it is shown or acted on, and then
unidiff parses it (:meth:`DiffIndex.file_hunks`: the one parser of hunk lines,
for selecting, staging, applying and reviewing them).

A file without text hunks (binary patch, pure rename, mode change, empty new
file) counts as one "whole-file" hunk, so every change can be accepted or
rejected by index. A file whose hunks are all rejected is left out entirely
(a rename with edits included).
"""

from __future__ import annotations

import bisect
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, overload

from tui.git.facade import GitRepo
from tui.git.quoting import paths_from_git_line, prefixed, strip_prefix, unquote
from tui.protocol.errors import PatchError

if TYPE_CHECKING:
    import unidiff

ENCODING = "utf-8"
ERRORS = "surrogateescape"

_FILE_RE = re.compile(r"\ndiff --git ")
_HUNK_START_RE = re.compile(r"\n@@ -\d")
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_GIT_FLAGS = ["-c", "diff.noprefix=false",
              "-c", "diff.mnemonicPrefix=false", "-c", "core.autocrlf=false"]


def to_text(data: bytes) -> str:
    return data.decode(ENCODING, ERRORS)


def to_bytes(text: str) -> bytes:
    return text.encode(ENCODING, ERRORS)


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping the ends (``str.splitlines`` would also split on a lone CR)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def file_diff(path: str, old: bytes | None, new: bytes | None) -> str:
    """A ``git apply``-able diff turning ``old`` into ``new`` at ``path`` (None = the file does not exist).

    Uses ``git diff --no-index --binary`` on temporary files, so CRLF, missing
    final newlines and binary content are exactly git's own; the header is
    rewritten to ``a/PATH`` / ``b/PATH``. Returns "" when nothing changes.
    """
    if old == new or (old is None and new is None):
        return ""
    with tempfile.TemporaryDirectory(prefix="devagent-diff-") as tmp:
        args = []
        for side, data in (("a", old), ("b", new)):
            if data is None:
                args.append(os.devnull)
                continue
            target = Path(tmp, side, "f")
            target.parent.mkdir()
            target.write_bytes(data)
            args.append(f"{side}/f")
        proc = GitRepo(tmp, timeout=60).run(*_GIT_FLAGS, "diff", "--no-index", "--binary", "--no-color", "--no-prefix",
                                            "--", *args)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"git diff --no-index failed: {to_text(proc.stderr).strip()}")
    lines = split_lines(to_text(proc.stdout))
    body_at = next((i for i, ln in enumerate(lines) if ln.startswith(("@@ ", "GIT binary patch", "Binary files"))),
                   len(lines))
    index_line = next((ln for ln in lines[:body_at] if ln.startswith("index ")), "")
    header = [f"diff --git {prefixed('a/', path)} {prefixed('b/', path)}\n"]
    if old is None:
        header.append("new file mode 100644\n")
    elif new is None:
        header.append("deleted file mode 100644\n")
    if index_line:
        header.append(index_line)
    body = lines[body_at:]
    if body and body[0].startswith("@@ "):
        header.append(f"--- {'/dev/null' if old is None else prefixed('a/', path)}\n")
        header.append(f"+++ {'/dev/null' if new is None else prefixed('b/', path)}\n")
    return "".join(header + body)


@dataclass
class FileRef:
    """One file section of a diff. ``start``/``end`` are line numbers in the diff (end exclusive)."""

    index: int
    path: str  # the new path ("" never; the old one for deletions)
    old_path: str | None  # None for a new file
    new_path: str | None  # None for a deleted file
    status: str  # added | deleted | modified | renamed | copied
    binary: bool
    start: int
    end: int
    hunks: Sequence[int] = ()  # global hunk indices (a range: a file's hunks are contiguous)
    pos: int = 0  # character offsets into the text
    endpos: int = 0
    body_pos: int = 0  # where the first hunk (or the binary patch) begins


@dataclass(slots=True)
class HunkRef:
    """One hunk (or a whole-file change for files without text hunks)."""

    index: int
    file: str
    header: str  # the @@ line, or "" for a whole-file change
    start: int
    end: int
    added: int
    removed: int
    file_index: int = 0
    pos: int = 0
    endpos: int = 0
    old_start: int = 0
    old_len: int = 0
    new_start: int = 0
    new_len: int = 0

    @property
    def whole_file(self) -> bool:
        return not self.header


class HunkList(Sequence[HunkRef]):
    """Hunks built on demand from their start offsets, so indexing a huge diff creates no per-hunk objects."""

    def __init__(self, text: str, files: list[FileRef], starts: list[int], whole: set[int]) -> None:
        self._text = text
        self._files = files
        self._starts = starts  # offset of each hunk's @@ line (or a whole-file change's body)
        self._whole = whole
        self._file_first = [f.hunks.start for f in files]  # type: ignore[attr-defined]
        self._lines: list[int] = []  # line numbers of starts, filled in order as needed
        self._cache: dict[int, HunkRef] = {}

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, i: int) -> HunkRef: ...
    @overload
    def __getitem__(self, i: slice) -> list[HunkRef]: ...

    def __getitem__(self, i: int | slice) -> HunkRef | list[HunkRef]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self._starts)
        if not 0 <= i < len(self._starts):
            raise IndexError(i)
        ref = self._cache.get(i)
        if ref is None:
            ref = self._cache[i] = self._build(i)
        return ref

    def _line(self, i: int) -> int:
        lines, starts, count = self._lines, self._starts, self._text.count
        while len(lines) <= i:
            k = len(lines)
            lines.append(count("\n", 0, starts[0]) if k == 0 else lines[-1] + count("\n", starts[k - 1], starts[k]))
        return lines[i]

    def _build(self, i: int) -> HunkRef:
        f = self._files[bisect.bisect_right(self._file_first, i) - 1]
        pos = self._starts[i]
        last = i + 1 >= f.hunks.stop  # type: ignore[attr-defined]
        endpos = f.endpos if last else self._starts[i + 1]
        line = f.start if i in self._whole else self._line(i)
        endline = f.end if last else self._line(i + 1)
        if i in self._whole:
            return HunkRef(i, f.path, "", f.start, f.end, 0, 0, f.index, pos, endpos)
        text = self._text
        eol = text.find("\n", pos, endpos)
        head = text[pos:eol if eol >= 0 else endpos]
        h = _HUNK_RE.match(head)
        assert h is not None
        return HunkRef(i, f.path, head, line, endline, text.count("\n+", pos, endpos), text.count("\n-", pos, endpos),
                       f.index, pos, endpos, int(h.group(1)), _count(h.group(2)), int(h.group(3)), _count(h.group(4)))


class DiffIndex:
    """File and hunk headers of a diff, found by regex scans; hunk details are built when asked for."""

    def __init__(self, text: str, files: list[FileRef], hunks: Sequence[HunkRef]) -> None:
        self.text = text
        self.files = files
        self.hunks = hunks
        self._parsed: dict[int, dict[int, "unidiff.Hunk"]] = {}

    @classmethod
    def from_text(cls, text: str) -> "DiffIndex":
        shifted = "\n" + text  # literal-led patterns are far faster than ^ with MULTILINE;
        # a match at offset p in `shifted` is a header starting at offset p in `text`
        file_pos = [m.start() for m in _FILE_RE.finditer(shifted)]
        hunk_pos = [m.start() for m in _HUNK_START_RE.finditer(shifted)]
        total_lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
        files: list[FileRef] = []
        starts: list[int] = []
        whole: set[int] = set()
        line = last = 0
        bounds = file_pos + [len(text)]
        for n, pos in enumerate(file_pos):
            line += text.count("\n", last, pos)
            last = pos
            nxt = bounds[n + 1]
            nxt_line = total_lines if n + 1 == len(file_pos) else line + text.count("\n", pos, nxt)
            f = _file_ref(text, n, pos, line, nxt, nxt_line)
            first = len(starts)
            lo, hi = bisect.bisect_left(hunk_pos, pos), bisect.bisect_left(hunk_pos, nxt)
            if lo == hi:  # binary, rename-only, mode change, empty file: one whole-file change
                whole.add(first)
                starts.append(f.body_pos)
            else:
                starts.extend(hunk_pos[lo:hi])
            f.hunks = range(first, len(starts))
            files.append(f)
        return cls(text, files, HunkList(text, files, starts, whole))

    def hunk_text(self, index: int) -> str:
        h = self.hunks[index]
        return self.text[h.pos:h.endpos]

    def file_header(self, file_index: int) -> str:
        f = self.files[file_index]
        return self.text[f.pos:f.body_pos]

    def file_of(self, hunk_index: int) -> FileRef:
        return self.files[self.hunks[hunk_index].file_index]

    def file_hunks(self, file_index: int) -> dict[int, "unidiff.Hunk"]:
        """One file's text hunks parsed by unidiff, by global hunk index (a whole-file change has none);
        PatchError when a hunk's lines do not add up to its header."""
        parsed = self._parsed.get(file_index)
        if parsed is None:
            from unidiff import PatchSet
            from unidiff.errors import UnidiffParseError

            f = self.files[file_index]
            text = [i for i in f.hunks if not self.hunks[i].whole_file]
            body = self.text[self.hunks[text[0]].pos:f.endpos] if text else ""
            try:  # the paths are this index's (git's quoting): unidiff reads the hunks only
                hunks: list[object] = list(PatchSet(f"--- a/f\n+++ b/f\n{body}")[0]) if text else []
            except (UnidiffParseError, IndexError) as exc:
                hunks = [exc]
            if len(hunks) != len(text):
                raise PatchError(f"The diff of {f.path} is malformed: {hunks[0] if hunks else 'no hunks'}.",
                                 "Refresh the diff and try again.")
            parsed = self._parsed[file_index] = dict(zip(text, hunks))  # type: ignore[arg-type]
        return parsed


def _count(group: str | None) -> int:
    return 1 if group is None else int(group)


def _file_ref(text: str, index: int, pos: int, line: int, nxt_pos: int, nxt_line: int) -> FileRef:
    """Read one file's extended header (a handful of lines before its first hunk)."""
    header_end = text.find("\n@@ ", pos, nxt_pos)
    header_end = nxt_pos if header_end < 0 else header_end + 1
    old = new = None
    status = "modified"
    binary = False
    first = True
    body_pos = header_end
    offset = pos
    for raw in split_lines(text[pos:header_end]):
        ln = raw.rstrip("\n")
        if first:
            first = False
            old, new = paths_from_git_line(ln[len("diff --git "):])
        elif ln.startswith("--- "):
            old = None if ln[4:].rstrip("\t") == "/dev/null" else strip_prefix(unquote(ln[4:].rstrip("\t")))
        elif ln.startswith("+++ "):
            new = None if ln[4:].rstrip("\t") == "/dev/null" else strip_prefix(unquote(ln[4:].rstrip("\t")))
        elif ln.startswith("new file mode"):
            status, old = "added", None
        elif ln.startswith("deleted file mode"):
            status, new = "deleted", None
        elif ln.startswith(("rename from ", "copy from ")):
            old = unquote(ln.split(" ", 2)[2])
            status = "renamed" if ln.startswith("rename") else "copied"
        elif ln.startswith(("rename to ", "copy to ")):
            new = unquote(ln.split(" ", 2)[2])
        elif ln.startswith(("GIT binary patch", "Binary files")):
            binary = True
            body_pos = min(body_pos, offset)
        offset += len(raw)
    if status == "added":
        old = None
    if status == "deleted":
        new = None
    path = new or old or ""
    return FileRef(index=index, path=path, old_path=old, new_path=new, status=status, binary=binary, start=line,
                   end=nxt_line, pos=pos, endpos=nxt_pos, body_pos=body_pos)


def select_hunks(diff: str, accepted: set[int] | None) -> str:
    """A patch with only the accepted hunks (global indices in diff order); None keeps everything.

    Each kept hunk's ``+start`` is recomputed so the patch applies exactly, without fuzz; the patch is the
    diff's own text (headers and hunks as git wrote them), the lengths come from unidiff's parse (from the
    header index when a hand-made hunk does not parse: git apply then says what is wrong with it).
    """
    if accepted is None:
        return diff
    idx = DiffIndex.from_text(diff)
    out: list[str] = []
    for f in idx.files:
        kept = [i for i in f.hunks if i in accepted]
        if not kept:
            continue
        out.append(idx.file_header(f.index))
        lengths = _lengths(idx, f) if len(kept) < len(f.hunks) else {}
        shift = 0  # lines the rejected hunks before this one would have added
        for i in f.hunks:
            h = idx.hunks[i]
            if h.whole_file:
                out.append(diff[h.pos:h.endpos])
                continue
            if i not in accepted:
                shift += lengths[i][2] - lengths[i][0]
                continue
            text = diff[h.pos:h.endpos]
            if shift:
                text = _restart(text, h, lengths[i][1] - shift)
            out.append(text)
    return "".join(out)


def _lengths(idx: DiffIndex, f: FileRef) -> dict[int, tuple[int, int, int]]:
    """(old length, new start, new length) of each text hunk of ``f``."""
    try:
        return {i: (h.source_length, h.target_start, h.target_length) for i, h in idx.file_hunks(f.index).items()}
    except PatchError:
        return {i: (idx.hunks[i].old_len, idx.hunks[i].new_start, idx.hunks[i].new_len) for i in f.hunks}


def _restart(hunk_text: str, h: HunkRef, new_start: int) -> str:
    m = _HUNK_RE.match(h.header)
    assert m is not None
    old = f"{m.group(1)}" + (f",{m.group(2)}" if m.group(2) is not None else "")
    new = f"{new_start}" + (f",{m.group(4)}" if m.group(4) is not None else "")
    line_end = hunk_text.find("\n")
    return f"@@ -{old} +{new} @@{m.group(5)}" + hunk_text[line_end:]


def describe_hunks(diff: str, indices: set[int]) -> str:
    """The given hunks as text for the model, e.g. to say which changes the developer rejected."""
    idx = DiffIndex.from_text(diff)
    parts: list[str] = []
    for i in sorted(indices):
        if not 0 <= i < len(idx.hunks):
            continue
        h = idx.hunks[i]
        f = idx.files[h.file_index]
        if h.whole_file:
            kind = "binary change" if f.binary else f"{f.status} file"
            parts.append(f"{f.path}: the whole {kind}")
        else:
            parts.append(f"{f.path}:\n{idx.hunk_text(i).rstrip(chr(10))}")
    return "\n\n".join(parts)


def files_in(diff: str) -> list[str]:
    """Paths a diff touches (new path; old path for deletions)."""
    return [f.path for f in DiffIndex.from_text(diff).files]
