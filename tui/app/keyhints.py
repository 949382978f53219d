"""The keys the status bar shows: what matters now, the focused pane's own keys, then the app's.

Each pane widget names its keys in a ``KEY_HINTS`` class attribute (key as shown, what it does;
built from tui/app/keymap.py);
the focused widget's, or its nearest ancestor's, are the pane keys. ``fit`` shortens the line to the
room there is: the palette and quit keys go first, then the labels of the app keys and of what matters
now, then the pane keys' labels, then the pending count and the help and jump keys; the pane's keys
themselves always stay.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len

from tui.app.keymap import APP_KEYS, BACK_KEYS, JUMP_KEY, Hint

__all__ = ["APP_KEYS", "BACK_KEYS", "JUMP_KEY", "Hint", "KeyHints", "fit", "pane_hints"]


@dataclass(frozen=True)
class KeyHints:
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


def fit(hints: KeyHints, room: int) -> tuple[str, bool]:
    """The longest form of the hints that fits ``room`` cells, and whether the pane's keys kept their labels
    (the last form, keys only, may still not fit: the bar then cuts it)."""
    def keys(group: tuple[Hint, ...]) -> tuple[Hint, ...]:
        return tuple((key, "") for key, _ in group)

    now, waiting, pane, app = hints.now, hints.waiting, hints.pane, hints.app
    forms = [  # (groups, pane labels kept, tight)
        ((now, waiting, pane, app), True, False),
        ((now, waiting, pane, app[:2]), True, False),  # the jump key and help stay; the palette and quit go
        ((now, keys(waiting), pane, keys(app[:2])), True, False),
        ((keys(now), pane, keys(app[:2])), True, False),  # the queue's title counts what is waiting
        ((keys(now), pane, keys(app[:2])), True, True),
        ((keys(now), pane), True, True),
        ((keys(now), keys(waiting), keys(pane), keys(app[:2])), False, False),
        ((keys(now), keys(waiting), keys(pane), keys(app[:2])), False, True),
        ((keys(now), keys(pane), keys(app[:2])), False, True),  # the queue's title still counts what is waiting
        ((keys(now), keys(pane), keys(app[:1])), False, True),  # the jump key stays longest
        ((keys(now), keys(pane)), False, True),
    ]
    text = ""
    for groups, labelled, tight in forms:
        text = " │ ".join(part for part in (_join(group, True, tight) for group in groups) if part)
        if cell_len(text) <= room:
            return text, labelled
    return text, False
