"""What every refactoring operation gives back, whichever engine made it (rope, LibCST, the TypeScript
language service, a tolerant data-file parser).

An operation never writes the work tree: it computes the new bytes of each file in a scratch copy, checks
them there, and returns an ``Outcome``. Front ends turn it into one ordinary multi-file edit proposal
(``tui/refactor/proposal.py``), reviewed hunk by hunk and applied after a checkpoint like any edit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tui.protocol.errors import DevagentError

Operation = Literal["rename", "move", "signature", "extract", "repair"]


class RefactorError(DevagentError):
    """The operation cannot be done exactly (ambiguous target, unknown name, a value the repair would have to
    guess, an engine that is missing or failed); the message says which and what to do. Nothing was changed."""

    exit_code = 2


@dataclass(frozen=True)
class FileChange:
    """One file's new content. ``before`` None: a new file; ``after`` None: the file is deleted."""

    path: str  # relative to the work tree, forward slashes
    before: bytes | None
    after: bytes | None


@dataclass(frozen=True)
class Check:
    """One check run on the scratch copy after the engine: ``name`` (parse, pyflakes, tsc, tests), whether it
    passed, and a line or two of what it found."""

    name: str
    ok: bool
    detail: str = ""


@dataclass
class Outcome:
    operation: Operation
    engine: str  # the engine and its version, shown with the proposal ("rope 1.13.0")
    summary: str  # one line: "rename slugify -> make_slug: 4 files, 11 places"
    changes: list[FileChange] = field(default_factory=list)  # the exact part: code, imports, exports, tests
    optional: list[FileChange] = field(default_factory=list)  # prose docs and other strings: a separate, optional part
    unhandled: list[str] = field(default_factory=list)  # "path:line: why" for each place it could not do exactly
    checks: list[Check] = field(default_factory=list)

    @property
    def files(self) -> list[str]:
        return [c.path for c in self.changes]
