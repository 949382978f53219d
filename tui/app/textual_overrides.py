"""Every place where the app's classes replace one of Textual's own methods on purpose, and why.

Textual calls many of its methods by name from deep inside (``Widget.get_selection`` calls
``self._render()``), so a method of ours that only happens to share a name with one of Textual's
replaces it, and breaks Textual far from where it was written: copying a selection crashed that way.
``tests/app/test_textual_overrides.py`` checks every class in ``tui.app`` against the Textual
classes it derives from; a name they share must be a documented hook (``HOOKS``), a message handler
(Textual calls the handler of every class in the MRO itself, so a handler never calls ``super()``),
or an entry of ``OVERRIDES`` with its reason. Each override was checked against ``TEXTUAL_VERSION``:
when Textual is upgraded, re-read the overridden methods there and update the version.
"""

from __future__ import annotations

TEXTUAL_VERSION = "8.2.8"

# Textual's documented extension points: class settings and methods a subclass is meant to define.
HOOKS: frozenset[str] = frozenset({
    "AUTO_FOCUS", "BINDINGS", "CSS", "CSS_PATH", "COMPONENT_CLASSES", "DEFAULT_CSS", "ENABLE_COMMAND_PALETTE",
    "HORIZONTAL_BREAKPOINTS", "VERTICAL_BREAKPOINTS", "TITLE", "SUB_TITLE",
    "compose", "render", "render_line", "get_content_height", "get_content_width", "get_selection",
    "selection_updated", "get_default_screen", "get_system_commands", "get_theme_variable_defaults",
})

# "Class.name": why it replaces Textual's method (private ones first). Checked against TEXTUAL_VERSION.
OVERRIDES: dict[str, str] = {
    "Reply._size_updated": "a reply that grows keeps the styles cache above its first changed line "
                           "(Textual drops the whole cache); calls Widget._size_updated with layout=False",
    "AgentPane._size_updated": "calls Widget._size_updated with layout=False: setting the virtual size from the "
                               "running layout asked for a second layout of the screen whenever a reply grew",
    "Reply._set_dirty": "with _size_updated: marks only the lines from the first change down as dirty",
    "Reply.notify_style_update": "a CSS or theme change restyles the cached lines when next painted; calls super",
    "OutputLog._size_updated": "passes the Log's own virtual size: Textual's compared the compositor's, which "
                               "always differs, and repainted both scrollbars at every layout of the screen",
    "DiffView.render_lines": "reads the frame's state (scroll, width, accepted hunks) once per paint, then "
                             "Widget.render_lines",
    "DiffView.get_line_filters": "without a border of its own the view applies the app's line filters to each "
                                 "cached row once, not Textual to every row of every frame; calls super otherwise",
    "DiffView.notify_style_update": "a CSS or theme change drops the cached diff styles; calls super",
    "DiffView.watch_scroll_y": "a scroll moves the current hunk along; calls ScrollView.watch_scroll_y",
    "PromptInput.action_cursor_up": "up on the first line walks the prompt history; else TextArea's",
    "PromptInput.action_cursor_down": "down on the last line walks the prompt history; else TextArea's",
    "HoldUntilReady.on_event": "Textual's dispatcher of every event (not a handler: it calls super): keys and "
                               "pastes wait until the real prompt is in, right after the first frame (tui/app/hold.py)",
    "RowCompositor._get_renders": "a partial paint renders each widget over the painted rows only (Textual "
                                  "rendered every widget whose container overlaps them over its whole height)",
    "MainScreen._compositor": "the main screen paints with RowCompositor (tui/app/screens/compositor.py)",
    "DevagentApp.action_quit": "cancels workers and pending approvals and closes the session before exiting",
    "DevagentApp.refresh_css": "before any screen is styled, new theme variables are set without a second parse",
}
