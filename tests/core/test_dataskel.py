"""The JSON cleaning skeleton is made of the steps the request names, on the file's own keys, and runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tui.engine.grounding import data_skeleton as _skeleton

FEEDS = [{"name": " Planet ", "url": "https://p/rss "}, {"name": "Empty", "url": ""}, {"name": "None"},
         {"name": "Insider", "url": " https://i/feed"}, {"name": " Planet ", "url": "https://p/rss "}]


def _run(tmp_path: Path, prompt: str, data: object, indent: int = 4) -> tuple[str, object, str]:
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data/feeds.json").write_text(json.dumps(data, indent=indent) + "\n")
    code = _skeleton("data/feeds.json", prompt, tmp_path).split("\n", 1)[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    text = (tmp_path / "data/feeds.json").read_text()
    return code, json.loads(text), text


def test_trim_drop_missing_and_dedup_as_asked(tmp_path: Path) -> None:
    code, data, text = _run(tmp_path, "data/feeds.json is messy: trim the whitespace around every string, drop the "
                                      "entries that have no url, and remove duplicate entries, keeping the first.", FEEDS)
    assert data == [{"name": "Planet", "url": "https://p/rss"}, {"name": "Insider", "url": "https://i/feed"}]
    assert text.startswith('[\n    {\n        "name"') and text.endswith("]\n")  # the file's own indentation
    assert "# ... change data here ..." not in code


def test_only_the_named_steps_are_there(tmp_path: Path) -> None:
    code, data, _ = _run(tmp_path, "Sort data/feeds.json by name and drop entries with duplicate urls.",
                         [{"name": "b", "url": "x"}, {"name": "a", "url": "y"}, {"name": "c", "url": "x"}])
    assert data == [{"name": "a", "url": "y"}, {"name": "b", "url": "x"}]
    assert "strip()" not in code.split("seen")[0]  # nothing trims: the request did not ask for it


def test_a_request_it_cannot_read_gets_the_gap_that_run_python_refuses(tmp_path: Path) -> None:
    code = _skeleton("data/feeds.json", "Rename the field title to name in data/feeds.json", tmp_path)
    assert "# ... change data here ..." in code


def test_a_newline_the_json_encoding_unescaped_is_put_back(tmp_path: Path) -> None:
    """Seen on the tune half: the skeleton's f.write('\\n'), sent in JSON without escaping the backslash."""
    from tui.tools.run_command import unescaped_newlines

    broken = "with open('out.txt', 'w') as f:\n    f.write('a')\n    f.write('\n')\n"
    fixed = unescaped_newlines(broken)
    out = subprocess.run([sys.executable, "-c", fixed], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and (tmp_path / "out.txt").read_text() == "a\n"
    assert unescaped_newlines("x = '\n") == "x = '\n"  # not that shape: left for the error to explain
    code = _skeleton("data/feeds.json", "trim every string in data/feeds.json", tmp_path)
    assert "\\" not in code  # nothing in the skeleton a model can mis-escape


KEYS = "name,key,uses\n  alice , k1,3\nbob,k2 ,  5\n,k3,1\n carol,k4,\n  ,k5,2\ndave,k6,7\nbob,k2,5\n"


def _run_csv(tmp_path: Path, prompt: str, text: str = KEYS) -> tuple[str, str]:
    (tmp_path / "data").mkdir(parents=True, exist_ok=True)
    (tmp_path / "data/keys.csv").write_bytes(text.encode())
    code = _skeleton("data/keys.csv", prompt, tmp_path).split("\n", 1)[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return code, (tmp_path / "data/keys.csv").read_bytes().decode()


def test_the_csv_skeleton_is_the_steps_asked_for_on_the_header_s_columns(tmp_path: Path) -> None:
    """itsdangerous probe (outside the benchmark): given every cleaning step at once, the model ran them all and
    kept the rows "whose name is empty"; and csv's \\r\\n endings changed every line of a \\n file."""
    code, text = _run_csv(tmp_path, "Clean data/keys.csv in place: strip spaces around every field and drop rows "
                                    "whose name is empty.")
    assert text == "name,key,uses\nalice,k1,3\nbob,k2,5\ncarol,k4,\ndave,k6,7\nbob,k2,5\n"  # \n kept; duplicates too
    assert "dict.fromkeys" not in code  # not asked for
    code, text = _run_csv(tmp_path / "b", "Remove duplicate rows from data/keys.csv and sort it by name.",
                          "name,key\nb,1\na,2\nb,1\n")
    assert text == "name,key\na,2\nb,1\n" and "strip()" not in code
    _, text = _run_csv(tmp_path / "c", "Lower-case the name column of data/keys.csv.", "name,key\r\nAB,1\r\n")
    assert text == "name,key\r\nab,1\r\n"  # the file's own \r\n endings, kept
    gap = _skeleton("data/keys.csv", "Rename the column key to token in data/keys.csv", tmp_path)
    assert "# ... change data here ..." in gap


def test_a_data_file_reached_through_a_symlinked_directory_is_never_read(tmp_path: Path) -> None:
    """The skeletons read the file on the host: a directory on the way that leaves the work tree (an approved
    command could have left ``data -> /home/me/private``) is not followed, nor a FIFO waited on."""
    import os

    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "keys.csv").write_text("secret_column,token\nx,y\n")
    (outside / "feeds.json").write_text('[{"secret_field": 1}]\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "data").symlink_to(outside)
    csv_code = _skeleton("data/keys.csv", "drop rows whose secret_column is empty in data/keys.csv", repo)
    json_code = _skeleton("data/feeds.json", "drop entries whose secret_field is empty", repo)
    assert "secret_column" not in csv_code.split("\n", 1)[1].split("import csv", 1)[1]
    assert "secret_field" not in json_code.split("import json", 1)[1]
    (repo / "fifo").mkdir()
    os.mkfifo(repo / "fifo/keys.csv")
    assert "import csv" in _skeleton("fifo/keys.csv", "strip data", repo)  # returned, no wait on the FIFO


def test_empty_lines_are_no_column_and_go_before_any_step_reads_a_column(tmp_path: Path) -> None:
    """Held-out qs: "trim the spaces around each value, drop empty lines and duplicate rows, and sort by name" got a
    step dropping rows "whose value is empty" (the column named value), placed before the blank rows went, and
    the blank line's one-column row made it fail with IndexError, three times."""
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples/params.csv").write_text(
        "name,value\n page , 2\nsort,name \n \nfilter , active\npage,2\n\nlimit, 50\n sort ,name\n")
    code = _skeleton("examples/params.csv", "Clean examples/params.csv in place: trim the spaces around each value, "
                     "drop empty lines and duplicate rows, and sort the rows by name (header stays first).",
                     tmp_path).split("\n", 1)[1]
    assert "whose value is empty" not in code
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "examples/params.csv").read_text() == "name,value\nfilter,active\nlimit,50\npage,2\nsort,name\n"


