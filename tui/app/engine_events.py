"""How the screen follows the engine: one handler per event class, bound to it by ``@handles``.

The handlers are methods of ``MainScreen`` (tui/app/screens/main.py); its ``on_engine_event`` looks the
event's class up (``handler_for``: never its type string, and never a name Textual might also use for its
own ``_on_*`` handlers). Handlers own every state change (workers never touch widgets).
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from tui.protocol import events as ev

Handler = Callable[[Any, Any], None]
HANDLERS: dict[type[ev.Event], Handler] = {}  # event class -> the screen's handler for it
F = TypeVar("F", bound=Handler)


def handles(kind: type[ev.Event]) -> Callable[[F], F]:
    """Bind the decorated screen method to one event class (one handler per class)."""
    def bind(method: F) -> F:
        if kind in HANDLERS:
            raise TypeError(f"{kind.__name__} already has a handler: {HANDLERS[kind].__qualname__}")
        HANDLERS[kind] = method
        return method
    return bind


def handler_for(kind: type[ev.Event]) -> Handler | None:
    """The handler of ``kind``, else of the nearest event class it derives from (None: the screen ignores it)."""
    return next((HANDLERS[k] for k in kind.__mro__ if k in HANDLERS), None)
