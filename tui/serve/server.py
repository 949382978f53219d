"""The web server of `devagent serve`: one page, its static files and one websocket, all behind the guard."""

from __future__ import annotations

import html
import json
import logging
from pathlib import Path
from typing import Any, Awaitable, Callable

from aiohttp import WSMsgType, web

from tui.serve.guard import Guard
from tui.serve.shared_app import SharedApp

log = logging.getLogger("devagent.serve")

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<link rel="stylesheet" href="{prefix}static/css/xterm.css"><script src="{prefix}static/js/textual.js"></script>
<style>html, body {{ margin: 0; height: 100%; background: #0c181f; }}
#terminal {{ position: absolute; inset: 0; }}
.closed-dialog {{ display: none; position: absolute; inset: 0; z-index: 10; align-items: center;
  justify-content: center; color: #eee; font-family: monospace; background: #0c181f; }}
body.-closed .closed-dialog {{ display: flex; flex-direction: column; }}
button {{ margin: 16px; padding: 12px 24px; font-family: monospace; }}</style></head>
<body><div class="closed-dialog"><p>The connection to devagent ended.</p>
<button type="button" onclick="window.location.reload()">Reconnect</button></div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{websocket}" data-font-size="{font}"></div>
</body></html>
"""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def static_dir() -> Path:
    import textual_serve

    return Path(textual_serve.__file__).parent / "static"


def make_app(guard: Guard, shared: SharedApp, title: str) -> web.Application:
    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
        why = guard.refusal(request.path, request.headers, upgrade)
        if why:
            (log.info if request.path == "/favicon.ico" else log.warning)("refused %s %s: %s", request.method, request.path.split("/s/")[0] or "/", why)
            return web.Response(status=403, text=f"devagent serve: forbidden ({why})\n")
        response = await handler(request)
        response.headers.setdefault("Referrer-Policy", "no-referrer")  # the token is in the URL
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    async def page(request: web.Request) -> web.Response:
        font = request.query.get("fontsize", "16")
        host = request.headers["Host"]
        body = PAGE.format(title=html.escape(title), prefix=guard.prefix, font=int(font) if font.isdigit() else 16,
                           websocket=f"ws://{host}{guard.prefix}ws")
        csp = f"default-src 'self'; connect-src ws://{host}; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"
        return web.Response(text=body, content_type="text/html", headers={"Content-Security-Policy": csp})

    async def websocket(request: web.Request) -> web.WebSocketResponse:
        page_socket = web.WebSocketResponse(heartbeat=15, max_msg_size=1 << 20)
        await page_socket.prepare(request)
        width = _int(request.query.get("width"), 80)
        height = _int(request.query.get("height"), 24)
        await shared.attach(page_socket, width, height)
        try:
            async for message in page_socket:
                if message.type != WSMsgType.TEXT:
                    continue
                try:
                    envelope = json.loads(message.data)
                except ValueError:
                    continue
                if not isinstance(envelope, list) or not envelope:
                    continue
                if envelope[0] == "ping":
                    await page_socket.send_json(["pong", envelope[1] if len(envelope) > 1 else None])
                else:
                    await shared.input(envelope)
        finally:
            shared.detach(page_socket)
        return page_socket

    app = web.Application(middlewares=[check])
    app.add_routes([web.get(guard.prefix, page), web.get(f"{guard.prefix}ws", websocket),
                    web.static(f"{guard.prefix}static", static_dir())])
    return app


def _int(value: Any, default: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return number if 0 < number < 1000 else default
