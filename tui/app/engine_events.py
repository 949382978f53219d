"""How the screen follows the engine: one handler per event class, bound to it by ``@handles``.

The handlers are methods of ``MainScreen`` (tui/app/screens/main.py); its ``on_engine_event`` looks the
event's class up (``handler_for``: never its type string, and never a name Textual might also use for its
own ``_on_*`` handlers). Handlers own every state change (workers never touch widgets).

A handler is bound to the class's name in tui/protocol/events.py, not to the class object: that module (26
dataclasses, about 10 ms to build) is not needed before the first frame, and the first event imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from tui.protocol import events as ev

EVENTS_MODULE = "tui.protocol.events"
Handler = Callable[[Any, Any], None]
HANDLERS: dict[str, Handler] = {}  # the name of an event class in tui.protocol.events -> the screen's handler
F = TypeVar("F", bound=Handler)


def handles(kind: "str | type[ev.Event]") -> Callable[[F], F]:
    """Bind the decorated screen method to one event class of tui.protocol.events, by its name (one handler
    per class)."""
    name = kind if isinstance(kind, str) else kind.__name__

    def bind(method: F) -> F:
        if name in HANDLERS:
            raise TypeError(f"{name} already has a handler: {HANDLERS[name].__qualname__}")
        HANDLERS[name] = method
        return method
    return bind


def handler_for(kind: "type[ev.Event]") -> Handler | None:
    """The handler of ``kind``, else of the nearest event class it derives from (None: the screen ignores it)."""
    return next((HANDLERS[k.__name__] for k in kind.__mro__
                 if k.__module__ == EVENTS_MODULE and k.__name__ in HANDLERS), None)
