"""The main screen's first frame, and the panes that join it right after.

The first frame shows every pane's frame and title as the settled screen does, but two parts are stand-ins that
cost almost nothing to build: the prompt (a TextArea: its module, its stylesheet and a dozen component classes)
and the diff view (its renderer and layout modules). Right after that frame is painted, ``complete`` swaps the
real widgets in (one repaint) and focuses the prompt; the main screen then tells the app, which hands on what
it held meanwhile (tui/app/typeahead.py) and starts what waits for the first frame (session, git, themes).

The stand-ins carry the real widgets' ids, so the app's stylesheet (app.tcss) draws them with the same borders,
titles and layout classes; the rules below only give them what the real widgets' own DEFAULT_CSS gives those.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from tui.app.keymap import hints

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui.app.widgets.prompt_input import PromptInput

NO_CHANGES = "  No changes to show."  # the empty DiffView's first row (tui/app/widgets/diff_view.py)


class Standin(Static):
    """A part of the first frame that the real widget replaces right after it (``complete``)."""

    DEFAULT_CSS = """
    Standin.-prompt { height: 3; padding: 0 1; background: $surface; }  /* drawn focused by app.tcss */
    Standin.-diff { height: 1fr; width: 1fr; background: $surface; color: $text-muted; }
    """


class PromptStandin(Standin):
    """The empty prompt with its cursor, drawn focused as the real one will be. It takes no focus (nothing has
    the focus before the real prompt is in), so whatever is focused meanwhile keeps it."""

    KEY_HINTS = hints("prompt")  # the status bar's keys are the prompt's from the first frame on

    def __init__(self) -> None:
        super().__init__(Text(" ", style="reverse"), id="prompt", classes="-prompt -standin")
        self.border_title = "Prompt"


def standin_diff() -> Standin:
    return Standin(NO_CHANGES, id="diff", classes="-diff", markup=False)


def prompt_class() -> type[PromptInput]:
    from tui.app.widgets.prompt_input import PromptInput

    return PromptInput


async def complete(screen: Any) -> None:
    """Right after the first frame: the real prompt and diff view in place of the stand-ins (``screen`` is the
    main screen, tui/app/screens/main.py, which imports this module)."""
    from tui.app.widgets.diff_area import diff_view_class

    view_cls = diff_view_class()
    parts: list[tuple[Widget, Widget]] = [
        (screen.query_one("#prompt"), prompt_class()(id="prompt")),
        (screen.query_one("#diff"), view_cls(id="diff") if view_cls is not None else
         Static("working-tree diff", id="diff", markup=False)),
    ]
    with screen.app.batch_update():  # one repaint for both
        for standin, real in parts:  # each goes first: the real widget takes its id
            parent: Any = standin.parent
            siblings = list(parent.children)
            following = siblings[siblings.index(standin) + 1:]
            await standin.remove()
            await parent.mount(real, before=following[0] if following else None)
        screen.query_one("#diff-frame").border_title = "Diff"  # the view's mount titled its frame
        screen.agent.show_welcome()
        if screen.focused is None:  # the focus starts in the prompt, unless it was put elsewhere meanwhile
            screen.set_focus(screen.prompt)
