"""The model server's address: ``--host`` > ``model.host`` in config > ``$OLLAMA_HOST`` > http://127.0.0.1:11434,
accepting the forms Ollama itself accepts ("0.0.0.0:11434", "localhost", ":11500", URLs).

Apart from factory.py because the Ollama backend normalizes its host too, and the factory imports it.
"""

from __future__ import annotations

import ipaddress
import os
import urllib.parse
from typing import TYPE_CHECKING

from tui.protocol.errors import ConfigError

if TYPE_CHECKING:
    from tui.config import Config

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434
# Bind-all addresses are where a server listens, not where a client can always connect.
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1"}


def normalize_host(host: str | None) -> str:
    """Turn any OLLAMA_HOST-style value into ``scheme://host:port[/path]``."""
    raw = (host or "").strip()
    if not raw:
        return DEFAULT_HOST
    scheme, sep, rest = raw.partition("://")
    port = DEFAULT_PORT
    if not sep:
        scheme, rest = "http", raw
    elif scheme == "http":
        port = 80
    elif scheme == "https":
        port = 443
    try:
        split = urllib.parse.urlsplit(f"{scheme}://{rest}")
        name = split.hostname or "127.0.0.1"
        port = split.port or port
    except ValueError as exc:
        raise ConfigError(f"Model server address {raw!r} is not valid ({exc}).",
                          "Use a URL like http://127.0.0.1:11434 in --host, OLLAMA_HOST or model.host.") from None
    name = _WILDCARDS.get(name, name)
    try:
        if isinstance(ipaddress.ip_address(name), ipaddress.IPv6Address):
            name = f"[{name}]"
    except ValueError:
        pass
    path = split.path.strip("/")
    return f"{scheme}://{name}:{port}" + (f"/{path}" if path else "")


def resolve_host(host: str | None, config: "Config | None") -> str:
    """--host, else config model.host, else $OLLAMA_HOST, else the default; normalized."""
    configured = config.model.host if config is not None else ""
    return normalize_host(host or configured or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST)
