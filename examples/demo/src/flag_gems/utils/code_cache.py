"""Where FlagGems keeps generated files and the tuner database.

$FLAGGEMS_CACHE_DIR, else ~/.flaggems; the tuner database lives in config_cache/.
"""

import functools
import os
from pathlib import Path


@functools.lru_cache(maxsize=None)
def cache_dir_path() -> Path:
    _cache_dir = os.environ.get("FLAGGEMS_CACHE_DIR")
    if _cache_dir is None:
        return Path.home() / ".flaggems"
    return Path(_cache_dir)


def cache_dir() -> Path:
    _cache_dir = cache_dir_path()
    os.makedirs(_cache_dir, exist_ok=True)
    return _cache_dir


def config_cache_dir() -> Path:
    _config_cache_dir = cache_dir() / "config_cache"
    os.makedirs(_config_cache_dir, exist_ok=True)
    return _config_cache_dir
