"""Whether a JavaScript edit stops its file from parsing: ``node --check`` in a throwaway sandbox.

Python edits are parsed in-process (``ast``) before they are proposed; a JS edit had no such check, so a tape test
with a quote left open (``'the string 'a''``) was written, and the whole test file stopped loading. ``node
--check`` only parses, never runs, the text; still, the text is the model's proposal (hostile input), so it
runs inside bubblewrap (no network, the file bound read-only, a private /tmp) with a cleared environment, and not
at all without bubblewrap or node. Only a file that parsed before the edit is judged (an ES module saved as .js is
tried as .mjs too).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from tui.safety import hostpath

SUFFIXES = (".js", ".cjs", ".mjs")
TIMEOUT = 5.0
MAX_BYTES = 2_000_000
_WHERE = re.compile(r":(\d+)\n(.*)\n")
_ERROR = re.compile(r"^(SyntaxError: .*)$", re.M)
_ESM = re.compile(r"^\s*(?:import\s+[\w{*'\"]|export\s+(?:default|const|let|var|function|class|async|\{|\*))", re.M)


def _tools(repo: Path) -> tuple[str, str] | None:
    node, bwrap = hostpath.which("node"), hostpath.which("bwrap")
    if not node or not bwrap:
        return None
    try:
        real = Path(node).resolve()
        if real.is_relative_to(repo.resolve()):  # a node the repo itself put on PATH is not run
            return None
    except OSError:
        return None
    return str(real), bwrap


def _check(tools: tuple[str, str], text: str, suffix: str) -> str | None:
    """'' when ``text`` parses, the error when it does not, None when the check could not run."""
    node, bwrap = tools
    with tempfile.TemporaryDirectory(prefix="devagent-jscheck-") as tmp:
        path = Path(tmp) / f"edit{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                "--ro-bind", str(path), f"/tmp/edit{suffix}", "--unshare-all", "--die-with-parent",
                "--new-session", "--chdir", "/tmp", node, "--check", f"/tmp/edit{suffix}"]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                                  env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"})
        except (OSError, subprocess.SubprocessError):
            return None
    if done.returncode == 0:
        return ""
    error = _ERROR.search(done.stderr)
    if not error:
        return None  # not a syntax error (the sandbox or node failed): no judgement
    where = _WHERE.search(done.stderr)
    line = f"line {where.group(1)}: " if where else ""
    shown = f": {where.group(2).strip()[:100]}" if where and where.group(2).strip() else ""
    return f"{line}{error.group(1)}{shown}"


def breaks_js(repo: Path, rel: str, old: str | None, new: str) -> str:
    """The syntax error ``new`` has when ``old`` had none ('' when it parses, when ``old`` did not either, or when
    no check can run)."""
    if not rel.endswith(SUFFIXES) or len(new) > MAX_BYTES:
        return ""
    tools = _tools(repo)
    if tools is None:
        return ""
    # node --check passes a .js file with ES module syntax whatever follows (v20): such a file is checked as .mjs.
    module = rel.endswith(".mjs") or rel.endswith(".js") and bool(_ESM.search(new) or _ESM.search(old or ""))
    suffix = ".mjs" if module else Path(rel).suffix
    if old is not None and _check(tools, old, suffix) != "":
        return ""  # it did not parse before either: not this edit's doing
    return _check(tools, new, suffix) or ""
