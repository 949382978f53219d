"""The bubblewrap profile, secret masks, the allowed environment and sandbox detection.

Kept apart from the runner so `devagent doctor`, the benchmark and the tests can
build and inspect exactly the argv a command will run under.
"""

from __future__ import annotations

import os
import pwd
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tui.git.facade import GitRepo
from tui.config import Config
from tui.protocol.errors import ConfigError
from tui.safety import hostpath

# Directories/files under a home directory that commands never see (tmpfs for dirs, /dev/null for files).
SECRET_PATHS: tuple[str, ...] = (
    ".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials", ".pypirc", ".npmrc", ".yarnrc", ".docker",
    ".kube", ".azure", ".config/gh", ".config/gcloud", ".config/hub", ".config/git/credentials",
    ".config/devagent", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".terraform.d",
    ".vault-token", ".password-store", ".local/share/keyrings", ".mozilla", ".config/google-chrome",
    ".config/chromium", ".bash_history", ".zsh_history", ".python_history", ".psql_history", ".mysql_history",
    ".pgpass", ".my.cnf", ".s3cfg", ".boto", ".config/rclone", ".ollama/id_ed25519",
)
ENV_ALLOWED: tuple[str, ...] = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ")
# Where toolchains live. HOME is replaced inside the sandbox, so tools that find themselves through it
# (pyenv shims, rustup, go modules, nvm) are pointed at the real, read-only locations instead.
ENV_TOOLCHAIN: tuple[str, ...] = (
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_ROOT", "PYENV_VERSION", "CARGO_HOME", "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN", "GOPATH", "GOROOT", "GOMODCACHE", "GOFLAGS", "NVM_DIR", "NVM_BIN", "NODE_PATH", "JAVA_HOME",
    "GEM_HOME", "GEM_PATH", "RBENV_ROOT", "ASDF_DIR", "ASDF_DATA_DIR", "PNPM_HOME", "DENO_DIR", "BUN_INSTALL",
)
TOOLCHAIN_HOME_DIRS: dict[str, str] = {
    "PYENV_ROOT": ".pyenv", "CARGO_HOME": ".cargo", "RUSTUP_HOME": ".rustup", "GOPATH": "go", "RBENV_ROOT": ".rbenv",
    "NVM_DIR": ".nvm", "ASDF_DATA_DIR": ".asdf",
}
SANDBOX_HOME = "/tmp/.devagent-home"  # on the sandbox's private /tmp
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
MARKER_VAR = "DEVAGENT_RUN"  # set on every command, so leftovers can be found in /proc


@dataclass(frozen=True)
class SandboxInfo:
    kind: str  # "bwrap" | "none"
    active: bool
    detail: str


_detected: dict[tuple[str, str], SandboxInfo] = {}


def _probe(bwrap: str) -> str:
    """Run a trivial command under the real profile; '' when it works, else why not."""
    true = hostpath.which("true") or "/bin/true"
    probe_dir = Path(os.path.realpath("/"))  # binds only "/" again: no repo needed for the probe
    argv = bwrap_argv(bwrap, probe_dir, [], network=False, env={"PATH": DEFAULT_PATH}, cwd=Path("/"),
                      masks=[], writable=[], repo_bind=False) + [true]
    try:
        out = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=15)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{bwrap} could not run a trivial command ({exc})"
    if out.returncode != 0:
        err = (out.stderr or out.stdout).strip().splitlines()
        return f"{bwrap} failed a trivial command: {err[-1] if err else f'exit {out.returncode}'}"
    return ""


def detect(config: Config) -> SandboxInfo:
    """bwrap exists AND runs a trivial command under the full profile. Cached per process."""
    mode = config.sandbox.mode
    if mode not in ("auto", "bwrap", "none"):
        raise ConfigError(f"sandbox.mode = {mode!r} is not one of auto, bwrap, none",
                          "An unknown mode is an error, never a fallback to no sandbox.")
    bwrap = hostpath.which("bwrap") or ""
    key = (mode, bwrap)
    if key in _detected:
        return _detected[key]
    if mode == "none":
        info = SandboxInfo("none", False, "SANDBOX OFF: sandbox.mode = \"none\" in your config. Commands run "
                           "directly on your machine; every command needs your approval.")
    elif not bwrap:
        info = SandboxInfo("none", False, "SANDBOX OFF: bubblewrap (bwrap) is not installed. Commands run directly "
                           "on your machine; every command needs your approval. Install it: apt-get install "
                           "bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora).")
    else:
        problem = _probe(bwrap)
        if problem:
            info = SandboxInfo("none", False, f"SANDBOX OFF: {problem}. Commands run directly on your machine; "
                               "every command needs your approval. Unprivileged user namespaces may be disabled "
                               "(sysctl kernel.unprivileged_userns_clone / apparmor_restrict_unprivileged_userns).")
        else:
            info = SandboxInfo("bwrap", True, f"bubblewrap ({bwrap}): repo writable, .git and the rest of the "
                               "system read-only, private /tmp, no network unless approved, secrets masked")
    _detected[key] = info
    return info


def home_dirs() -> list[Path]:
    """$HOME and the account's home from the password database (they differ under sudo or in tests)."""
    homes: list[Path] = []
    for home in (os.environ.get("HOME", ""), _pw_home()):
        if home and Path(home).is_absolute() and Path(home) not in homes:
            homes.append(Path(home))
    return homes


def _pw_home() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return ""


