"""What the model is sent: the conversation fitted into its window (fitter.py), the system prompt, the
request-ranked repo map and the project's instructions."""

from tui.engine.context.fitter import REMOVED, Fitter, estimate_tokens, fit, message_tokens, window, wire

__all__ = ["REMOVED", "Fitter", "estimate_tokens", "fit", "message_tokens", "window", "wire"]
