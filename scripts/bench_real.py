#!/usr/bin/env python3
"""Everyday tasks on real open-source projects nobody here wrote, run end to end through `devagent run`.

Four pinned upstream releases (PyPI sdists and an npm tarball, sha256-checked, cached under
~/.cache/devagent/bench) become git fixtures with the planted changes each task needs; every project has its
own environment the way its developers have it. Each task runs `devagent run --yes --json --model-file ...`
(its own user config: temperature 0, seed 42, 4,096-token context, 2 threads) and is scored by what changed on
disk and what the answer says. Tasks are split into a "tune" and a "heldout" half, recorded in the task data
(and a "dev" set written later, for finding failure classes: benchreal/tasks_dev.py, and a second held-out half,
"fresh", written by a separate engineer: benchreal/tasks_fresh.py, not to be read while tuning); the transcripts
and failure details of the hidden halves ("heldout", "fresh") go to OUT/<half> only, never to the console.

A third hidden half, "new" (benchreal/tasks_new_*.py), is the untouched half of issue 29: five projects nobody
here had used, written before the agent was tuned on them; `--devagent PATH` runs the devagent of another
checkout (a git worktree of an older commit, say) on any half, for a baseline.

usage: scripts/bench_real.py [--selfcheck] [--half tune|heldout|dev|fresh|new|all] [--project NAME]
                             [--only TASK,...] [--model 1.5b|0.5b] [--model-file PATH] [--timeout S] [--out DIR]
                             [--json FILE] [--devagent CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import ROOT, machine, run_agent, write_user_config  # noqa: E402
from benchreal.fixtures import Fixtures  # noqa: E402
from benchreal.projects import PROJECTS, all_tasks  # noqa: E402
from benchreal.report import Result, console_line, final_diff, summary, table, write_transcript  # noqa: E402
from benchreal.selfcheck import prepare, selfcheck  # noqa: E402
from benchreal.sources import BenchError  # noqa: E402
from benchreal.spec import HALVES, HIDDEN_HALVES, Project, Task  # noqa: E402

MODEL_FILES = {"1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "0.5b": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"}


def select(half: str, project: str | None, only: str | None) -> list[tuple[Project, Task]]:
    chosen = all_tasks()
    if project:
        names = {p.name for p in PROJECTS}
        if project not in names:
            raise BenchError(f"no project {project!r}; projects: {', '.join(sorted(names))}")
        chosen = [(p, t) for p, t in chosen if p.name == project]
    if only:
        wanted = set(only.split(","))
        unknown = wanted - {t.id for _, t in all_tasks()}
        if unknown:
            raise BenchError(f"no task {', '.join(sorted(unknown))}; --list shows them")
        chosen = [(p, t) for p, t in chosen if t.id in wanted]
    if half != "all":
        chosen = [(p, t) for p, t in chosen if t.half == half]
    return chosen


def devagent_argv(checkout: Path | None = None) -> tuple[list[str], Path | None]:
    """How devagent is started, and the checkout to put first on PYTHONPATH (None: as installed).

    With ``checkout`` (``--devagent``), ``python -m tui`` from that checkout; else devagent as installed beside
    this interpreter (like a pipx install), else ``-m tui`` from this checkout."""
    if checkout is not None:
        return [sys.executable, "-m", "tui"], checkout
    script = Path(sys.executable).parent / "devagent"
    if script.is_file():
        return [str(script)], None
    return [sys.executable, "-m", "tui"], ROOT


def devagent_checkout(path: str) -> Path:
    """``--devagent PATH``: a devagent checkout (its ``tui`` package at the top), described for the log."""
    root = Path(path).expanduser().resolve()
    if not (root / "tui" / "__main__.py").is_file():
        raise BenchError(f"--devagent {path}: no devagent checkout there (expected tui/__main__.py); make one with "
                         "`git worktree add /tmp/base <commit>`")
    return root


def describe_checkout(root: Path) -> str:
    import subprocess

    out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h %cs %s"], capture_output=True, text=True)
    return f"devagent from {root}" + (f" at {out.stdout.strip()[:90]}" if out.returncode == 0 else "")


def run_selfcheck(fixtures: Fixtures, chosen: list[tuple[Project, Task]], show_hidden: bool = False) -> int:
    failed = 0
    for project, task in chosen:
        started = time.monotonic()
        try:
            res = selfcheck(fixtures, project, task)
            ok, why = res.ok, res.why
        except BenchError as exc:
            ok, why = False, str(exc)
        failed += not ok
        if not ok and task.half in HIDDEN_HALVES and not show_hidden:
            why = "details withheld: a hidden half (--show-hidden prints them; not for whoever tunes the agent)"
        print(f"{'ok  ' if ok else 'FAIL'}  {task.half:<7} {task.id:<30} {time.monotonic() - started:5.1f} s  {why}",
              flush=True)
    print(f"self-check: {len(chosen) - failed}/{len(chosen)} tasks proven "
          "(check fails untouched, passes the reference)")
    return 1 if failed else 0


def run_tasks(fixtures: Fixtures, chosen: list[tuple[Project, Task]], model: list[str], args: argparse.Namespace,
              out: Path) -> list[Result]:
    extra = {"pipelines": args.pipelines} if args.pipelines else {}
    config = write_user_config(fixtures.work / "config.toml", max_steps=args.max_steps, context=4096, threads=2,
                               **extra)
    argv, checkout = devagent_argv(Path(args.devagent) if args.devagent else None)
    results = []
    for project, task in chosen:
        ctx = prepare(fixtures, project, task)
        env = fixtures.agent_env(project, ctx.repo)
        if checkout is not None:
            env["PYTHONPATH"] = str(checkout) + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        run = run_agent(ctx.repo, task.prompt, None, config=config, state=fixtures.work / "state",
                        timeout=args.timeout, argv=argv, env=env, model_args=model)
        ctx.run = run
        try:
            ok, why = task.check(ctx)
        except (OSError, BenchError, UnicodeDecodeError) as exc:
            ok, why = False, f"check failed: {exc}"
        if run.timed_out:
            ok, why = False, f"hard timeout after {args.timeout:.0f} s; {why}"
        result = Result(task.id, project.name, task.kind, task.half, ok, round(run.seconds, 1), run.timed_out, why,
                        run.tool_names())
        write_transcript(out, result, run, final_diff(ctx.repo, ctx.base), task.prompt, ctx.repo)
        results.append(result)
        print(console_line(result), flush=True)
    return results


def pick_model(args: argparse.Namespace) -> list[str] | None:
    """devagent's model options: an Ollama server and model name, or a GGUF file (--model-file, else cached)."""
    if args.host:
        return ["--backend", "ollama", "--host", args.host, "--model", args.model_name]
    sys.path.insert(0, str(ROOT))
    from tui.llm.modelcache import model_dir

    model = Path(args.model_file) if args.model_file else model_dir() / MODEL_FILES[args.model]
    if not model.is_file():
        print(f"bench_real: {model} not found; run scripts/fetch-test-model {args.model}", file=sys.stderr)
        return None
    return ["--model-file", str(model)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--selfcheck", action="store_true", help="prove every check without a model")
    parser.add_argument("--show-hidden", action="store_true", help="--selfcheck: print why a hidden half's "
                        "check failed (it quotes the task; not for whoever tunes the agent)")
    parser.add_argument("--list", action="store_true", help="list the tasks (id, project, kind, half)")
    parser.add_argument("--half", choices=(*HALVES, "all"), default="tune")
    parser.add_argument("--project", help="only this project's tasks")
    parser.add_argument("--only", help="comma-separated task ids")
    parser.add_argument("--model", choices=sorted(MODEL_FILES), default="1.5b")
    parser.add_argument("--model-file", help="any GGUF file (overrides --model)")
    parser.add_argument("--host", help="use this Ollama server instead of a GGUF file (with --model-name)")
    parser.add_argument("--model-name", default="qwen2.5-coder:1.5b", help="the model's name on --host")
    parser.add_argument("--timeout", type=float, default=300.0, help="hard limit per task, seconds (then killed)")
    parser.add_argument("--max-steps", type=int, default=12, help="model round trips per turn")
    parser.add_argument("--pipelines", choices=("auto", "off"), help="model.pipelines for the runs (default: "
                        "devagent's own default)")
    parser.add_argument("--devagent", metavar="CHECKOUT", help="run the devagent of this checkout (python -m tui "
                        "with it first on PYTHONPATH; e.g. a git worktree of an older commit) instead of this one")
    parser.add_argument("--work", help="where fixtures and environments are built (default: a new temp dir)")
    parser.add_argument("--out", help="transcripts go to OUT/<half>/<task> (default: WORK/out)")
    parser.add_argument("--json", metavar="FILE",
                        help="write the results (hidden halves' rows: pass/fail and time only)")
    args = parser.parse_args(argv)
    try:
        chosen = select(args.half, args.project, args.only)
        if args.devagent:
            args.devagent = str(devagent_checkout(args.devagent))
            print(describe_checkout(Path(args.devagent)), file=sys.stderr)
    except BenchError as exc:
        print(f"bench_real: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for project, task in chosen:
            print(f"{task.id:<30} {project.name:<11} {task.kind:<11} {task.half}")
        return 0
    if not chosen:
        print("bench_real: no task selected", file=sys.stderr)
        return 2
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="devagent-bench-real-"))
    work.mkdir(parents=True, exist_ok=True)
    fixtures = Fixtures(work.resolve())
    if args.selfcheck:
        try:
            return run_selfcheck(fixtures, chosen, args.show_hidden)
        except BenchError as exc:
            print(f"bench_real: {exc}", file=sys.stderr)
            return 2
    model = pick_model(args)
    if model is None:
        return 2
    out = Path(args.out) if args.out else work / "out"
    print(f"model {model[-1]}, {len(chosen)} tasks ({args.half}), work dir {work}, transcripts {out}/<half>/")
    try:
        results = run_tasks(fixtures, chosen, model, args, out)
    except BenchError as exc:
        print(f"bench_real: {exc}", file=sys.stderr)
        return 2
    summ = summary(results)
    print(table(summ))
    if args.json:
        report = {"model": Path(model[-1]).name, "timeout_s": args.timeout, "machine": machine(),
                  "devagent": describe_checkout(Path(args.devagent) if args.devagent else ROOT), "summary": summ,
                  "results": [r.public() for r in results]}
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
