"""Build the exact command for a suite (+ selection, + report flags), run it in the sandbox, parse the result."""

from __future__ import annotations

import os
import shlex
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from tui.protocol.errors import PathRefused, ToolError
from tui.safety.paths import read_bounded, remove_file
from tui.testing import parsers
from tui.testing.diagnose import diagnose
from tui.testing.model import Suite, TestRun
from tui.testing.unittest_parse import parse_unittest, unittest_target

if TYPE_CHECKING:
    from tui.config import Config

TMP_DIR = ".devagent-tmp"  # reports go inside the repo: /tmp is private to the sandbox, .git is read-only
TAIL_CHARS = 4000
REPORT_LIMIT = 50_000_000  # bytes of a runner's report read back


class Runner(Protocol):
    """What tui.sandbox.runner.Sandbox offers (the one command runner)."""

    async def run(self, command: str | list[str], *, timeout: float | None = None, idle_timeout: float | None = None,
                  network: bool = False, on_output: Callable[[str], None] | None = None, cwd: Path | None = None,
                  env: dict[str, str] | None = None) -> Any: ...


@dataclass
class Plan:
    """A runnable command for one suite: what the proposal shows is exactly ``command``."""

    suite: Suite
    argv: list[str]
    selection: str = ""
    report: str = ""  # absolute path of the machine-readable report, if the runner writes one
    env: dict[str, str] = field(default_factory=dict)
    shell: bool = False

    @property
    def command(self) -> str:
        return self.argv[0] if self.shell else shlex.join(self.argv)

    def to_dict(self) -> dict[str, Any]:
        return {"suite": self.suite.to_dict(), "argv": self.argv, "selection": self.selection,
                "report": self.report, "env": self.env, "shell": self.shell}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Plan":
        s = dict(data["suite"])
        s["cwd"] = Path(s["cwd"])
        return cls(Suite(**s), list(data["argv"]), data.get("selection", ""), data.get("report", ""),
                   dict(data.get("env", {})), bool(data.get("shell", False)))


def _is_path_like(selection: str, cwd: Path) -> bool:
    head = selection.split("::", 1)[0]
    return "::" in selection or "/" in head or (cwd / head).exists() or head.endswith(
        (".py", ".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs", ".go", ".rs"))


def _relative_to_suite(selection: str, cwd: Path, repo: Path) -> str:
    """A repo-relative file in a monorepo suite becomes relative to the suite's directory."""
    head, sep, rest = selection.partition("::")
    if cwd == repo or (cwd / head).exists() or not (repo / head).exists():
        return selection
    try:
        rel = (repo / head).resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return selection
    return rel + sep + rest


def _rust_env() -> dict[str, str]:
    """rustup finds its toolchains through HOME, which the sandbox replaces: name them explicitly."""
    home = Path.home()
    env: dict[str, str] = {}
    for var, default in (("RUSTUP_HOME", home / ".rustup"), ("CARGO_HOME", home / ".cargo")):
        value = os.environ.get(var) or (str(default) if default.is_dir() else "")
        if value:
            env[var] = value
    return env


def _report_path(repo: Path, suffix: str) -> str:
    return str(repo / TMP_DIR / f"report-{uuid.uuid4().hex[:8]}{suffix}")


def _shown(report: str, cwd: Path) -> str:
    """The report path as the command shows it: relative to where the command runs."""
    return os.path.relpath(report, cwd)


