"""Who may talk to `devagent serve`: the token in the URL path, our own Host, our own Origin.

The server listens on 127.0.0.1 only; the token keeps out other local users and pages, the Host check
keeps out DNS rebinding, the Origin check keeps out other sites' pages and websockets (a browser sends
Origin on every websocket, so a websocket without one is refused too).
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass, field
from typing import Mapping


def new_token() -> str:
    return secrets.token_urlsafe(24)


@dataclass(frozen=True)
class Guard:
    token: str
    port: int
    hosts: tuple[str, ...] = field(default=("127.0.0.1", "localhost"))

    @property
    def prefix(self) -> str:
        return f"/s/{self.token}/"

    def origins(self) -> set[str]:
        return {f"http://{host}:{self.port}" for host in self.hosts}

    def refusal(self, path: str, headers: Mapping[str, str], websocket: bool) -> str:
        """Why this request is refused ('' when it may pass)."""
        if headers.get("Host", "") not in {f"{host}:{self.port}" for host in self.hosts}:
            return "unexpected Host header"
        given = path[len("/s/"):].split("/", 1)[0] if path.startswith("/s/") else ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return "missing or wrong token: open the URL `devagent serve` printed"
        origin = headers.get("Origin")
        if websocket and origin is None:
            return "a websocket without an Origin header"
        if origin is not None and origin not in self.origins():
            return f"requests from another origin ({origin[:80]}) are refused"
        if headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            return "a cross-site request"
        return ""
