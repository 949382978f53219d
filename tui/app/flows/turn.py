"""A prompt sent from the main screen: a turn of the model, or (starting with `!`) the developer's own command.

Either runs as a worker of the screen (group "turn" or "command", which Esc cancels); an engine error
comes back as an ErrorEvent, through the app like the engine's own events.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from tui.app.messages import EngineEvent
from tui.protocol.errors import DevagentError
from tui.protocol.events import ErrorEvent

if TYPE_CHECKING:
    from tui.app.screens.main import MainScreen


def submit(screen: "MainScreen", text: str) -> None:
    agent = screen.agent
    screen.banner.say(error="")
    if screen.busy():
        screen.notify("The agent is busy: escape cancels it.", severity="warning")
        screen.prompt.load_text(text)
        return
    agent.add_prompt(text)
    if screen.session is None:
        agent.add_notice("The engine is still starting (or failed to start: see the banner).", "warning")
        return
    if text.startswith("!"):
        screen.run_worker(_engine_call(screen, "run_user_command", text[1:].strip()), name="command",
                          group="command", exit_on_error=False)
    else:
        if screen.server_state != "connected":
            agent.add_notice("The model server is not connected; trying anyway (`!cmd` works without it).",
                             "warning")
        screen.run_worker(_engine_call(screen, "run_turn", text), name="turn", group="turn", exit_on_error=False)
    screen.update_keys()


async def _engine_call(screen: "MainScreen", method: str, argument: str) -> None:
    try:
        await getattr(screen.session, method)(argument)
    except DevagentError as err:
        screen.app.post_message(EngineEvent(ErrorEvent(err.message, err.hint, source="engine")))
    except asyncio.CancelledError:
        screen.call_later(screen.agent.end_reply)
        raise
    except Exception as err:  # an engine bug must not kill the UI
        screen.app.post_message(EngineEvent(ErrorEvent(f"{type(err).__name__}: {err}",
                                                       "This is a devagent bug; please report it.")))
    finally:
        screen.call_later(screen.wait.work_ended)
        screen.call_later(screen.update_keys)
