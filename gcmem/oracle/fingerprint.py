"""A model directory's content fingerprint (part of the oracle identity θ).

Hashing ~100 MB of weights costs a few hundred milliseconds, so each file's SHA-256 is cached
by (absolute path, size, mtime): in process, and in a small JSON file when one is given, so a
restarted worker does not re-read unchanged weights.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from gcmem.oracle.base import OracleError

# Files that determine a classifier's outputs: weights, tokenizer, model config. READMEs,
# licences and training logs do not change scores, so they do not change θ.
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".msgpack", ".h5")
_TOKENIZER_FILES = frozenset(
    [
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "added_tokens.json",
        "vocab.txt",
        "vocab.json",
        "merges.txt",
        "spm.model",
        "sentencepiece.bpe.model",
        "tokenizer.model",
    ]
)

_lock = threading.Lock()
_memory_cache: dict[tuple[str, int, int], str] = {}


def local_model_dir(source: str) -> Path:
    """The directory holding a model's files: ``source`` itself, or its hub cache snapshot."""
    if Path(source).is_dir():
        return Path(source)
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(source, local_files_only=True))
    except Exception as exc:  # the hub library raises several types for "not cached"
        raise OracleError(f"cannot locate the files of {source!r} to fingerprint them") from exc


def fingerprint_files(model_dir: Path) -> list[Path]:
    files = [
        p
        for p in sorted(model_dir.rglob("*"))
        if p.is_file()
        and ".git" not in p.parts
        and (p.name in _TOKENIZER_FILES or p.name.endswith(_WEIGHT_SUFFIXES))
    ]
    if not any(p.name.endswith(_WEIGHT_SUFFIXES) for p in files):
        raise FileNotFoundError(f"no weight files in {model_dir}")
    return files


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class WeightsFingerprint:
    """SHA-256 over a model directory's weight, tokenizer and config files."""

    def __init__(self, cache_file: Path | None = None) -> None:
        self.cache_file = cache_file
        self.files_hashed = 0  # files actually read (cache misses), for tests and logs

    def of(self, model_dir: str | Path) -> str:
        root = Path(model_dir).resolve()
        disk = self._load_disk_cache()
        combined = hashlib.sha256()
        dirty = False
        for path in fingerprint_files(root):
            real = path.resolve()
            stat = real.stat()
            key = (str(real), stat.st_size, stat.st_mtime_ns)
            disk_key = f"{key[0]}|{key[1]}|{key[2]}"
            with _lock:
                file_hash = _memory_cache.get(key)
            if file_hash is None:
                file_hash = disk.get(disk_key)
            if file_hash is None:
                file_hash = _file_sha256(real)
                self.files_hashed += 1
                disk[disk_key] = file_hash
                dirty = True
            with _lock:
                _memory_cache[key] = file_hash
            combined.update(f"{path.relative_to(root).as_posix()}\0{file_hash}\n".encode())
        if dirty:
            self._save_disk_cache(disk)
        return combined.hexdigest()

    def _load_disk_cache(self) -> dict[str, str]:
        if self.cache_file is None or not self.cache_file.is_file():
            return {}
        try:
            data = json.loads(self.cache_file.read_text())
        except (OSError, ValueError):
            return {}  # a damaged cache only costs a re-hash
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _save_disk_cache(self, data: dict[str, str]) -> None:
        if self.cache_file is None:
            return
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.cache_file.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(data, sort_keys=True))
            os.replace(tmp, self.cache_file)
        except OSError:
            pass  # read-only data dir: the in-process cache still works


def clear_memory_cache() -> None:
    with _lock:
        _memory_cache.clear()
