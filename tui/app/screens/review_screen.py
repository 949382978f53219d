"""The pre-commit review in full screen: the staged diff, the findings beside it, approve / reject / unstage.

Run by ``devagent review --staged`` when a terminal is available (also from a
git hook, whose stdin is not the terminal: the app is attached to /dev/tty).
Exit code 0 = approve (the commit proceeds), 1 = reject (the commit is aborted).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from tui.app.widgets.diff_panel import DiffPanel
from tui.protocol.words import plural

if TYPE_CHECKING:
    from tui.config import Config
    from tui.git.repo import Repo
    from tui.git.review import Finding, ReviewResult

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


class ReviewApp(App[int]):
    """BINDINGS: a approve, r / q / escape reject, space mark a hunk (✗ = to unstage), u unstage marked hunks,
    f focus the findings (enter jumps to the file), d focus the diff."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve commit", priority=True),
        Binding("r,q,escape", "reject", "Reject commit", priority=True),
        Binding("u", "unstage", "Unstage ✗ hunks"),
        Binding("f", "focus_findings", "Findings"),
        Binding("d", "focus_diff", "Diff"),
    ]
    CSS = """
    #summary { height: auto; padding: 0 1; background: $panel; }
    #body { height: 1fr; }
    #findings { width: 48; height: 1fr; border: round $panel-lighten-2; }
    #findings:focus { border: round $primary; }
    """

    def __init__(self, repo: "Repo", config: "Config", result: "ReviewResult") -> None:
        super().__init__()
        self.repo = repo
        self.config = config
        self.result = result
        try:
            from tui.app import themes

            loaded, _problems = themes.load_themes(themes.user_theme_dir(config.ui.theme_dir or None))
            for theme in loaded:
                self.register_theme(theme)
            self.theme, _ = themes.resolve_theme_name(config.ui.theme, self.available_themes)
        except Exception:  # noqa: BLE001 - a theme problem must never block a commit review
            self.theme = "textual-dark"

    def get_theme_variable_defaults(self) -> dict[str, str]:
        try:
            from tui.app.themes import THEME_VARIABLE_DEFAULTS
        except ImportError:
            return {}
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield Static(id="summary")
        with Horizontal(id="body"):
            with Vertical(id="findings-box"):
                yield OptionList(id="findings")
            yield DiffPanel()
        yield Footer()

    def on_mount(self) -> None:
        self.title = "devagent review"
        self._refresh(self.repo.diff_staged())
        self.query_one(DiffPanel).view.focus()

    def _refresh(self, staged: str) -> None:
        findings = self.result.findings
        blocking = self.result.blocking(self.config)
        summary = Text()
        summary.append("Staged changes: ", style="bold")
        summary.append(f"{plural(len(findings), 'finding')}, {len(blocking)} blocking. ")
        summary.append(f"({self.result.model_status}) ", style="dim")
        summary.append("a approve · r reject · space mark hunk ✗ · u unstage ✗ hunks", style="bold")
        self.query_one("#summary", Static).update(summary)
        options = self.query_one("#findings", OptionList)
        options.clear_options()
        for f in findings:
            options.add_option(Option(_finding_text(f)))
        if not findings:
            options.add_option(Option(Text("No findings.", style="dim"), disabled=True))
        self.query_one(DiffPanel).show_diff(staged, mode="staged", title="Staged changes (✗ = unstage with u)")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "findings" or not 0 <= event.option_index < len(self.result.findings):
            return
        finding = self.result.findings[event.option_index]
        view = self.query_one(DiffPanel).view
        index = view.index
        if index is not None:
            for f in index.files:
                if f.path == finding.file:
                    view.jump_to_file(f.index)
                    view.focus()
                    break

    def action_approve(self) -> None:
        self.exit(0)

    def action_reject(self) -> None:
        self.exit(1)

    def action_focus_findings(self) -> None:
        self.query_one("#findings", OptionList).focus()

    def action_focus_diff(self) -> None:
        self.query_one(DiffPanel).view.focus()

    def action_unstage(self) -> None:
        from tui.git.review import ReviewResult, deterministic

        view = self.query_one(DiffPanel).view
        marked = view.rejected_hunks()
        if not marked:
            self.notify("Mark hunks with space first (✗ = unstage).", timeout=3)
            return
        staged = self.repo.diff_staged()
        try:
            self.repo.unstage_hunks(staged, marked)
        except Exception as exc:  # noqa: BLE001 - shown, never a traceback
            self.notify(f"Could not unstage: {exc}", severity="error")
            return
        staged = self.repo.diff_staged()
        self.result = ReviewResult(deterministic(self.repo, staged, self.config), self.result.model_status)
        self._refresh(staged)
        self.notify(f"Unstaged {plural(len(marked), 'hunk')}; they stay in your working tree.", timeout=3)


def _finding_text(f: "Finding") -> Text:
    text = Text()
    text.append(f"{f.severity:<7} ", style=SEVERITY_STYLE.get(f.severity, ""))
    text.append(f"{f.file}:{f.line}" if f.line else f.file, style="bold")
    text.append(f"\n  {f.reason} [{f.check}]")
    return text


def run_review_app(repo: "Repo", config: "Config", result: "ReviewResult") -> int:
    """Run the review on the controlling terminal; a hook's stdin/stdout are re-attached to /dev/tty first."""
    saved: list[tuple[int, int]] = []
    if not (os.isatty(0) and os.isatty(1)):
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        for target in (0, 1):
            saved.append((target, os.dup(target)))
            os.dup2(fd, target)
        os.close(fd)
    try:
        code: Any = ReviewApp(repo, config, result).run()
    finally:
        for target, copy in saved:
            os.dup2(copy, target)
            os.close(copy)
    return 1 if code is None else int(code)
