"""Copying out of the app: the selected text (ctrl+c, Textual's), the last answer (F2), its code blocks (F3, again
for the one before). Through the terminal's clipboard (OSC 52, Textual's ``copy_to_clipboard``): most terminals
take it; tmux does with ``set -g set-clipboard on``. What was copied is said, so a terminal that ignores it is
noticed at once. The text is the model's exactly as it wrote it (never the rendered Markdown)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from tui.protocol.words import plural

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


_copied: "weakref.WeakKeyDictionary[MainScreen, tuple[str, int]]" = weakref.WeakKeyDictionary()  # F3's place


def code_blocks(text: str) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown answer: (language, code), in order (markdown-it's own reading)."""
    from markdown_it import MarkdownIt

    return [(token.info.strip().split(" ")[0], token.content) for token in MarkdownIt().parse(text)
            if token.type == "fence"]


def _copy(screen: "MainScreen", text: str, what: str) -> None:
    screen.app.copy_to_clipboard(text)
    screen.app.notify(f"Copied {what} ({plural(len(text.splitlines()) or 1, 'line')}) to the clipboard.", timeout=3)


def copy_selection(screen: "MainScreen") -> None:
    selected = screen.get_selected_text() or getattr(screen.focused, "selected_text", "")
    if not selected:
        screen.app.notify("Nothing is selected: drag over text with the mouse, then ctrl+c (or this again).",
                          timeout=4)
        return
    _copy(screen, selected, "the selection")


def copy_answer(screen: "MainScreen") -> None:
    if not screen.last_answer.strip():
        screen.app.notify("No answer to copy yet.", timeout=3)
        return
    _copy(screen, screen.last_answer, "the last answer")


def copy_code(screen: "MainScreen") -> None:
    """The last answer's last code block; pressed again (with no new answer), the one before it, and so on."""
    blocks = code_blocks(screen.last_answer)
    if not blocks:
        screen.app.notify("The last answer has no code block." if screen.last_answer.strip()
                          else "No answer to copy yet.", timeout=3)
        return
    answer, last = _copied.get(screen, ("", 0))
    index = (last - 1) % len(blocks) if answer == screen.last_answer else len(blocks) - 1
    _copied[screen] = (screen.last_answer, index)
    lang, code = blocks[index]
    label = f"code block {index + 1} of {len(blocks)}" + (f" ({lang})" if lang else "")
    _copy(screen, code, label)
