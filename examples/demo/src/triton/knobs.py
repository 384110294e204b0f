"""The few Triton knobs the stand-in honours, read from the same variables."""

import os


def _env_flag(name):
    return os.environ.get(name, "0").lower() in ("1", "true", "on", "yes")


class _Autotuning:
    @property
    def print(self):
        return _env_flag("TRITON_PRINT_AUTOTUNING")

    @property
    def cache(self):
        return _env_flag("TRITON_CACHE_AUTOTUNING")


class _Runtime:
    interpret = False


class _Cache:
    @property
    def dir(self):
        return os.environ.get("TRITON_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".triton", "cache")


autotuning = _Autotuning()
runtime = _Runtime()
cache = _Cache()
