#!/usr/bin/env python3
"""Print the general loop's rules as the Markdown table docs/model-layer.md carries (tests/engine/test_rules.py
checks the two agree). usage: python scripts/rules_table.py"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui.engine.rules import RULE_CLASSES  # noqa: E402


def table() -> str:
    rows = ["| rule | point | the failure it answers |", "|---|---|---|"]
    rows += [f"| `{cls.name}` | {cls.point} | {cls.failure} |" for cls in RULE_CLASSES]
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