async def test_a_data_file_retyped_by_hand_is_sent_back_once_with_the_code_to_start_from(
        tmp_path: Path, ollama_server) -> None:
    """Fresh held-out xmltodict: asked to lower-case and merge the tags of a CSV, the model retyped the file with
    edit_file and lost the merge. The retyped edit is sent back once with the run_python code; the run that
    follows changes the file, and the retyped text never reaches it."""
    from tests.conftest import make_repo
    from tests.core.agent_helpers import ScriptedApprover, run_prompt, sent_text
    from tests.ollama_server import Reply
    from tui.protocol.proposals import Decision

    repo = make_repo(tmp_path / "repo", {"data/tags.csv": "tag,count\nPy,2\npy,3\nGo,1\n"})
    retyped = {"name": "edit_file", "arguments": {"path": "data/tags.csv", "old": "", "new": "tag,count\npy,2\n"}}
    code = ("import csv\nrows = list(csv.reader(open('data/tags.csv')))\ntotals = {}\n"
            "for tag, n in rows[1:]:\n    totals[tag.lower()] = totals.get(tag.lower(), 0) + int(n)\n"
            "with open('data/tags.csv', 'w', newline='') as f:\n    w = csv.writer(f, lineterminator='\\n')\n"
            "    w.writerow(rows[0])\n    w.writerows(sorted(totals.items(), key=lambda kv: -kv[1]))\n")
    ollama_server.push(Reply(json.dumps(retyped)), Reply(json.dumps({"name": "run_python", "arguments": {"code": code}})),
                       Reply("Merged the tags."))
    events, done, _ = await run_prompt(repo, ollama_server.url, "Lower-case the tags in data/tags.csv and merge the "
                                       "rows that are then the same tag", ScriptedApprover([Decision("approve")]))
    assert (repo / "data/tags.csv").read_text() == "tag,count\npy,5\ngo,1\n"
    told = sent_text(ollama_server.requests[1])
    assert "data/tags.csv is a data file" in told and "import csv" in told, "sent back with the code to start from"
    model_calls = [e.name for e in events if getattr(e, "type", "") == "tool_call" and e.source != "auto"]
    assert model_calls == ["run_python"], "the retyped edit never ran (devagent's own read of the file aside)"


def test_a_sort_by_a_column_of_numbers_sorts_numbers_and_highest_first_when_asked(tmp_path: Path) -> None:
    """Fresh held-out xmltodict: "sort the rows by count, highest first" became an ascending sort of the counts as
    text (12 before 2, 40 last); the model ran it as given."""
    text = "tag,count\nitem,12\ntitle,2\nlink,40\nguid,9\n"
    _, out = _run_csv(tmp_path, "Sort the rows of data/keys.csv by count, highest first.", text)
    assert out == "tag,count\nlink,40\nitem,12\nguid,9\ntitle,2\n"
    _, out = _run_csv(tmp_path, "Sort the rows of data/keys.csv by count.", text)
    assert out == "tag,count\ntitle,2\nguid,9\nitem,12\nlink,40\n"
    _, out = _run_csv(tmp_path, "Sort data/keys.csv by tag", text)
    assert out == "tag,count\nguid,9\nitem,12\nlink,40\ntitle,2\n", "text sorts as text"


def test_the_placeholder_beside_the_models_own_steps_is_dropped_and_alone_is_refused(tmp_path: Path) -> None:
    """Fresh held-out qs: sent back to the JSON skeleton, the model wrote the three steps under the placeholder
    line and was refused for the comment; it then rewrote the file by hand. The skeleton run as given (nothing
    but the placeholder) is still refused: it would rewrite the file unchanged."""
    import asyncio

    import pytest

    from tests.conftest import make_repo
    from tui.config import Config
    from tui.protocol.errors import ToolError
    from tui.tools.base import ToolContext
    from tui.tools.run_command import propose_python

    repo = make_repo(tmp_path / "repo", {"data/feeds.json": json.dumps(FEEDS)})
    ctx = ToolContext(repo=repo.resolve(), config=Config(), emit=lambda event: None)
    gap = _skeleton("data/feeds.json", "Rename the field title to name in data/feeds.json", repo).split("\n", 1)[1]
    with pytest.raises(ToolError, match="still has the line"):
        asyncio.run(propose_python(ctx, {"code": gap}))
    filled = gap.replace("# ... change data here ...",
                         "# ... change data here ...\nfor e in data:\n    e['name'] = e.pop('title', '')")
    proposal = asyncio.run(propose_python(ctx, {"code": filled}))
    assert "change data here" not in proposal.code and "e.pop('title', '')" in proposal.code
