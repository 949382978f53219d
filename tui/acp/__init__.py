"""`devagent acp`: the engine behind the Agent Client Protocol (JSON-RPC 2.0 over stdio, newline-delimited).

Editors (Zed, JetBrains, Neovim plug-ins, Toad) drive the same Session, Policy, sandbox and approvals as
the TUI; every proposal becomes a ``session/request_permission`` (one per hunk for edits). See docs/acp.md.
"""