def plan_run(suite: Suite, selection: str = "", repo: Path | None = None) -> Plan:
    """The command to run ``suite`` restricted to ``selection`` (a file, a test id, or a name/-k expression)."""
    repo = repo or suite.cwd
    selection = selection.strip()
    if selection.startswith("-"):
        raise ToolError(f"selection {selection!r} looks like an option", "Give a file, a test id or a name pattern.")
    argv = list(suite.argv)
    if suite.manager == "npm" and argv[:2] == ["npm", "test"]:
        # Only the test script: its pretest/posttest hooks (a linter, a README check, `npm audit` over the
        # network) are not the tests, and one missing tool there reported every test as not run.
        argv.insert(2, "--ignore-scripts")
    if suite.shell:
        command = argv[0] + (" " + shlex.quote(selection) if selection else "")
        return Plan(suite, [command], selection, shell=True)
    path_like = bool(selection) and _is_path_like(selection, suite.cwd)
    if path_like:
        selection = _relative_to_suite(selection, suite.cwd, repo)
    if suite.kind == "pytest":
        report = _report_path(repo, ".xml")
        argv += ["-o", "junit_family=xunit1", f"--junitxml={_shown(report, suite.cwd)}"]
        if selection:
            argv += [selection] if path_like else ["-k", selection]
        return Plan(suite, argv, selection, report, {"PYTHONDONTWRITEBYTECODE": "1"})
    if suite.kind == "unittest":
        if selection and path_like and "discover" in argv and "-t" not in argv:
            # the tests' directory is not a package (tests/ without __init__.py): tests.test_x cannot be imported,
            # so the file is found the way the whole suite is, by discovery with its name as the pattern
            head, _, rest = selection.partition("::")
            kept = [a for i, a in enumerate(argv) if a != "-p" and (i == 0 or argv[i - 1] != "-p")]
            names = [p for p in rest.split("::") if p]
            argv = kept + ["-p", Path(head).name] + (["-k", ".".join(names)] if names else [])
        elif selection:
            argv = argv[:3] + (["-v", unittest_target(selection)] if path_like else argv[3:] + ["-k", selection])
        return Plan(suite, argv, selection, env={"PYTHONDONTWRITEBYTECODE": "1"})
    if suite.kind == "node":
        rest = [a for a in argv[1:] if a != "--test" and not a.startswith("--test-reporter")]
        opts = [a for a in rest if a.startswith("-")]
        files = [a for a in rest if not a.startswith("-")]
        if selection:
            files = [selection] if path_like else files
            opts += [] if path_like else [f"--test-name-pattern={selection}"]
        return Plan(suite, [argv[0], "--test", "--test-reporter=tap", *opts, *files], selection)
    if suite.kind in ("jest", "vitest"):
        report = _report_path(repo, ".json")
        if suite.kind == "jest":
            flags = ["--json", f"--outputFile={_shown(report, suite.cwd)}", "--testLocationInResults"]
        else:
            flags = ["--run", "--reporter=default", "--reporter=json", f"--outputFile.json={_shown(report, suite.cwd)}"]
        if selection:
            flags += [selection] if path_like else ["-t", selection]
        sep = ["--"] if suite.manager == "npm" else []
        return Plan(suite, argv + sep + flags, selection, report, {"CI": "1"})
    if suite.kind == "go":
        argv = argv[:2] + ["-json"] + argv[2:]
        if selection:
            if path_like:
                argv[-1] = selection if selection.startswith(".") else "./" + selection
            else:
                argv += ["-run", selection]
        return Plan(suite, argv, selection)
    if suite.kind == "cargo":
        return Plan(suite, argv + ([selection] if selection else []), selection, env=_rust_env())
    if selection and suite.kind == "make":
        raise ToolError("a Makefile test target cannot run a subset of tests",
                        "Run the whole suite, or set tests.command in .devagent.toml.")
    if selection and suite.kind == "mocha":  # mocha takes a file as it is, a name with --grep
        return Plan(suite, argv + (["--"] if suite.manager == "npm" else []) +
                    ([selection] if path_like else ["--grep", selection]), selection)
    if selection and suite.kind == "npm":
        argv += (["--"] if suite.manager == "npm" else []) + [selection]
    elif selection:
        argv += [selection]
    return Plan(suite, argv, selection)


def parse_output(plan: Plan, output: str, repo: Path, files: Path | None = None) -> parsers.Parsed:
    """Structured report first, then the runner's stdout format, then the summary line. ``files``: where the run's
    files landed when it ran in a throwaway copy seen at the repo's path (the report is read from there)."""
    base = plan.suite.cwd
    report_text = ""
    if plan.report:  # written by the sandboxed run: it may be a symlink or a FIFO by now
        root = files or repo
        try:
            report_text = read_bounded(root, os.path.relpath(plan.report, repo), REPORT_LIMIT)[0].decode(
                "utf-8", "replace")
        except (OSError, PathRefused):
            report_text = ""
    kind = plan.suite.kind
    parsed = parsers.Parsed()
    if kind == "pytest" and report_text:
        parsed = parsers.pytest_totals(output, parsers.parse_junit(report_text, base, repo))
    elif kind == "unittest":
        parsed = parse_unittest(output, base, repo, plan.suite.start or ".")
    elif kind in ("jest", "vitest") and report_text:
        parsed = parsers.parse_jest_json(report_text, base, repo, f"{kind}-json")
    elif kind == "mocha":
        parsed = parsers.parse_mocha(output, base, repo)
    elif kind == "go":
        parsed = parsers.parse_go_json(output, base, repo)
    elif kind == "cargo":
        parsed = parsers.parse_cargo(output, base, repo)
    unread = parsed.unread
    if not parsed.found and ("TAP version" in output or kind == "node"):
        parsed = parsers.parse_tap(output, base, repo)
    if not parsed.found:
        parsed = parsers.parse_summary(output)
    parsed.unread = unread
    return parsed


