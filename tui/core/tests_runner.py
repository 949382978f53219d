"""Detects and runs a repo's test suites and parses their results (the code lives in tui.testing)."""

from tui.testing import (Failure, FixLoop, FixLoopResult, Plan, Suite, TestRun, detect_suites, fix_loop,
                              parse_output, pick_suite, plan_run, run_plan, run_tests)

__all__ = ["Failure", "FixLoop", "FixLoopResult", "Plan", "Suite", "TestRun", "choose_suite", "detect_suites", "fix_loop",
           "parse_output", "pick_suite", "plan_run", "run_plan", "run_tests"]
