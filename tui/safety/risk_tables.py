"""Program tables for risk labelling: which programs read, write, reach the network, need privilege.

Data only; tui/safety/risk.py applies it to parsed commands.
"""

from __future__ import annotations

import re

# Highest first: the first label present is a command's headline risk.
SEVERITY: tuple[str, ...] = (
    "unparseable", "privilege", "destructive", "shell-exec", "writes-outside", "network", "background",
    "writes-repo", "read-only",
)

READ_ONLY = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "tree", "pwd", "echo",
    "printf", "which", "type", "file", "stat", "du", "df", "diff", "cmp", "sort", "uniq", "cut", "tr", "nl",
    "basename", "dirname", "realpath", "readlink", "date", "true", "false", "test", "[", "whoami", "id", "uname",
    "hostname", "sha1sum", "sha256sum", "sha512sum", "md5sum", "cksum", "b2sum", "jq", "awk", "gawk", "mawk",
    "sed", "od", "xxd", "hexdump", "column", "fold", "fmt", "paste", "join", "comm", "expand",
    "unexpand", "tac", "rev", "strings", "seq", "sleep", "printenv", "locale", "bat", "batcat", "fd", "fdfind",
    "exa", "eza", "tokei", "wc", ":", "nproc", "free", "uptime", "ps", "lsof", "base64", "iconv",
})