def secret_masks(config: Config, base: Path | None = None) -> list[tuple[str, bool]]:
    """(path, is_dir) for every existing secret path, plus its real path when it is a symlink.

    Relative ``sandbox.mask`` entries are relative to ``base`` (the repo), not to wherever devagent started.
    """
    candidates: list[str] = []
    for home in home_dirs():
        candidates += [str(home / name) for name in SECRET_PATHS]
    candidates += [os.path.join(base or os.getcwd(), os.path.expanduser(p)) for p in config.sandbox.mask]
    masks: list[tuple[str, bool]] = []
    seen: set[str] = set()
    for path in candidates:
        for variant in (os.path.abspath(path), os.path.realpath(path)):
            if variant in seen or not os.path.exists(variant):
                continue
            seen.add(variant)
            masks.append((variant, os.path.isdir(variant)))
    return masks


def git_dirs(repo: Path) -> list[str]:
    """The repo's git dir and common dir (differ for worktrees/submodules) plus a `.git` file, all read-only."""
    found: list[str] = []
    dotgit = repo / ".git"
    if os.path.lexists(dotgit):
        found.append(str(dotgit))
    try:
        out = GitRepo(repo, timeout=10).run_text("rev-parse", "--git-dir", "--git-common-dir")
    except (OSError, subprocess.TimeoutExpired):
        return found
    if out.returncode == 0:
        for line in out.stdout.splitlines():
            path = os.path.realpath(os.path.join(repo, line.strip()))
            if line.strip() and os.path.isdir(path) and path not in found:
                found.append(path)
    return found + [p for p in _submodule_dotgits(repo) if p not in found]


def _submodule_dotgits(repo: Path) -> list[str]:
    """Submodules' `.git` files inside the work tree (their git dirs live under the read-only .git/modules)."""
    if not (repo / ".gitmodules").is_file():
        return []
    try:
        out = GitRepo(repo, timeout=10).run_text("config", "--file", ".gitmodules", "--get-regexp",
                                                 r"^submodule\..*\.path$")
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = []
    for line in out.stdout.splitlines():
        rel = line.split(" ", 1)[1] if " " in line else ""
        dotgit = os.path.join(repo, rel, ".git")
        if rel and os.path.lexists(dotgit) and not os.path.islink(dotgit):
            real = os.path.realpath(dotgit)
            if os.path.commonpath([real, os.path.realpath(repo)]) == os.path.realpath(repo):
                found.append(dotgit)
    return found


def child_env(config: Config, home: str, marker: str, extra: dict[str, str] | None) -> dict[str, str]:
    """The allow-listed environment every command gets (in both sandbox modes)."""
    env: dict[str, str] = {}
    for name in (*ENV_ALLOWED, *ENV_TOOLCHAIN, *config.sandbox.env):
        if name in os.environ:
            env[name] = os.environ[name]
    env["PATH"] = hostpath.command_path() or DEFAULT_PATH  # the developer's own, inside the sandbox
    real_home = os.environ.get("HOME", "")
    for name, sub in TOOLCHAIN_HOME_DIRS.items():
        if name not in env and real_home and os.path.isdir(os.path.join(real_home, sub)):
            env[name] = os.path.join(real_home, sub)
    env.update({"HOME": home, "GIT_TERMINAL_PROMPT": "0", "TMPDIR": "/tmp", "PAGER": "cat", "GIT_PAGER": "cat",
                MARKER_VAR: marker})
    if extra:
        env.update(extra)
    return env


def bwrap_argv(bwrap: str, repo: Path, gitdirs: list[str], *, network: bool, env: dict[str, str], cwd: Path,
               masks: list[tuple[str, bool]], writable: list[str], repo_bind: bool = True,
               ro_binds: list[str] | None = None, after_repo: list[str] | None = None,
               view: Path | None = None, tmp_mb: int = 0) -> list[str]:
    """The tested profile from DESIGN.md, in its order (--tmpfs /tmp must precede the repo bind).

    ``ro_binds``: interpreters/toolchains the private /tmp would hide (projenv.hidden_roots); mounted before
    the repo (which may lie inside one) and before the masks (which must win). ``after_repo``: read-only binds
    mounted after the repo and the writable paths (a work tree beside a scratch copy), before the git dirs and masks.
    ``view``: a throwaway copy of the work tree bound at the repo's path instead of the tree itself (candidates are
    tried there; the real tree's ignored directories the checks need come in ``after_repo``, read-only).
    ``tmp_mb``: the private /tmp's size (its pages are memory: limits.memory_mb).
    """
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-all"]
    if network:
        argv.append("--share-net")
    argv += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev",
             "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
             *(["--size", str(tmp_mb * 1024 * 1024)] if tmp_mb else []), "--tmpfs", "/tmp", "--dir", SANDBOX_HOME]
    for path in ro_binds or ():
        argv += ["--ro-bind", path, path]
    if repo_bind:
        argv += ["--bind", str(view or repo), str(repo)]
    for path in writable:
        argv += ["--bind", path, path]
    for path in after_repo or ():
        argv += ["--ro-bind", path, path]
    for path in gitdirs:
        argv += ["--ro-bind", path, path]
    for path, is_dir in masks:
        argv += ["--tmpfs", path] if is_dir else ["--ro-bind", "/dev/null", path]
    argv.append("--clearenv")
    for name, value in env.items():
        argv += ["--setenv", name, value]
    argv += ["--chdir", str(cwd), "--"]
    return argv
