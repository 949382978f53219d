"""One error base with a message written for the developer; one subclass per domain.

Front ends print ``str(err)`` (message plus hint) and exit with ``err.exit_code``;
nothing derived from DevagentError should ever reach the user as a traceback.
"""

from __future__ import annotations


class DevagentError(Exception):
    """Base for every error devagent reports to the developer."""

    exit_code: int = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n{self.hint}" if self.hint else self.message


class ConfigError(DevagentError):
    exit_code = 78  # EX_CONFIG


class RepoError(DevagentError):
    """Git problems: not a repo, bare repo, index.lock held, mid-merge, patch does not apply."""

    exit_code = 3


class NotARepoError(RepoError):
    pass


class RepoBusyError(RepoError):
    """index.lock held, or a merge/rebase/cherry-pick in progress: devagent will not write."""


class PatchError(RepoError):
    """A diff that does not apply."""


class ModelError(DevagentError):
    """Model server problems. ``retryable`` is decided by the one table in llm/errors.py."""

    exit_code = 4
    partial: str = ""  # text streamed before the failure (set by the backend)

    def __init__(self, message: str, hint: str = "", retryable: bool = False) -> None:
        super().__init__(message, hint)
        self.retryable = retryable


class ContextOverflow(ModelError):
    """The server counted more prompt tokens than its context holds (devagent's estimate was low).
    ``sent``/``size``: the server's own counts, when its message gave them."""

    def __init__(self, message: str, hint: str = "", sent: int | None = None, size: int | None = None) -> None:
        super().__init__(message, hint, retryable=False)
        self.sent, self.size = sent, size


class ServerUnreachable(ModelError):
    exit_code = 5


class UnknownModel(ModelError):
    exit_code = 6


class DownloadError(DevagentError):
    """A model download that failed, stalled or did not verify. What was received is kept when it can resume."""

    exit_code = 10

    def __init__(self, message: str, hint: str = "", resumable: bool = False) -> None:
        super().__init__(message, hint)
        self.resumable = resumable  # the connection dropped part way: trying again continues from there


class ToolError(DevagentError):
    """A tool call that cannot run (bad arguments, path refused, edit text not found).

    The agent sends the message back to the model; it is not fatal.
    """

    exit_code = 7


class PathRefused(ToolError):
    pass


class SandboxError(DevagentError):
    exit_code = 8


class PolicyDenied(DevagentError):
    exit_code = 9


class UserAbort(DevagentError):
    """The developer stopped the run (q, Ctrl+C, closed stdin)."""

    exit_code = 130