# Programs that run their arguments as another command (the wrapped command is what gets labelled).
WRAPPERS = frozenset({
    "env", "command", "builtin", "exec", "nice", "nohup", "setsid", "timeout", "stdbuf", "ionice", "time",
    "xargs", "sudo", "doas", "unbuffer", "chronic", "busybox", "strace", "ltrace", "flock", "chrt", "taskset",
    "runuser", "pkexec", "firejail", "proxychains", "torsocks", "catchsegv", "nocache", "eatmydata",
})
# Wrapper options that take a value (so the value is not mistaken for the wrapped program).
WRAPPER_VALUE_OPTS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "ionice": frozenset({"-c", "-n", "-p", "-t"}),
    "xargs": frozenset({"-I", "-i", "-n", "-P", "-d", "-a", "-s", "-L", "-l", "-E", "-e", "--max-args",
                        "--max-procs", "--delimiter", "--arg-file", "--replace"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group"}),
    "doas": frozenset({"-u", "-C"}),
    "runuser": frozenset({"-u", "-g", "-G", "--user", "--group"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "flock": frozenset({"-w", "-E", "--timeout", "-c"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u"}),
    "taskset": frozenset(),
    "chrt": frozenset(),
}
WRAPPER_POSITIONAL_SKIP: dict[str, int] = {"timeout": 1, "flock": 1, "taskset": 1, "chrt": 1}

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "ash", "csh", "tcsh", "yash", "rbash"})
INTERPRETERS = frozenset({
    "python", "python2", "python3", "pypy", "pypy3", "perl", "ruby", "node", "nodejs", "php", "lua", "luajit",
    "tclsh", "Rscript", "deno", "bun", "osascript", "pwsh", "powershell", "julia", "irb", "jshell", "ghci",
})
INLINE_CODE_FLAGS = frozenset({"-c", "-e", "-E", "-r", "--eval", "--exec", "-p", "--print", "--command"})
EVALUATORS = frozenset({"eval", "source", ".", "watch", "script", "expect", "parallel"})
DECODERS = frozenset({"base64", "base32", "xxd", "openssl", "gzip", "gunzip", "zcat", "bzip2", "xz", "uudecode",
                      "rev", "tr", "printf", "echo"})

NETWORK = frozenset({
    "curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "ftp", "telnet", "ping", "ping6",
    "dig", "nslookup", "host", "http", "https", "xh", "aria2c", "lftp", "rclone", "mosh", "tftp", "whois",
    "nmap", "traceroute", "mtr", "gh", "hub", "s3cmd", "aws", "gcloud", "az", "kubectl", "helm",
})
# program -> subcommands that go to the network (None = any subcommand)
NETWORK_SUBCOMMANDS: dict[str, frozenset[str] | None] = {
    "git": frozenset({"clone", "fetch", "pull", "push", "ls-remote", "submodule", "send-email", "request-pull"}),
    "pip": frozenset({"install", "download", "wheel", "search", "index"}),
    "pip3": frozenset({"install", "download", "wheel", "search", "index"}),
    "pipx": frozenset({"install", "run", "upgrade", "inject"}),
    "npm": frozenset({"install", "i", "ci", "add", "update", "up", "publish", "exec", "view", "info", "audit",
                      "outdated", "login", "adduser", "init", "create"}),
    "npx": None, "pnpx": None, "bunx": None,
    "yarn": frozenset({"", "install", "add", "upgrade", "up", "publish", "dlx", "create", "info", "npm"}),
    "pnpm": frozenset({"install", "i", "add", "update", "up", "publish", "dlx", "create"}),
    "cargo": frozenset({"install", "fetch", "update", "publish", "search", "add", "login", "generate-lockfile"}),
    "go": frozenset({"get", "install", "mod"}),
    "gem": frozenset({"install", "update", "push", "fetch"}),
    "bundle": frozenset({"install", "update", ""}),
    "composer": frozenset({"install", "update", "require", "create-project"}),
    "apt": None, "apt-get": None, "yum": None, "dnf": None, "apk": None, "brew": None, "zypper": None,
    "pacman": None, "snap": None, "flatpak": None,
    "docker": frozenset({"pull", "push", "run", "build", "login", "search", "compose", "buildx"}),
    "podman": frozenset({"pull", "push", "run", "build", "login", "search"}),
    "conda": frozenset({"install", "create", "update", "search"}),
    "mamba": frozenset({"install", "create", "update", "search"}),
    "poetry": frozenset({"install", "add", "update", "lock", "publish", "self"}),
    "uv": frozenset({"pip", "sync", "add", "lock", "run", "tool", "venv", "python"}),
    "uvx": None,
    "rustup": None,
    "deno": frozenset({"install", "cache"}),
}
NETWORK_CODE_HINTS = ("socket", "urllib", "requests", "http.client", "httpx", "aiohttp", "urlopen",
                      "net.connect", "fetch(", "/dev/tcp/", "/dev/udp/", "LWP::", "IO::Socket", "Net::", "open-uri")

PRIVILEGE = frozenset({
    "sudo", "su", "doas", "pkexec", "runuser", "chroot", "nsenter", "unshare", "mount", "umount", "insmod",
    "rmmod", "modprobe", "systemctl", "service", "useradd", "userdel", "usermod", "passwd", "chpasswd", "visudo",
    "groupadd", "groupdel", "setcap", "mkfs", "fdisk", "parted", "sfdisk", "wipefs", "losetup", "iptables",
    "ip6tables", "nft", "shutdown", "reboot", "halt", "poweroff", "init", "telinit", "swapon", "swapoff",
    "setenforce", "sysctl", "capsh", "newgrp", "sg", "launchctl", "dscl", "kextload", "update-alternatives",
})
PERMISSION_PROGRAMS = frozenset({"chmod", "chown", "chgrp", "chattr", "setfacl"})

BACKGROUND = frozenset({"nohup", "setsid", "disown", "daemonize", "at", "batch", "systemd-run", "crontab",
                        "start-stop-daemon"})

# Programs whose positional arguments are files they write (or delete).
WRITES_ARGS = frozenset({"rm", "rmdir", "unlink", "shred", "truncate", "touch", "mkdir", "tee", "mv", "ln",
                         "mkfifo", "mknod", "srm", "wipe"})
WRITES_LAST_ARG = frozenset({"cp", "install", "rsync", "scp"})

# Variables a command may set for itself and still count as what it is (NAME=value prefixes, env NAME=value).
# Anything else (LD_PRELOAD, GIT_EXTERNAL_DIFF, BASH_ENV, PYTHONPATH, PATH...) can make it run other code.
SAFE_ASSIGN = re.compile(r"LC_\w+|LANG|LANGUAGE|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR(_FORCE)?|COLUMNS|LINES|TERM|CI|"
                         r"PYTHONDONTWRITEBYTECODE|PYTHONUNBUFFERED|PYTHONHASHSEED")
# Options of otherwise read-only git commands that write a file or run a program.
GIT_WRITES_OPTION = ("--output",)
GIT_RUNS_OPTION = {"grep": ("-O", "--open-files-in-pager"), "*": ("--ext-diff",)}

GIT_READ_ONLY = frozenset({
    "status", "diff", "log", "show", "blame", "annotate", "rev-parse", "ls-files", "ls-tree", "cat-file", "grep",
    "describe", "shortlog", "whatchanged", "rev-list", "name-rev", "merge-base", "count-objects", "fsck",
    "check-ignore", "check-attr", "var", "help", "version", "for-each-ref", "show-ref", "verify-commit",
    "verify-tag", "cherry", "range-diff", "show-branch",
})
