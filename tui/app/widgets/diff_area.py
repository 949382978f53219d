"""The main screen's diff panel: which diff it shows (a proposal's, the working tree's or the index's), the
file list beside it, and staging the hunks accepted in it.

The panel owns the diff state: the proposal shown, both tree diffs and the tree mode; the DiffView inside it
keeps the hunk selection and the cursor. Others ask it (``show_proposal``, ``accepted_for``, ``contains``,
``refresh_repo``); the screen composes the frame and the view inside it (``#diff-frame``, ``#diff``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.containers import Horizontal
from textual.widget import Widget

from tui.app import messages as msg
from tui.app.widgets.tool_call_line import one_line
from tui.protocol.words import plural

if TYPE_CHECKING:
    from tui.protocol.proposals import Proposal


def diff_view_class() -> type[Widget] | None:
    """The DiffView class, or None where it cannot load (the panel then shows the diff as plain text)."""
    try:
        from tui.app.widgets.diff_view import DiffView
    except ImportError:
        return None
    return DiffView


class DiffArea(Horizontal):
    """The diff frame, and the file list joining it when a diff has several files.

    State: ``diff_for`` (the proposal id shown; "" = the working tree), ``worktree_diff`` (git diff),
    ``staged_diff`` (git diff --cached), ``tree_mode`` (unstaged | staged: which tree is shown when no proposal is).
    """

    def __init__(self, repo: Path, *, git_refresh: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.repo = repo
        self.git_refresh = git_refresh
        self.diff_for = ""
        self.worktree_diff = ""
        self.staged_diff = ""
        self.tree_mode = "unstaged"
        self.closed = False  # the app is quitting: late refreshes have nothing to update

    @property
    def tree_text(self) -> str:
        """The tree diff the panel shows when no proposal is shown."""
        return self.staged_diff if self.tree_mode == "staged" else self.worktree_diff

    def _show_diff(self, text: str, title: str, mode: str) -> None:
        view = self.screen.query_one("#diff")
        show = getattr(view, "show_diff", None)
        if show is None:
            from rich.text import Text

            self.screen.query_one("#diff-frame").border_title = one_line(title, 100)
            view.update(Text(text or "no changes"))  # type: ignore[attr-defined]
            return
        if text:
            show(text, mode=mode, title=title)
        else:
            view.clear()  # type: ignore[attr-defined]
        index = getattr(view, "index", None)
        multi = index is not None and len(index.files) > 1
        if multi and not self.query("#files"):
            from tui.app.widgets.file_list import FileList  # not before the first frame: most diffs have one file

            self.mount(FileList(id="files"), before="#diff-frame")
        for files in self.query("#files"):
            files.set_files(index)  # type: ignore[attr-defined]
        self.set_class(multi, "-multi-file")

    def show_proposal(self, proposal: Proposal | None) -> None:
        """Show ``proposal``'s diff; a proposal without one (or None) brings the tree back if a proposal was shown."""
        if proposal is not None and proposal.diff:
            self.diff_for = proposal.id
            self._show_diff(proposal.diff, f"{proposal.kind}: {proposal.summary}", "proposal")
        elif self.diff_for or proposal is None:
            self.show_tree()

    def show_tree(self) -> None:
        """The working tree (unstaged) or the index (staged)."""
        self.diff_for = ""
        title = "git diff --cached" if self.tree_mode == "staged" else "git diff"  # the mode names the tree
        self._show_diff(self.tree_text, f"{title} · S {'unstages' if self.tree_mode == 'staged' else 'stages'}"
                        " accepted hunks", self.tree_mode)

    def toggle_tree(self) -> None:
        """ctrl+d: show the working tree; when it is shown already, switch between unstaged and staged."""
        if not self.diff_for:
            self.tree_mode = "staged" if self.tree_mode == "unstaged" else "unstaged"
        self.show_tree()
        self.refresh_repo()

    def accepted_for(self, proposal: Proposal) -> tuple[int, ...] | None:
        """The hunks of ``proposal`` accepted in the view; None when the view does not show its diff."""
        if not proposal.diff or self.diff_for != proposal.id:
            return None
        accepted = getattr(self.screen.query_one("#diff"), "accepted_hunks", None)
        return tuple(accepted()) if accepted is not None else None

    def contains(self, widget: Widget | None) -> bool:
        """Whether ``widget`` is the diff view, its file list, or inside them."""
        node: Any = widget
        while node is not None:
            if node is self:
                return True
            node = node.parent
        return False

    def stage_accepted(self) -> None:
        """S: stage (or, in the staged view, unstage) the hunks accepted in the tree diff."""
        if self.diff_for:
            self.notify("S stages working-tree hunks; ctrl+d shows the working tree. Approve proposals with a.",
                        severity="warning")
            return
        accepted = getattr(self.screen.query_one("#diff"), "accepted_hunks", None)
        if accepted is None or not self.tree_text:
            self.notify("Nothing to stage.", timeout=2)
            return
        text, chosen, unstage = self.tree_text, set(accepted()), self.tree_mode == "staged"

        async def run() -> None:
            from tui.app.worktree import stage_hunks

            error = await stage_hunks(self.repo, text, chosen, unstage=unstage)
            verb = "unstaged" if unstage else "staged"
            self.notify(error or f"{verb} {plural(len(chosen), 'hunk')}", severity="error" if error else "information",
                        timeout=4)
            self.refresh_repo()

        self.run_worker(run(), group="stage", exit_on_error=False)

    def refresh_repo(self) -> None:
        """Re-read the working tree and the index, off the UI thread; RepoRefreshed goes on to the screen."""
        if self.git_refresh:
            self.run_worker(self._refresh_repo, group="git", exclusive=True, exit_on_error=False)

    async def _refresh_repo(self) -> None:
        from tui.app.worktree import tree_state

        self.post_message(msg.RepoRefreshed(await tree_state(self.repo)))

    def on_repo_refreshed(self, message: msg.RepoRefreshed) -> None:
        """Keep the tree diffs; the shown tree follows when it changed (the message bubbles on to the screen)."""
        if self.closed or not self.is_attached or self._pruning:  # quitting, or being torn down
            message.stop()
            return
        before = self.tree_text
        self.worktree_diff, self.staged_diff = message.state.unstaged_diff, message.state.staged_diff
        if not self.diff_for and self.tree_text != before:
            self.show_tree()

    def on_diff_view_file_focused(self, message: Any) -> None:
        for files in self.query("#files"):
            files.show_current(message.index)  # type: ignore[attr-defined]

    def on_file_list_file_selected(self, message: Any) -> None:
        self.screen.query_one("#diff").jump_to_file(message.index)  # type: ignore[attr-defined]
