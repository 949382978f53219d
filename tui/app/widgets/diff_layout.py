"""Row layout for the diff viewer: which diff line each screen row shows, and line numbers.

The unified view shows diff line N on row N, so it needs no table at all.
The side-by-side view pairs removed and added runs; its table is two compact
int arrays built in one pass (a hunk that only adds or only removes is copied
in bulk). Old/new line numbers are counted on demand from anchors every 1,024
lines, so even a single million-line hunk pages without a full scan; rows drawn
top to bottom continue from the previous row's count instead.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from itertools import repeat

from tui.git.diffs import DiffIndex, HunkRef

ADD, DEL, CTX, NOTE, HUNK, FILE, META = "add", "del", "ctx", "note", "hunk", "file", "meta"
_ANCHOR_BITS = 10
_STEP = 256  # a line this close below the last one numbered is counted on from it


def _count(lines: list[str], prefix: str) -> int:
    return sum(map(str.startswith, lines, repeat(prefix)))


class _Starts(Sequence[int]):
    """Hunk start lines, read from the (lazy) hunk list only where a bisect looks."""

    def __init__(self, hunks: Sequence[HunkRef]) -> None:
        self._hunks = hunks

    def __len__(self) -> int:
        return len(self._hunks)

    def __getitem__(self, i: int) -> int:  # type: ignore[override]
        return self._hunks[i].start


def file_counts(index: DiffIndex) -> list[tuple[int, int]]:
    """Added and removed lines per file, counted in the text (touching no per-hunk objects)."""
    text = index.text
    out = []
    for f in index.files:
        if f.binary or f.body_pos >= f.endpos:
            out.append((0, 0))
        else:
            out.append((text.count("\n+", f.body_pos, f.endpos), text.count("\n-", f.body_pos, f.endpos)))
    return out


def number_width(index: DiffIndex) -> int:
    """Digits needed for the largest line number (each file's last hunk reaches furthest)."""
    biggest = 1
    for f in index.files:
        if len(f.hunks):
            h = index.hunks[f.hunks[-1]]
            biggest = max(biggest, h.old_start + h.old_len, h.new_start + h.new_len)
    return len(str(biggest))


class Layout:
    """Classifies diff lines and maps rows to lines for one diff (unified and side by side)."""

    def __init__(self, lines: list[str], index: DiffIndex) -> None:
        self.lines = lines
        self.index = index
        self.hunks: Sequence[HunkRef] = index.hunks
        self.hunk_starts: Sequence[int] = _Starts(index.hunks)
        self.file_starts = [f.start for f in index.files]
        self._anchors: dict[int, list[tuple[int, int, int]]] = {}
        self._last = (-1, 0, 0)  # (hunk, start, end) of the last lookup
        # (hunk, line, counts of "+", "-" and "\\" lines before it) of the last two numbers() calls:
        # side by side asks for a left and a right line per row, each further down than last time
        self._recent: list[tuple[int, int, int, int, int]] = [(-1, 0, 0, 0, 0), (-1, 0, 0, 0, 0)]
        self.sbs_left: array[int] | None = None
        self.sbs_right: array[int] | None = None
        self.sbs_hunk_rows: list[int] = []
        self.counts = file_counts(index)
        self.sbs_file_rows: list[int] = []

    # -- rows (unified: one per diff line; side by side: once build_side_by_side ran) -------------
    def hunk_rows(self, side_by_side: bool) -> Sequence[int]:
        return self.sbs_hunk_rows if side_by_side else self.hunk_starts

    def file_rows(self, side_by_side: bool) -> list[int]:
        return self.sbs_file_rows if side_by_side else self.file_starts

    def row_count(self, side_by_side: bool) -> int:
        return len(self.sbs_left) if side_by_side and self.sbs_left is not None else len(self.lines)

    def row_line(self, row: int, side_by_side: bool) -> int:
        """The diff line a row shows (the left one in side-by-side change rows), -1 past the end."""
        if not 0 <= row < self.row_count(side_by_side):
            return -1
        if not side_by_side or self.sbs_left is None or self.sbs_right is None:
            return row
        left = self.sbs_left[row]
        return left if left >= 0 else self.sbs_right[row]

    def summary(self, accepted: int) -> str:
        """The view's subtitle: files, lines added and removed, hunks accepted."""
        added = sum(a for a, _ in self.counts)
        removed = sum(r for _, r in self.counts)
        files = len(self.index.files)
        return (f"{files} file{'s' if files != 1 else ''} · +{added} −{removed} · "
                f"{accepted}/{len(self.index.hunks)} hunks accepted")

    # -- classification -------------------------------------------------------------------------
    def hunk_at_line(self, y: int) -> int:
        """The hunk containing diff line ``y``, or -1 (file headers, preamble)."""
        h, start, end = self._last
        if start <= y < end:  # rows are drawn top to bottom: usually the same hunk as the last row
            return h
        h = bisect_right(self.hunk_starts, y) - 1
        if h >= 0:
            hunk = self.hunks[h]
            if y < hunk.end:
                self._last = (h, hunk.start, hunk.end)
                return h
        return -1

    def file_at_line(self, y: int) -> int:
        return max(0, bisect_right(self.file_starts, y) - 1) if self.file_starts else -1

    def kind(self, y: int, h: int) -> str:
        if h >= 0:
            hunk = self.hunks[h]
            if hunk.whole_file:
                return FILE if y == hunk.start else META
            if y == hunk.start:
                return HUNK
            c = self.lines[y][:1]
            return ADD if c == "+" else DEL if c == "-" else NOTE if c == "\\" else CTX
        f = bisect_right(self.file_starts, y) - 1
        return FILE if f >= 0 and self.file_starts[f] == y else META

    def numbers(self, y: int, h: int) -> tuple[int, int]:
        """Old and new line numbers of body line ``y`` of text hunk ``h`` (as if it were both kinds)."""
        hunk = self.hunks[h]
        body = hunk.start + 1
        offset = y - body
        lines = self.lines
        recent = self._recent
        used = -1
        for i, (rh, ry, *_counts) in enumerate(recent):
            if rh == h and ry <= y <= ry + _STEP and (used < 0 or ry > recent[used][1]):
                used = i
        if used >= 0:
            _h, start, p, m, n = recent[used]
        else:
            k = offset >> _ANCHOR_BITS
            anchors = self._anchors.setdefault(h, [(0, 0, 0)])
            while len(anchors) <= k:
                a = body + ((len(anchors) - 1) << _ANCHOR_BITS)
                chunk = lines[a:a + (1 << _ANCHOR_BITS)]
                p, m, n = anchors[-1]
                anchors.append((p + _count(chunk, "+"), m + _count(chunk, "-"), n + _count(chunk, "\\")))
            p, m, n = anchors[k]
            start = body + (k << _ANCHOR_BITS)
        if y > start:
            chunk = lines[start:y]
            p, m, n = p + _count(chunk, "+"), m + _count(chunk, "-"), n + _count(chunk, "\\")
        recent.pop(max(used, 0))  # replace the entry continued from, else the older one
        recent.append((h, y, p, m, n))
        return hunk.old_start + offset - p - n, hunk.new_start + offset - m - n

    # -- side by side ---------------------------------------------------------------------------
    def build_side_by_side(self) -> None:
        """Pair removed/added runs; headers and notes get one spanning row (left == right).

        One scan over the lines (no per-hunk objects); a hunk whose header says it only adds or only
        removes is copied in bulk.
        """
        if self.sbs_left is not None:
            return
        lines = self.lines
        n = len(lines)
        left: array[int] = array("i")
        right: array[int] = array("i")
        hunk_rows: list[int] = []
        file_rows: list[int] = []
        minus: list[int] = []
        plus: list[int] = []
        in_file = in_hunk = file_has_hunks = False
        y = 0
        while y < n:
            text = lines[y]
            if text.startswith("diff --git "):
                _flush(left, right, minus, plus)
                if in_file and not file_has_hunks:
                    hunk_rows.append(file_rows[-1])  # a whole-file change (binary, rename, mode)
                in_file, in_hunk, file_has_hunks = True, False, False
                file_rows.append(len(left))
            elif in_file and text.startswith("@@ -") and text[4:5].isdigit():
                _flush(left, right, minus, plus)
                in_hunk = file_has_hunks = True
                hunk_rows.append(len(left))
                m = _HEADER.match(text)
                old_len = 1 if m is None or m.group(2) is None else int(m.group(2))
                new_len = 1 if m is None or m.group(4) is None else int(m.group(4))
                if old_len == 0 or new_len == 0:  # only adds or only removes: no pairing needed
                    left.append(y)
                    right.append(y)
                    body = range(y + 1, min(n, y + 1 + (new_len or old_len)))
                    blank = array("i", repeat(-1, len(body)))
                    left.extend(blank if old_len == 0 else body)
                    right.extend(body if old_len == 0 else blank)
                    y += 1 + len(body)
                    continue
            elif in_hunk:
                c = text[:1]
                if c == "-" and not plus:
                    minus.append(y)
                    y += 1
                    continue
                if c == "+":
                    plus.append(y)
                    y += 1
                    continue
                _flush(left, right, minus, plus)
                if c == "-":
                    minus.append(y)
                    y += 1
                    continue
            left.append(y)
            right.append(y)
            y += 1
        _flush(left, right, minus, plus)
        if in_file and not file_has_hunks:
            hunk_rows.append(file_rows[-1])
        if len(hunk_rows) != len(self.hunks) or len(file_rows) != len(self.file_starts):
            hunk_rows, file_rows = self._rows_of_starts(left)
        self.sbs_left, self.sbs_right = left, right
        self.sbs_hunk_rows, self.sbs_file_rows = hunk_rows, file_rows

    def _rows_of_starts(self, left: array[int]) -> tuple[list[int], list[int]]:
        """Fallback for diffs the scan reads differently from DiffIndex: look the header rows up."""
        row_of = {line: row for row, line in enumerate(left) if line >= 0}
        hunk_rows = [row_of.get(self.hunks[i].start, 0) for i in range(len(self.hunks))]
        return hunk_rows, [row_of.get(start, 0) for start in self.file_starts]


_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _flush(left: array[int], right: array[int], minus: list[int], plus: list[int]) -> None:
    if not minus and not plus:
        return
    n = max(len(minus), len(plus))
    left.extend(minus + [-1] * (n - len(minus)))
    right.extend(plus + [-1] * (n - len(plus)))
    minus.clear()
    plus.clear()
