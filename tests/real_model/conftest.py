"""Fixtures for tests that run the real Qwen2.5-Coder model through the embedded llama.cpp backend.

They skip (with the reason and the command to fix it) when the model is not cached or the
runtime is not installed; `scripts/fetch-test-model 1.5b` and `pip install -e '.[embedded]'` fix both.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from tui.llm.modelcache import model_dir

MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


@pytest.fixture(scope="session")
def real_model_path() -> Path:
    """The cached 1.5B GGUF ($DEVAGENT_TEST_MODEL overrides), or skip saying how to get it."""
    if importlib.util.find_spec("xllamacpp") is None:
        pytest.skip("xllamacpp is not installed: pip install -e '.[embedded]'")
    path = Path(os.environ.get("DEVAGENT_TEST_MODEL") or model_dir() / MODEL_FILE)
    if not path.is_file():
        pytest.skip(f"real model not cached at {path}: run scripts/fetch-test-model 1.5b")
    return path


def _load_bench() -> object:
    """scripts/bench_model.py holds the one harness for running devagent on the real model."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "bench_model.py"
    if str(path.parent) not in sys.path:  # bench_model imports its sibling bench_common, as when run as a script
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("bench_model", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_model"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def bench() -> object:
    return _load_bench()