def cleanup(plan: Plan, repo: Path, files: Path | None = None) -> None:
    root = files or repo
    if plan.report:
        try:
            remove_file(root, os.path.relpath(plan.report, repo))
        except PathRefused:
            pass  # .devagent-tmp became a symlink: nothing of devagent's is left to remove
    tmp = root / TMP_DIR
    try:
        tmp.rmdir()
    except OSError:
        pass


NO_INTERPRETER_HINT = ("Create the project's environment (python3 -m venv .venv, then install the project and its "
                       "test tools into it), start devagent with it activated, or set project.python. "
                       "Tell the developer.")


NO_MANAGER_HINT = ("Install the package manager the project names (corepack enable, or its installer), or set "
                   "tests.command in your user config to a command that runs here. Tell the developer.")


def why_not_started(suite: Suite) -> tuple[str, str]:
    """(problem, hint) for a suite whose runner cannot start here, known before running."""
    if suite.kind in ("pytest", "unittest"):
        return f"no Python interpreter found ({suite.missing})", NO_INTERPRETER_HINT
    return suite.missing, NO_MANAGER_HINT


def not_started(plan: Plan) -> TestRun:
    """The run that could not start (no interpreter, no package manager that can run the scripts): said so,
    nothing run (exit 127, like a shell)."""
    problem, hint = why_not_started(plan.suite)
    return TestRun(suite=plan.suite.name, exit_code=127, command=plan.command, parsed_from="none",
                   status="not_started", problem=problem, hint=hint, interpreter=plan.suite.interpreter)


def make_runner(repo: Path, config: "Config") -> Runner:
    from tui.sandbox.runner import Sandbox  # the one runner; imported late (bwrap probe)

    return Sandbox(repo, config)


async def run_plan(plan: Plan, repo: Path, config: "Config", *, runner: Runner | None = None,
                   on_output: Callable[[str], None] | None = None, timeout: float | None = None,
                   command: str | None = None) -> TestRun:
    """Run an approved plan (``command``: the developer's edited form, run through the shell)."""
    repo = Path(os.path.realpath(repo))
    if plan.suite.missing:
        return not_started(plan)
    runner = runner or make_runner(repo, config)
    files = getattr(runner, "view", None)  # a throwaway copy the runner shows at the repo's path
    if plan.report:
        ((files or repo) / TMP_DIR).mkdir(exist_ok=True)
    to_run: str | list[str] = command if command is not None else (plan.argv[0] if plan.shell else plan.argv)
    env = dict(plan.env) or None
    try:
        result = await runner.run(to_run, timeout=timeout or config.limits.command_timeout * 5,
                                  idle_timeout=config.limits.idle_timeout * 3, on_output=on_output,
                                  cwd=plan.suite.cwd, env=env)
        parsed = parse_output(plan, result.output, repo, files)
    finally:
        cleanup(plan, repo, files)
    found = diagnose(plan.suite.kind, result.output, result.exit_code, result.killed or "", parsed, repo,
                     plan.suite.cwd, plan.suite.interpreter, plan.selection)
    return TestRun(
        suite=plan.suite.name, passed=parsed.passed, failed=parsed.failed, errored=parsed.errored,
        skipped=parsed.skipped, duration=float(result.duration), exit_code=result.exit_code,
        failures=parsed.failures, output_tail=parsers.strip_ansi(result.output[-TAIL_CHARS * 2:])[-TAIL_CHARS:],
        command=command if command is not None else plan.command, killed=result.killed or "",
        parsed_from=parsed.source, status=found.status, problem=found.problem, hint=found.hint,
        interpreter=plan.suite.interpreter,
    )


async def run_tests(repo: Path, config: "Config", selection: str = "", suite_name: str = "", *,
                    runner: Runner | None = None, on_output: Callable[[str], None] | None = None,
                    timeout: float | None = None) -> TestRun:
    """Detect, pick (by name, by the selected file, or the only suite), plan and run: for front ends' keys.
    ``timeout``: the run's wall clock (default: ``limits.command_timeout`` five times over)."""
    from tui.testing.detect import choose_suite, detect_suites

    repo = Path(os.path.realpath(repo))
    suite = choose_suite(detect_suites(repo, config), suite_name, selection, repo)
    return await run_plan(plan_run(suite, selection, repo), repo, config, runner=runner, on_output=on_output,
                          timeout=timeout)
