"""Detect, run and parse a repo's test suites; the fix loop. See docs/tests-and-scaffold.md."""

from tui.core.testing.detect import choose_suite, detect_suites, pick_suite
from tui.core.testing.fixloop import FixLoop, FixLoopResult, fix_loop
from tui.core.testing.model import Failure, Suite, TestRun
from tui.core.testing.run import Plan, parse_output, plan_run, run_plan, run_tests

__all__ = ["Failure", "FixLoop", "FixLoopResult", "Plan", "Suite", "TestRun", "choose_suite", "detect_suites", "fix_loop",
           "parse_output", "pick_suite", "plan_run", "run_plan", "run_tests"]
