"""Detect, run and parse a repo's test suites; the fix loop. See docs/tests-and-scaffold.md."""

from tui.testing.detect import choose_suite, detect_suites, pick_suite
from tui.testing.fixloop import FixLoop, FixLoopResult, fix_loop
from tui.testing.model import Failure, Suite, TestRun
from tui.testing.run import Plan, parse_output, plan_run, run_plan, run_tests

__all__ = ["Failure", "FixLoop", "FixLoopResult", "Plan", "Suite", "TestRun", "choose_suite", "detect_suites", "fix_loop",
           "parse_output", "pick_suite", "plan_run", "run_plan", "run_tests"]
