"""The Python refactoring worker: a child process that reads one request (JSON on stdin), changes the throwaway
copy with rope and LibCST, checks what it changed (parse, pyflakes), and writes one answer (JSON on stdout).

It is started by tui/refactor/py.py with ``python -I``, no repository on ``sys.path``, limits on time and memory,
inside bubblewrap when it is there. Before it reads any repository file it refuses, for the rest of its life,
to import a module from the copy, to start a process, to open a socket or to load a native library: rope's
analysis only reads source, and this keeps it so whatever a repository contains.
"""

from __future__ import annotations

from tui.safety.parsing import loads_json
import json
import os
import sys
from pathlib import Path
from typing import Any

_DENIED = ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
           "pty.spawn", "socket.connect", "socket.bind", "socket.getaddrinfo", "ctypes.dlopen", "webbrowser.open")


class _RefuseCopy:
    """A meta-path finder that refuses any module whose source lies in the copy or in the repository."""

    def __init__(self, *roots: str) -> None:
        self.roots = [os.path.realpath(r) for r in roots if r]
        self.busy = False

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if self.busy:
            return None
        self.busy = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    origin = os.path.realpath(spec.origin or "") if spec.origin else ""
                    locations = [os.path.realpath(p) for p in (spec.submodule_search_locations or [])]
                    if any(p == root or p.startswith(root + os.sep) for p in [origin, *locations] if p
                           for root in self.roots):
                        raise ImportError(f"refused: {name} would be imported from the repository")
                    return None
        finally:
            self.busy = False
        return None


def guard(*roots: str) -> None:
    """Nothing from the copy (or the repository) is imported; nothing is started, connected to or loaded
    natively."""
    sys.meta_path.insert(0, _RefuseCopy(*roots))

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event.startswith(_DENIED):
            raise RuntimeError(f"refused in the refactoring worker: {event}")

    sys.addaudithook(hook)


def _preload() -> str:
    """Import everything the operations use before the guard, so no import happens while repo files are read."""
    import rope
    import rope.base.project  # noqa: F401
    import rope.refactor.change_signature  # noqa: F401
    import rope.refactor.extract  # noqa: F401
    import rope.refactor.move  # noqa: F401
    import rope.refactor.rename  # noqa: F401
    import libcst  # noqa: F401
    import pyflakes.api  # noqa: F401

    from tui.refactor import pyops  # noqa: F401

    return f"rope {rope.VERSION}"


def main() -> int:
    request = loads_json(sys.stdin.read(), "the request")
    root = request["root"]
    try:
        engine = _preload()
    except ImportError as err:
        json.dump({"ok": False, "error": f"the Python refactoring engine is not installed ({err.name})",
                   "hint": "pip install 'rope>=1.13' 'libcst>=1.0' (devagent's own dependencies)"}, sys.stdout)
        return 0
    guard(root, request.get("repo") or "")
    sys.setrecursionlimit(4000)
    from tui.refactor import pyops

    try:
        answer = pyops.run(Path(root), request["op"], request.get("args") or {}, request.get("skip") or [])
        answer.setdefault("engine", engine)
    except pyops.OpError as err:
        answer = {"ok": False, "error": str(err), "hint": err.hint}
    except RecursionError:
        answer = {"ok": False, "error": "the code is too deeply nested for the refactoring engine to analyse",
                  "hint": "Make the change by hand, or in a smaller file."}
    except MemoryError:
        answer = {"ok": False, "error": "the refactoring engine ran out of memory", "hint": ""}
    except Exception as err:  # noqa: BLE001 - rope's and LibCST's own errors, said in one line
        answer = {"ok": False, "error": f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}",
                  "hint": "The engine could not do this change exactly; nothing was changed."}
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
