"""The headless engine. Nothing under tui.core may import textual (tests/core/test_import_hygiene.py)."""
