"""Themes are data: TOML files in themes/ (shipped) and a user folder, turned into Textual themes.

Each file defines one theme: the Textual base colours plus app variables the
widgets read (``$diff-added``, ``$risk-high``, ...). A broken file is skipped
and described once in the returned problem list, so the app can show one
notification instead of a traceback; the default theme is always available.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from tui.safety.parsing import TooDeep, loads_toml

if TYPE_CHECKING:
    from textual.app import App

DEFAULT_THEME = "devagent-dark"

BASE_KEYS = ("primary", "secondary", "warning", "error", "success", "accent",
             "foreground", "background", "surface", "panel", "boost")
DIFF_VARIABLES = ("diff-added", "diff-removed", "diff-added-bg", "diff-removed-bg", "diff-hunk", "diff-rejected")
RISK_VARIABLES = ("risk-low", "risk-medium", "risk-high")
REQUIRED_KEYS = ("name", "primary")
META_KEYS = ("dark", "syntax", "author", "description", "variables")

# Fallbacks for themes (user or Textual's own) that leave app variables out.
DARK_VARIABLES: dict[str, str] = {
    "diff-added": "#7ee787", "diff-removed": "#ff9b94", "diff-added-bg": "#17361f", "diff-removed-bg": "#431b1f",
    "diff-hunk": "#79c0ff", "diff-rejected": "#6e7681",
    "risk-low": "#4cc16f", "risk-medium": "#e3b341", "risk-high": "#f0605a", "syntax-theme": "monokai",
}
LIGHT_VARIABLES: dict[str, str] = {
    "diff-added": "#116329", "diff-removed": "#a40e26", "diff-added-bg": "#dafbe1", "diff-removed-bg": "#ffebe9",
    "diff-hunk": "#0550ae", "diff-rejected": "#8c959f",
    "risk-low": "#1a7f37", "risk-medium": "#9a6700", "risk-high": "#c4232c", "syntax-theme": "friendly",
}
THEME_VARIABLE_DEFAULTS = DARK_VARIABLES
"""What an App should return from ``get_theme_variable_defaults()`` so CSS may use ``$diff-added`` etc."""


def variable_defaults(dark: bool) -> dict[str, str]:
    return dict(DARK_VARIABLES if dark else LIGHT_VARIABLES)


def theme_variables(app: App[Any]) -> dict[str, str]:
    """The current theme's CSS variables. ``App.get_css_variables()`` regenerates the whole colour
    system on every call; Textual keeps its last result in ``theme_variables`` (refreshed whenever
    the theme or the CSS changes), so widgets that render often read that."""
    return getattr(app, "theme_variables", None) or app.get_css_variables()


def shipped_theme_dirs() -> list[Path]:
    """Where the shipped theme files are: the repo checkout, then installed package data."""
    candidates = [Path(__file__).resolve().parents[2] / "themes", Path(__file__).resolve().parents[1] / "themes"]
    try:
        from importlib.resources import files

        candidates.append(Path(str(files("tui") / "themes")))
    except (ImportError, TypeError, ValueError):
        pass
    import sys

    candidates.append(Path(sys.prefix) / "share" / "devagent" / "themes")
    seen: list[Path] = []
    for path in candidates:
        if path.is_dir() and path not in seen:
            seen.append(path)
    return seen


def user_theme_dir(configured: str | Path | None = None) -> Path:
    """``config.ui.theme_dir`` if set, else ``$XDG_CONFIG_HOME/devagent/themes``."""
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "devagent" / "themes"


def _check_colour(where: str, key: str, value: Any, problems: list[str]) -> None:
    if not isinstance(value, str):
        problems.append(f"{where}: '{key}' must be a colour string, got {type(value).__name__}")
        return
    try:
        Color.parse(value)
    except ColorParseError:
        problems.append(f"{where}: '{key}' = {value!r} is not a colour (use #rrggbb, rgb(...), hsl(...) or a name)")


def theme_from_data(data: dict[str, Any], where: str, *, trusted: bool = False) -> tuple[Theme | None, list[str]]:
    """Validate one theme's data and build a Textual Theme; problems describe what is wrong.

    ``trusted`` (the shipped files, which the tests build) skips asking Textual to generate the whole
    colour system, which costs milliseconds per theme on the way to the first frame."""
    problems: list[str] = []
    for key in REQUIRED_KEYS:
        if key not in data:
            problems.append(f"{where}: missing required key '{key}'")
    name = data.get("name")
    if "name" in data and (not isinstance(name, str) or not name.strip()):
        problems.append(f"{where}: 'name' must be a non-empty string")
    unknown = sorted(set(data) - set(BASE_KEYS) - set(REQUIRED_KEYS) - set(META_KEYS))
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(unknown)}")
    for key in BASE_KEYS:
        if key in data:
            _check_colour(where, key, data[key], problems)
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        problems.append(f"{where}: 'dark' must be true or false")
        dark = True
    syntax = data.get("syntax")
    if syntax is not None and not isinstance(syntax, str):
        problems.append(f"{where}: 'syntax' must be the name of a Pygments style")
    raw_vars = data.get("variables", {})
    if not isinstance(raw_vars, dict):
        problems.append(f"{where}: [variables] must be a table")
        raw_vars = {}
    for key, value in raw_vars.items():
        if key in DIFF_VARIABLES or key in RISK_VARIABLES or key.startswith(("diff-", "risk-")):
            _check_colour(where, f"variables.{key}", value, problems)
        elif not isinstance(value, str):
            problems.append(f"{where}: 'variables.{key}' must be a string")
    if problems:
        return None, problems
    variables = variable_defaults(dark)
    if isinstance(syntax, str):
        variables["syntax-theme"] = syntax
    variables.update({str(k): str(v) for k, v in raw_vars.items()})
    colours = {key: data[key] for key in BASE_KEYS if key in data}
    theme = Theme(name=str(name), dark=dark, variables=variables, **colours)
    if trusted:
        return theme, []
    try:
        theme.to_color_system().generate()
    except Exception as exc:  # Textual rejects a combination we did not foresee: still one clear message
        return None, [f"{where}: Textual could not build the theme: {exc}"]
    return theme, []


def load_theme_file(path: Path, *, trusted: bool = False) -> tuple[Theme | None, list[str]]:
    try:
        data = loads_toml(path.read_text(encoding="utf-8"), str(path))
    except OSError as exc:
        return None, [f"{path}: cannot read theme file: {exc.strerror or exc}"]
    except TooDeep as exc:
        return None, [exc.message]
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return None, [f"{path}: not valid TOML: {exc}"]
    return theme_from_data(data, str(path), trusted=trusted)


def _theme_files(folder: Path) -> Iterable[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix == ".toml" and p.is_file())
    except OSError:
        return []


def load_themes(user_dir: Path | None = None) -> tuple[list[Theme], list[str]]:
    """Every valid shipped theme, then user themes (a user theme may replace a shipped one by name).

    Returns the themes and one message per broken file (each file is reported once).
    """
    by_name: dict[str, Theme] = {}
    problems: list[str] = []
    folders = shipped_theme_dirs()
    shipped = set(folders)
    if user_dir is not None:
        folders.append(user_dir)
    seen_files: set[Path] = set()
    for folder in folders:
        for path in _theme_files(folder):
            real = path.resolve()
            if real in seen_files:
                continue
            seen_files.add(real)
            theme, errors = load_theme_file(path, trusted=folder in shipped and folder != user_dir)
            if theme is None:
                problems.extend(dict.fromkeys(errors))
                continue
            by_name[theme.name] = theme
    return list(by_name.values()), problems


def first_theme(wanted: str | None, user_dir: Path | None = None) -> Theme | None:
    """The shipped theme named ``wanted`` alone, when nothing else can be chosen under that name (no user
    theme files): the app paints its first frame with it and loads the other themes after that frame.
    None when every theme must be read first."""
    name = wanted or DEFAULT_THEME
    if user_dir is not None and any(True for _ in _theme_files(user_dir)):
        return None  # a user file may define (or redefine) that name
    for folder in shipped_theme_dirs():
        theme, _ = load_theme_file(folder / f"{name}.toml", trusted=True)
        if theme is not None and theme.name == name:
            return theme
    return None


def resolve_theme_name(name: str | None, available: Iterable[str]) -> tuple[str, str | None]:
    """The theme to use for ``name`` and a message when it had to fall back to the default."""
    names = set(available)
    if name and name in names:
        return name, None
    fallback = DEFAULT_THEME if DEFAULT_THEME in names else "textual-dark"
    if not name:
        return fallback, None
    choices = ", ".join(sorted(n for n in names if n.startswith("devagent")) or sorted(names))
    return fallback, f"unknown theme {name!r}; using {fallback} (available: {choices})"


def install_themes(app: App[Any], theme: str | None = None, user_dir: Path | None = None) -> list[str]:
    """Register every loadable theme on ``app``, select ``theme`` (or the default); return problems to notify."""
    themes, problems = load_themes(user_dir)
    for item in themes:
        app.register_theme(item)
    chosen, problem = resolve_theme_name(theme, app.available_themes)
    if problem:
        problems.append(problem)
    app.theme = chosen
    return problems
