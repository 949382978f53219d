"""Themes are data files: shipped ones load, broken user files are reported once and skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App

from tui.app.themes import (
    DEFAULT_THEME,
    DIFF_VARIABLES,
    RISK_VARIABLES,
    THEME_VARIABLE_DEFAULTS,
    install_themes,
    load_themes,
    resolve_theme_name,
    user_theme_dir,
)

SHIPPED = {"devagent-dark", "devagent-light", "devagent-high-contrast"}


class ThemeApp(App[None]):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)


def test_all_shipped_themes_load_with_diff_and_risk_colours() -> None:
    themes, problems = load_themes(None)
    assert problems == []
    by_name = {t.name: t for t in themes}
    assert SHIPPED <= set(by_name)
    for theme in by_name.values():
        for key in (*DIFF_VARIABLES, *RISK_VARIABLES):
            assert key in theme.variables, (theme.name, key)
    assert by_name["devagent-light"].dark is False


def test_broken_user_theme_is_reported_once_and_skipped(tmp_path: Path) -> None:
    (tmp_path / "bad-colour.toml").write_text('name = "bad"\nprimary = "not-a-colour"\n[variables]\ndiff-added = "#zz"\n')
    (tmp_path / "bad-toml.toml").write_text('name = "oops\nprimary = \n')
    (tmp_path / "no-primary.toml").write_text('name = "halfdone"\n')
    (tmp_path / "readme.txt").write_text("not a theme")
    themes, problems = load_themes(tmp_path)
    names = {t.name for t in themes}
    assert SHIPPED <= names and not {"bad", "halfdone"} & names
    assert sum("bad-colour.toml" in p for p in problems) == 2  # both wrong colours named, file skipped
    assert sum("bad-toml.toml" in p for p in problems) == 1
    assert any("no-primary.toml" in p and "primary" in p for p in problems)
    assert not any("readme.txt" in p for p in problems)
    assert any("'not-a-colour' is not a colour" in p for p in problems)


def test_user_theme_is_added_and_can_replace_a_shipped_one(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(
        'name = "mine"\nprimary = "#336699"\ndark = false\n[variables]\ndiff-added = "rgb(0, 128, 0)"\n')
    (tmp_path / "dark.toml").write_text('name = "devagent-dark"\nprimary = "#ff00ff"\n')
    themes, problems = load_themes(tmp_path)
    by_name = {t.name: t for t in themes}
    assert problems == []
    assert by_name["mine"].variables["diff-added"] == "rgb(0, 128, 0)"
    assert by_name["mine"].variables["diff-removed"]  # missing variables come from the light defaults
    assert by_name["devagent-dark"].primary == "#ff00ff"


def test_unknown_theme_name_falls_back_to_the_default() -> None:
    assert resolve_theme_name("devagent-light", ["devagent-light", DEFAULT_THEME]) == ("devagent-light", None)
    name, problem = resolve_theme_name("solarised-nope", [DEFAULT_THEME, "devagent-light"])
    assert name == DEFAULT_THEME and problem and "solarised-nope" in problem
    assert resolve_theme_name(None, [DEFAULT_THEME]) == (DEFAULT_THEME, None)


def test_user_theme_dir_follows_config_then_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_theme_dir("") == tmp_path / "xdg" / "devagent" / "themes"
    assert user_theme_dir(str(tmp_path / "mine")) == tmp_path / "mine"


async def test_app_uses_default_theme_when_the_chosen_one_is_broken(tmp_path: Path) -> None:
    (tmp_path / "broken.toml").write_text('name = "broken"\nprimary = "#12345"\n')
    app = ThemeApp()
    async with app.run_test() as pilot:
        problems = install_themes(app, "broken", tmp_path)
        await pilot.pause()
        assert app.theme == DEFAULT_THEME
        assert len([p for p in problems if "broken.toml" in p]) == 1
        assert any("unknown theme 'broken'" in p for p in problems)
        assert app.theme_variables["diff-added"] == "#7ee787"
        app.theme = "devagent-high-contrast"
        await pilot.pause()
        assert app.theme_variables["risk-high"] == "#ff3030"


async def test_the_app_paints_with_its_theme_then_offers_every_theme(tmp_path: Path) -> None:
    """Only the chosen shipped theme is read before the first frame; ctrl+t still reaches all of them."""
    from tests.app.snapshot_apps.factory import build_app, wait_for
    from tests.conftest import make_repo

    app = build_app(make_repo(tmp_path / "repo"), git_refresh=False)
    async with app.run_test() as pilot:
        assert app.theme == DEFAULT_THEME
        await wait_for(pilot, lambda: SHIPPED <= set(app.theme_names), what="the other themes")
        seen = {app.theme}
        for _ in SHIPPED:
            await pilot.press("ctrl+t")
            seen.add(app.theme)
        assert SHIPPED <= seen


async def test_a_user_theme_that_replaces_the_default_is_used_from_the_first_frame(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.app.snapshot_apps.factory import build_app
    from tests.conftest import make_repo
    from tui.app.themes import first_theme

    themes_dir = tmp_path / "xdg" / "devagent" / "themes"
    themes_dir.mkdir(parents=True)
    (themes_dir / "dark.toml").write_text('name = "devagent-dark"\nprimary = "#ff00ff"\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert first_theme(DEFAULT_THEME, themes_dir) is None  # a user file may answer to the name: read them all
    app = build_app(make_repo(tmp_path / "repo"), git_refresh=False)
    assert app.theme == DEFAULT_THEME and app.current_theme.primary == "#ff00ff"
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.current_theme.primary == "#ff00ff"
