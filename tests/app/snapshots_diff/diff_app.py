"""Snapshot app for the diff viewer: a fixed diff, a fixed theme, no clock or cursor blink."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tests.app.snapshots_diff.sample import SAMPLE_DIFF
from tui.app.themes import THEME_VARIABLE_DEFAULTS, install_themes
from tui.app.widgets.diff_panel import DiffPanel


class DiffSnapshotApp(App[None]):
    """Mounts one DiffPanel with SAMPLE_DIFF; options pick theme, layout and a rejected hunk."""

    def __init__(self, theme: str = "devagent-dark", *, side_by_side: bool = False,
                 rejected: tuple[int, ...] = (), mode: str = "proposal", diff: str = SAMPLE_DIFF) -> None:
        super().__init__()
        self._theme_name = theme
        self._side_by_side = side_by_side
        self._rejected = rejected
        self._mode = mode
        self._diff = diff

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield DiffPanel()

    def on_mount(self) -> None:
        install_themes(self, self._theme_name, None)
        panel = self.query_one(DiffPanel)
        panel.show_diff(self._diff, mode=self._mode, title="edit calc.py, notes.md, old.txt")
        view = panel.view
        view.side_by_side = self._side_by_side
        for index in self._rejected:
            view.set_hunk(index, False)
        view.focus()


if __name__ == "__main__":
    DiffSnapshotApp().run()
