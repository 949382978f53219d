"""What is left of the small-model countermeasures: rules at named points of a turn (rules/base.py), listed here
in the order the loop asks them. docs/model-layer.md lists each with the class of failure it answers
(tests/engine/test_rules.py checks the two agree)."""

from __future__ import annotations

from typing import Any

from tui.engine.rules.asked import Asked
from tui.engine.rules.base import PASS, POINTS, Rule, TurnState, Verdict
from tui.engine.rules.budget import Budget
from tui.engine.rules.claims import Claims
from tui.engine.rules.looked import Looked
from tui.engine.rules.rejected import Rejected
from tui.engine.rules.repeat import Repeat

RULE_CLASSES: tuple[type[Rule], ...] = (Budget, Asked, Rejected, Repeat, Looked, Claims)


def make_rules(config: Any, memory: Any = None) -> list[Rule]:
    model = config.model
    out: list[Rule] = []
    for cls in RULE_CLASSES:
        if cls is Budget:
            out.append(Budget(model.turn_seconds, model.max_steps))
        elif cls is Rejected:
            out.append(Rejected(memory))
        else:
            out.append(cls())
    return out


def ask(rules: list[Rule], point: str, turn: TurnState, **seen: Any) -> Verdict:
    """The first verdict other than pass of the rules at ``point`` (pass when all pass)."""
    for rule in rules:
        if rule.point == point:
            verdict = rule.check(turn, **seen)
            if verdict.do != "pass":
                return verdict
    return PASS


__all__ = ["PASS", "POINTS", "RULE_CLASSES", "Rule", "TurnState", "Verdict", "ask", "make_rules"]
