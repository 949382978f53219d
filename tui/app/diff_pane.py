"""The diff pane's side of the app: which diff it shows (a proposal, the working tree or the
index), staging the accepted hunks, and keeping the working-tree state fresh.

Split out of app.py so the app module stays wiring; handlers own every state change.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.app import messages as msg
from tui.app.widgets.status_bar import StatusBar
from tui.app.widgets.tool_call_line import one_line

if TYPE_CHECKING:
    from tui.protocol.proposals import Proposal


class DiffPaneMixin:
    """Mixed into DevagentApp; uses its ``main`` screen, repo, notify and run_worker."""

    main: Any
    repo: Path
    quitting: bool
    git_refresh: bool
    diff_for: str
    tree_mode: str
    worktree_diff: str
    staged_diff: str
    screen_stack: Any
    _focus_before_diff: Any = None  # where ctrl+o came from, for the way back
    notify: Any
    run_worker: Any
    post_message: Any

    def _show_diff(self, text: str, title: str, mode: str) -> None:
        view = self.main.query_one("#diff")
        show = getattr(view, "show_diff", None)
        if show is not None:
            if text:
                show(text, mode=mode, title=title)
            else:
                view.clear()  # type: ignore[attr-defined]
            index = getattr(view, "index", None)
            multi = index is not None and len(index.files) > 1
            if multi and not self.main.query("#files"):
                self._mount_file_list()
            for files in self.main.query("#files"):
                files.set_files(index)  # type: ignore[attr-defined]
            self.main.query_one("#diff-area").set_class(multi, "-multi-file")
        else:
            from rich.text import Text

            self.main.query_one("#diff-frame").border_title = one_line(title, 100)
            view.update(Text(text or "no changes"))  # type: ignore[attr-defined]

    def _show_proposal_diff(self, proposal: Proposal | None) -> None:
        if proposal is not None and proposal.diff:
            self.diff_for = proposal.id
            self._show_diff(proposal.diff, f"{proposal.kind}: {proposal.summary}", "proposal")
        elif self.diff_for or proposal is None:
            self._show_tree()

    def _tree_text(self) -> str:
        return self.staged_diff if self.tree_mode == "staged" else self.worktree_diff

    def _show_tree(self) -> None:
        """The working tree (unstaged) or the index (staged) in the diff view."""
        self.diff_for = ""
        title = "git diff --cached" if self.tree_mode == "staged" else "git diff"  # the mode names the tree
        self._show_diff(self._tree_text(), f"{title} · S {'unstages' if self.tree_mode == 'staged' else 'stages'}"
                        " accepted hunks", self.tree_mode)

    def _mount_file_list(self) -> None:
        """The file list beside the diff, mounted for the first diff with several files (not before the
        first frame: one-file diffs and the empty tree never show it)."""
        from tui.app.widgets.file_list import FileList

        self.main.query_one("#diff-area").mount(FileList(id="files"), before="#diff-frame")

    def in_diff_area(self, widget: Any) -> bool:
        """Whether ``widget`` is the diff view, its file list, or inside them."""
        area = self.main.query_one("#diff-area")
        node = widget
        while node is not None:
            if node is area:
                return True
            node = node.parent
        return False

    def action_jump_diff(self) -> None:
        """ctrl+o: focus the diff; pressed in the diff or its file list, back where the focus was."""
        if self.screen_stack[-1] is not self.main:
            return  # a modal is open: its own keys only
        focused = self.main.focused
        if focused is None or not self.in_diff_area(focused):
            self._focus_before_diff = focused
            self.main.query_one("#diff").focus()
            return
        back = self._focus_before_diff
        if back is None or back not in self.main.focus_chain:
            back = self.main.query_one("#prompt")  # the pane it came from is gone or hidden now
        back.focus()

    def on_diff_view_file_focused(self, message: Any) -> None:
        for files in self.main.query("#files"):
            files.show_current(message.index)  # type: ignore[attr-defined]

    def on_file_list_file_selected(self, message: Any) -> None:
        self.main.query_one("#diff").jump_to_file(message.index)  # type: ignore[attr-defined]

    def action_show_worktree_diff(self) -> None:
        """ctrl+d: show the working tree; pressed again, switch between unstaged and staged."""
        if not self.diff_for:
            self.tree_mode = "staged" if self.tree_mode == "unstaged" else "unstaged"
        self._show_tree()
        self.refresh_repo()

    def action_stage_hunks(self) -> None:
        """S: stage (or, in the staged view, unstage) the hunks accepted in the diff view."""
        if self.diff_for:
            self.notify("S stages working-tree hunks; ctrl+d shows the working tree. Approve proposals with a.",
                        severity="warning")
            return
        accepted = getattr(self.main.query_one("#diff"), "accepted_hunks", None)
        if accepted is None or not self._tree_text():
            self.notify("Nothing to stage.", timeout=2)
            return
        text, chosen, unstage = self._tree_text(), set(accepted()), self.tree_mode == "staged"

        async def run() -> None:
            from tui.app.worktree import stage_hunks

            error = await stage_hunks(self.repo, text, chosen, unstage=unstage)
            verb = "unstaged" if unstage else "staged"
            self.notify(error or f"{verb} {len(chosen)} hunk(s)", severity="error" if error else "information",
                        timeout=4)
            self.refresh_repo()

        self.run_worker(run(), group="stage", exit_on_error=False)

    def refresh_repo(self) -> None:
        if self.git_refresh:
            self.run_worker(self._refresh_repo, group="git", exclusive=True, exit_on_error=False)

    async def _refresh_repo(self) -> None:
        from tui.app.worktree import tree_state

        self.post_message(msg.RepoRefreshed(await tree_state(self.repo)))

    def on_repo_refreshed(self, message: msg.RepoRefreshed) -> None:
        if self.quitting or not self.screen_stack:
            return  # a refresh that lands while the app shuts down has nothing left to update
        state = message.state
        bars = self.main.query(StatusBar)
        if not bars:
            return  # the screen is being torn down (the app is exiting): nothing to update
        bar = bars.first()
        bar.branch, bar.dirty, bar.staged = state.branch, state.dirty, state.staged
        before = self._tree_text()
        self.worktree_diff, self.staged_diff = state.unstaged_diff, state.staged_diff
        if not self.diff_for and self._tree_text() != before:
            self._show_tree()
