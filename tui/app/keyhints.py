"""The keys the status bar shows: what matters now, the focused pane's own keys, then the app's.

Each pane widget names its keys in a ``KEY_HINTS`` class attribute (key as shown, what it does;
built from tui/app/keymap.py);
the focused widget's, or its nearest ancestor's, are the pane keys. ``fit`` shortens the line to the
room there is by priority: whole hints go, least useful first (quit, the palette, the jump key, the pending
count, help), before any label; then the pane keys' labels, last key first. The pane's keys themselves and
what matters now (esc cancel) always stay.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len

from tui.app.keymap import APP_KEYS, BACK_KEYS, JUMP_KEY, Hint

__all__ = ["APP_KEYS", "BACK_KEYS", "JUMP_KEY", "Hint", "KeyHints", "fit", "pane_hints"]


@dataclass(frozen=True)
class KeyHints:
    """The status bar's key hints in their four groups (``fit`` lays them out)."""

    now: tuple[Hint, ...] = ()  # esc cancel, ^k kill
    pane: tuple[Hint, ...] = ()
    app: tuple[Hint, ...] = field(default=APP_KEYS)
    waiting: tuple[Hint, ...] = ()  # proposals pending while the queue has no focus (its title counts them too)


def pane_hints(widget: Any) -> tuple[Hint, ...]:
    """The KEY_HINTS of ``widget`` or of its nearest ancestor that has some."""
    node = widget
    while node is not None:
        hints = getattr(type(node), "KEY_HINTS", None)
        if hints:
            return tuple(hints)
        node = getattr(node, "parent", None)
    return ()


def _join(hints: tuple[Hint, ...] | list[Hint], labels: bool, tight: bool = False) -> str:
    return ("  " if tight else " · ").join(f"{key} {label}".strip() if labels else key for key, label in hints)


def _render(groups: list[list[Hint]], tight: bool) -> str:
    return " │ ".join(part for part in (("  " if tight else " · ").join(f"{k} {v}".strip() for k, v in g)
                                       for g in groups) if part)


def fit(hints: KeyHints, room: int) -> tuple[str, bool]:
    """The longest form of the hints that fits ``room`` cells, shortened by priority: whole hints (key and
    label) go, least useful first (quit, palette, the jump key, the pending count, then help), before any label
    does; then the pane's labels go from its last key back, then those of what matters now. Never a bare row of
    keys while a labelled one fits. Returns the text and whether every pane key kept its label (the last form
    may still not fit: the bar then cuts it)."""
    now, waiting, pane = list(hints.now), list(hints.waiting), list(hints.pane)
    app = list(hints.app)
    help_hint = [h for h in app if h[0] in ("?", "F1", "?/F1")]
    dropped_first = [h for h in reversed(app) if h not in help_hint]  # quit, palette, then the jump key
    order = [*dropped_first[:-1], *waiting, *dropped_first[-1:], *help_hint]  # what goes, in the order it goes
    kept_app, kept_waiting = list(app), list(waiting)
    forms: list[tuple[list[list[Hint]], bool]] = []
    for tight in (False, True):
        kept_app, kept_waiting = list(app), list(waiting)
        forms.append(([now, kept_waiting, pane, kept_app], tight))
        for gone in order:
            kept_app = [h for h in kept_app if h != gone]
            kept_waiting = [h for h in kept_waiting if h != gone]
            forms.append(([now, kept_waiting, pane, kept_app], tight))
    bare_pane = list(pane)
    for i in range(len(pane) - 1, -1, -1):  # the pane's labels, from its last key back
        bare_pane[i] = (pane[i][0], "")
        forms.append(([now, [], list(bare_pane), []], True))
    forms.append(([[(k, "") for k, _ in now], [], list(bare_pane), []], True))
    text = ""
    for groups, tight in forms:
        text = _render(groups, tight)
        if cell_len(text) <= room:
            return text, all(label for _, label in groups[2]) or not pane
    return text, False
