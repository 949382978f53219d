"""Did bubblewrap start the command at all? Its JSON status stream says so (``--json-status-fd``).

bwrap writes ``{"exit-code": N}`` only when the command itself ran and exited; a sandbox that
fails to set up (a mount it cannot make, user namespaces switched off since devagent started)
exits 1 without it. devagent then reports "the sandbox failed, nothing ran" instead of passing
bwrap's error off as the command's own exit code 1.
"""

from __future__ import annotations

import json
import os


class StatusPipe:
    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)

    def flags(self) -> list[str]:
        return ["--json-status-fd", str(self.write_fd)]

    def spawned(self) -> None:
        """The child has its copy: close ours, so the stream ends when bwrap's does."""
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def command_ran(self) -> bool:
        """True when bwrap reported the command's exit (read what is there; never blocks)."""
        data = b""
        try:
            while chunk := os.read(self.read_fd, 65536):
                data += chunk
        except (BlockingIOError, OSError):
            pass
        for line in data.decode("utf-8", "replace").splitlines():
            try:
                if "exit-code" in json.loads(line):
                    return True
            except ValueError:
                continue
        return False

    def close(self) -> None:
        self.spawned()
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1
