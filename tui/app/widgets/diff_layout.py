"""Row layout for the diff viewer: which diff line each screen row shows, and line numbers.

The unified view shows diff line N on row N, so it needs no table at all.
The side-by-side view pairs removed and added runs; its table is two compact
int arrays built in one pass (a hunk that only adds or only removes is copied
in bulk). Old/new line numbers are counted on demand from anchors every 1,024
lines, so even a single million-line hunk pages without a full scan.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import repeat

from tui.core.diffs import DiffIndex, HunkRef

ADD, DEL, CTX, NOTE, HUNK, FILE, META = "add", "del", "ctx", "note", "hunk", "file", "meta"
_ANCHOR_BITS = 10


def _count(lines: list[str], prefix: str) -> int:
    return sum(map(str.startswith, lines, repeat(prefix)))


class Layout:
    """Classifies diff lines and maps rows to lines for one diff (unified and side by side)."""

    def __init__(self, lines: list[str], index: DiffIndex) -> None:
        self.lines = lines
        self.index = index
        self.hunks: list[HunkRef] = index.hunks
        self.hunk_starts = [h.start for h in index.hunks]
        self.file_starts = [f.start for f in index.files]
        self._anchors: dict[int, list[tuple[int, int, int]]] = {}
        self.sbs_left: array[int] | None = None
        self.sbs_right: array[int] | None = None
        self.sbs_hunk_rows: list[int] = []
        self.sbs_file_rows: list[int] = []

    # -- classification -------------------------------------------------------------------------
    def hunk_at_line(self, y: int) -> int:
        """The hunk containing diff line ``y``, or -1 (file headers, preamble)."""
        h = bisect_right(self.hunk_starts, y) - 1
        if h >= 0 and y < self.hunks[h].end:
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
        k = offset >> _ANCHOR_BITS
        anchors = self._anchors.setdefault(h, [(0, 0, 0)])
        lines = self.lines
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
        return hunk.old_start + offset - p - n, hunk.new_start + offset - m - n

    # -- side by side ---------------------------------------------------------------------------
    def build_side_by_side(self) -> None:
        """Pair removed/added runs; headers and notes get one spanning row (left == right)."""
        if self.sbs_left is not None:
            return
        left: array[int] = array("i")
        right: array[int] = array("i")
        hunk_rows = [0] * len(self.hunks)
        file_rows = [0] * len(self.file_starts)
        file_at = {start: i for i, start in enumerate(self.file_starts)}
        lines = self.lines

        def span(a: int, b: int) -> None:
            for k in range(a, b):
                if k in file_at:
                    file_rows[file_at[k]] = len(left)
            left.extend(range(a, b))
            right.extend(range(a, b))

        y = 0
        for hunk in self.hunks:
            span(y, hunk.start)
            hunk_rows[hunk.index] = len(left)
            if hunk.whole_file:
                span(hunk.start, hunk.end)
                y = hunk.end
                continue
            span(hunk.start, hunk.start + 1)
            body, end = hunk.start + 1, hunk.end
            size = end - body
            if hunk.added == size or hunk.removed == size:  # a new or deleted file: no pairing needed
                blank = array("i", repeat(-1, size))
                left.extend(blank if hunk.added == size else range(body, end))
                right.extend(range(body, end) if hunk.added == size else blank)
                y = end
                continue
            minus: list[int] = []
            plus: list[int] = []
            for k in range(body, end):
                c = lines[k][:1]
                if c == "-" and not plus:
                    minus.append(k)
                elif c == "+":
                    plus.append(k)
                else:
                    _flush(left, right, minus, plus)
                    if c == "-":
                        minus.append(k)
                    else:
                        left.append(k)
                        right.append(k)
            _flush(left, right, minus, plus)
            y = end
        span(y, len(lines))
        self.sbs_left, self.sbs_right = left, right
        self.sbs_hunk_rows, self.sbs_file_rows = hunk_rows, file_rows


def _flush(left: array[int], right: array[int], minus: list[int], plus: list[int]) -> None:
    if not minus and not plus:
        return
    n = max(len(minus), len(plus))
    left.extend(minus + [-1] * (n - len(minus)))
    right.extend(plus + [-1] * (n - len(plus)))
    minus.clear()
    plus.clear()
