"""Whether a POSIX extended regular expression (what `git grep -E` takes) is safe to run on the host.

glibc's regex engine, which git uses for -E, is polynomial for plain patterns but backtracks on
backreferences (a 60-character line took minutes with ``(.*)(.*)(.*)(.*)(.*)\\1\\2\\3\\4\\5x``), and it
compiles a counted repetition by copying its operand: ``a{1,32767}``, ``x{1,1000}{1,1000}`` or
``((a{1,100}){1,100}){1,100}`` never finished compiling (measured; git grep -P refused the nested ones at
once). The model's search patterns run without approval, so such patterns are refused before git starts.
"""

from __future__ import annotations

MAX_EXPANDED = 1000  # atoms after every counted repetition is copied out (a{1,1000}: 0.05 s; 2,500 nested: 1.7 s)


class _Scan:
    def __init__(self, pattern: str) -> None:
        self.s = pattern
        self.i = 0
        self.problem = ""

    def alternation(self, depth: int) -> int:
        total = self.sequence(depth)
        while self.i < len(self.s) and self.s[self.i] == "|":
            self.i += 1
            total += self.sequence(depth)
        return total

    def sequence(self, depth: int) -> int:
        total = 0
        while self.i < len(self.s) and self.s[self.i] not in "|)" and not self.problem:
            size = self.atom(depth)
            total += self.repeats(size)
        return total

    def atom(self, depth: int) -> int:
        c = self.s[self.i]
        self.i += 1
        if c == "\\" and self.i < len(self.s):
            if self.s[self.i] in "123456789":
                self.problem = f"it uses a backreference (\\{self.s[self.i]})"
            self.i += 1
            return 1
        if c == "[":
            self.bracket()
            return 1
        if c == "(":
            if depth > 50:
                self.problem = "its groups are nested too deeply"
                return 1
            inner = self.alternation(depth + 1)
            if self.i < len(self.s) and self.s[self.i] == ")":
                self.i += 1
            return max(inner, 1)
        return 1

    def bracket(self) -> None:
        """Skip a bracket expression: ``]`` first is literal; ``[:alpha:]``, ``[=a=]``, ``[.x.]`` inside."""
        if self.i < len(self.s) and self.s[self.i] == "^":
            self.i += 1
        if self.i < len(self.s) and self.s[self.i] == "]":
            self.i += 1
        while self.i < len(self.s) and self.s[self.i] != "]":
            if self.s[self.i] == "[" and self.i + 1 < len(self.s) and self.s[self.i + 1] in ":=.":
                end = self.s.find(self.s[self.i + 1] + "]", self.i + 2)
                self.i = end + 2 if end >= 0 else len(self.s)
            else:
                self.i += 1
        self.i += 1

    def repeats(self, size: int) -> int:
        while self.i < len(self.s) and not self.problem:
            c = self.s[self.i]
            if c in "*+?":
                self.i += 1
            elif c == "{":
                end = self.s.find("}", self.i)
                body = self.s[self.i + 1:end] if end > 0 else ""
                low, sep, high = body.partition(",")
                if not body or not (low.isdigit() or low == "") or not (high.isdigit() or high == ""):
                    return size  # not a count: glibc takes the brace literally
                top = int(high) if high else int(low or 0) + 1 if sep else int(low)
                size *= max(top, 1)
                self.i = end + 1
                if size > MAX_EXPANDED:
                    self.problem = f"its counted repetitions ({{...}}) expand to more than {MAX_EXPANDED} atoms"
            else:
                break
        return size


def pattern_problem(pattern: str) -> str:
    """Why ``pattern`` is refused for `git grep -E` on the host ('' when it is fine)."""
    scan = _Scan(pattern)
    while scan.i < len(pattern) and not scan.problem:
        if scan.alternation(0) > MAX_EXPANDED and not scan.problem:
            scan.problem = f"it expands to more than {MAX_EXPANDED} atoms"
        scan.i += 1  # an unmatched ")" (git reports it): go on after it
    return scan.problem
