"""Shared helpers of the zlbench pytest plugins.

Pure functions (statistics, stable keys, vendor segments) and the file writer.
Nothing here imports torch, triton or flag_gems: the plugins must load under any
pytest, with or without an accelerator stack.
"""

import enum
import json
import math
import os
import re
import signal
import stat
import sys
import tempfile
import threading

PLUGIN_ERROR_TAG = "ZL_PLUGIN_ERROR"

# FlagGems keeps one package per vendor under this prefix, named "_<vendor_name>".
BACKEND_PACKAGE = "flag_gems.runtime.backend"


class ConfigError(Exception):
    """A ZL_* variable has a value the plugins cannot use."""


class ReplayMiss(RuntimeError):
    """Replay mode met a tuning key that the earlier run never recorded.

    A RuntimeError so that FlagGems' benchmark loop reports it as the
    measurement's error message; the timer lets it through instead of
    falling back to another timer.
    """


# ---------------------------------------------------------------------------
# environment


def env_str(name, default=None):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value


def env_choice(name, choices, default):
    value = env_str(name, default)
    if value not in choices:
        raise ConfigError(
            "%s must be one of %s, not '%s'" % (name, ", ".join(choices), value))
    return value


def env_int(name, default, minimum):
    raw = env_str(name)
    if raw is None:
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise ConfigError("%s must be an integer, not '%s'" % (name, raw)) from None
    if value < minimum:
        raise ConfigError("%s must be >= %d, not %d" % (name, minimum, value))
    return value


def env_float(name, default, above=None, below=None):
    """A number from the environment, or default when unset; above/below are
    exclusive bounds (None: none)."""
    raw = env_str(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError("%s must be a number, not '%s'" % (name, raw)) from None
    if not math.isfinite(value) or (above is not None and value <= above) or \
            (below is not None and value >= below):
        bounds = []
        if above is not None:
            bounds.append("greater than %g" % above)
        if below is not None:
            bounds.append("below %g" % below)
        raise ConfigError("%s must be %s, not '%s'" % (name, " and ".join(bounds) or "finite", raw))
    return value


def run_dir():
    """$ZL_RUN_DIR, or None when the plugins run outside zlbench (then they write nothing)."""
    return env_str("ZL_RUN_DIR")


def plugin_file(name):
    """Path of <run>/plugins/<name>, or None without a run directory."""
    base = run_dir()
    if base is None:
        return None
    return os.path.join(base, "plugins", name)


# ---------------------------------------------------------------------------
# files


def write_text_atomic(path, text, durable=True):
    """Write text to path through a temporary file in the same directory and
    os.replace(), so a reader sees the old file or the new one, never a torn one.
    durable=False skips the fsync: for files rewritten often during a run, whose
    last version is written durably at session end."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# Reading files from outside (as zlbench's fsutil.h does): regular files only, under a cap,
# so that a FIFO or a link to /dev/zero is refused instead of read forever.
READ_CAP = 64 << 20
# JSON nesting zlbench's own documents never approach; deeper is refused before json.loads,
# which would raise RecursionError (a pytest INTERNALERROR) on 100k levels.
JSON_MAX_DEPTH = 100

_FILE_TYPES = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a fifo"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
               (stat.S_ISSOCK, "a socket"))


def _not_regular(mode):
    for test, name in _FILE_TYPES:
        if test(mode):
            return "%s, not a regular file" % name
    return "not a regular file"


def read_regular(path, what, cap=READ_CAP):
    """The bytes of a regular file of at most cap bytes; ConfigError naming the file
    (and the cap) for anything else."""
    def refuse(why):
        raise ConfigError("cannot read %s '%s': %s" % (what, path, why))

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            refuse(_not_regular(st.st_mode))
        if st.st_size > cap:
            refuse("%d bytes, over the %d MiB limit for this file" % (st.st_size, cap >> 20))
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as e:
        refuse(e.strerror or str(e))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            refuse(_not_regular(st.st_mode))
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:
            refuse("grew over the %d MiB limit for this file while being read" % (cap >> 20))
        return b"".join(chunks)
    except OSError as e:
        refuse(e.strerror or str(e))
    finally:
        os.close(fd)


def json_depth(text):
    """The deepest nesting of arrays and objects in JSON text (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def read_json(path, what, cap=READ_CAP, max_depth=JSON_MAX_DEPTH):
    """Parse a JSON file read with read_regular; ConfigError naming the file for text
    that is not UTF-8 JSON or nests deeper than max_depth."""
    raw = read_regular(path, what, cap)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError("cannot read %s '%s': not UTF-8 (%s)" % (what, path, e)) from None
    if json_depth(text) > max_depth:
        raise ConfigError("cannot read %s '%s': it nests arrays and objects more than %d levels deep"
                          % (what, path, max_depth))
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ConfigError("cannot read %s '%s': %s" % (what, path, e)) from None


def dumps(obj, indent=2):
    # allow_nan=False: NaN is not JSON; jsonable() has turned non-finite floats into strings.
    return json.dumps(obj, indent=indent, sort_keys=False, allow_nan=False) + "\n"


def write_json_atomic(path, obj, durable=True):
    write_text_atomic(path, dumps(jsonable(obj)), durable)


# ---------------------------------------------------------------------------
# SIGTERM

def _sigterm_unwind(signum, frame):
    # Once: a second SIGTERM ends the process at once, as it would without us.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise KeyboardInterrupt("SIGTERM")


def unwind_on_sigterm():
    """Make SIGTERM raise KeyboardInterrupt, so that pytest unwinds and runs
    pytest_sessionfinish (the plugins write their summaries there) instead of
    Python dying at once. zlbench sends SIGTERM on a timeout and SIGKILL after
    its grace (ZL_KILL_GRACE, 10 s); it reads a timeout from its own flag, so
    pytest's exit status 2 (interrupted) changes nothing there. Only from the
    main thread, and only when nobody handles SIGTERM yet: a handler that the
    code under test or another plugin installed is left alone. Returns whether
    it installed the handler."""
    if threading.current_thread() is not threading.main_thread():
        return False
    try:
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return False
        signal.signal(signal.SIGTERM, _sigterm_unwind)
    except (AttributeError, OSError, ValueError):
        return False
    return True


def restore_sigterm():
    """Undo unwind_on_sigterm() (if its handler is still in place)."""
    if threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGTERM) is _sigterm_unwind:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except (AttributeError, OSError, ValueError):
        pass


def report_error(plugin, what, exc):
    """A plugin failure must never turn into a pytest INTERNALERROR (exit 3, the
    vendor-mismatch code): say it on stderr, on its own line, and carry on."""
    msg = "%s plugin=%s %s: %s" % (PLUGIN_ERROR_TAG, plugin, what, one_line(exc))
    try:
        sys.stderr.write("\n" + msg + "\n")
        sys.stderr.flush()
    except Exception:
        pass


def one_line(exc, limit=400):
    """First line of an exception's message (CUDA errors are long), bounded."""
    text = str(exc).strip() or type(exc).__name__
    line = text.splitlines()[0].strip()
    if len(line) > limit:
        line = line[:limit - 3] + "..."
    return line


def emit_line(text):
    """Print a marker line (VENDOR_MISMATCH, REPLAY_MISS, ...) on its own line to stderr."""
    try:
        sys.stdout.flush()
    except Exception:
        pass
    sys.stderr.write("\n" + text + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------
# JSON conversion and stable keys

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _type_name(value):
    t = type(value)
    return "%s.%s" % (t.__module__, t.__qualname__)


def _is_dtype(value):
    # torch.dtype without importing torch: its type is torch.dtype.
    t = type(value)
    return t.__name__ == "dtype" and t.__module__ == "torch"


def jsonable(value):
    """A JSON-ready copy of value: tuples (torch.Size too) become lists, torch
    dtypes their str() ("torch.float16", the form FlagGems writes in results.json),
    non-finite floats the strings "nan"/"inf"/"-inf", other objects their str()."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if _is_dtype(value):
        return str(value)
    return str(value)


def canonical(value):
    """The process-independent form of a tuning key or config value.

    Equal keys in two processes give equal forms: ints, strings, bools and None
    stay as they are; floats keep their shortest round-trip repr (1 and 1.0 stay
    different, as they are different keys to Triton); tuples and lists become
    lists; torch dtypes become "torch.float16"; anything else becomes
    "<module.Type>str" with memory addresses removed, so an object's default
    repr cannot make a key differ between processes."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {str(k): canonical(value[k]) for k in sorted(value, key=str)}
    if _is_dtype(value):
        return str(value)
    if isinstance(value, enum.Enum):
        return "<%s>%s" % (_type_name(value), canonical(value.value))
    return "<%s>%s" % (_type_name(value), _ADDRESS.sub("", str(value)))


def stable_key(value):
    """A tuning key as one compact JSON string (no spaces): the identity of a key
    in the autotune records and in REPLAY_MISS lines."""
    return json.dumps(canonical(value), separators=(",", ":"), sort_keys=True,
                      allow_nan=False)


# ---------------------------------------------------------------------------
# statistics


def quantile(sorted_values, q):
    """Linear-interpolation quantile of already sorted values (numpy's default
    and triton.testing's _quantile), so our figures agree with do_bench's."""
    n = len(sorted_values)
    if n == 0:
        raise ValueError("quantile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError("quantile %r is outside [0, 1]" % (q,))
    point = q * (n - 1)
    lower = math.floor(point)
    upper = math.ceil(point)
    t = point - lower
    return (1.0 - t) * sorted_values[lower] + t * sorted_values[upper]


def median(values):
    s = sorted(values)
    return quantile(s, 0.5)


# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
_Z975 = 1.959963985


def t975(df):
    """t quantile for a two-sided 95 % interval: a table up to 30 degrees of freedom,
    then the Cornish-Fisher expansion around the normal quantile (exact to 1e-3)."""
    if df < 1:
        raise ValueError("t quantile needs at least 1 degree of freedom, not %r" % (df,))
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return (z + (z ** 3 + z) / (4.0 * df)
            + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96.0 * df * df))


def trimmed_mean(values, cut):
    """Mean of values with floor(cut * n) cut from each end (cut 0.1: 10 % each side)."""
    s = sorted(values)
    g = int(cut * len(s))
    kept = s[g:len(s) - g]
    if not kept:
        raise ValueError("trimmed mean of no values")
    return math.fsum(kept) / len(kept)


def trimmed_mean_ci_rel(values, cut):
    """Relative half-width of the 95 % confidence interval of the trimmed mean
    (Tukey-McLaughlin: the winsorized variance, t with h - 1 degrees of freedom,
    h the number of values kept), or None with fewer than 2 kept values or a zero mean."""
    s = sorted(values)
    n = len(s)
    g = int(cut * n)
    h = n - 2 * g
    if h < 2:
        return None
    kept = s[g:n - g]
    est = math.fsum(kept) / h
    if est == 0:
        return None
    wins = [s[g]] * g + kept + [s[n - g - 1]] * g
    wmean = math.fsum(wins) / n
    ssd = math.fsum((w - wmean) ** 2 for w in wins)
    se = math.sqrt(ssd / (h * (h - 1.0)))
    return t975(h - 1) * se / abs(est)


def median_ci_rel(values, estimate):
    """Relative half-width of a distribution-free 95 % confidence interval of the
    median: the order statistics n/2 -+ 0.98 sqrt(n) (Conover), which for n <= 10
    is the whole range. None with fewer than 2 values or a zero estimate."""
    s = sorted(values)
    n = len(s)
    if n < 2 or not estimate:
        return None
    lo = max(1, int(math.floor(n / 2.0 - 0.98 * math.sqrt(n))))
    hi = min(n, int(math.ceil(1 + n / 2.0 + 0.98 * math.sqrt(n))))
    return (s[hi - 1] - s[lo - 1]) / 2.0 / abs(estimate)


def storage_subset(samples, cap, rng):
    """(stored, "all" | "subset", stride): every sample, or every k-th one from a
    random offset (rng.randrange) when there are more than cap, k the smallest
    stride that keeps at most cap. The offset is drawn, never the values looked
    at, so the subset is unbiased."""
    n = len(samples)
    if n <= cap:
        return list(samples), "all", 1
    k = -(-n // cap)
    start = rng.randrange(k)
    return list(samples[start::k]), "subset", k


def summarize(samples):
    """n, median, min, max, first and third quartile and IQR of samples (ms)."""
    s = sorted(float(v) for v in samples)
    if not s:
        return {"n_samples": 0, "median_ms": None, "min_ms": None, "max_ms": None,
                "q1_ms": None, "q3_ms": None, "iqr_ms": None}
    q1 = quantile(s, 0.25)
    q3 = quantile(s, 0.75)
    return {"n_samples": len(s), "median_ms": quantile(s, 0.5), "min_ms": s[0],
            "max_ms": s[-1], "q1_ms": q1, "q3_ms": q3, "iqr_ms": q3 - q1}


# ---------------------------------------------------------------------------
# vendor package segments

_BACKEND_DIR = re.compile(r"(?:^|/)flag_gems/runtime/backend/(_[A-Za-z0-9_]+)(?:/|$)")


def vendor_segment(module_name, module_file=None):
    """The FlagGems vendor package segment ("_nvidia") a module belongs to, or None.

    Two spellings reach the same files: the absolute
    flag_gems.runtime.backend._<vendor>[.x] and the top-level _<vendor>[.x]
    (or an arch package such as "hopper") that FlagGems itself imports after
    putting the backend directory on sys.path. The first is read from the
    name, the second from the module's file. The segment is compared whole:
    "_mthreads_ext" is its own segment, never "_mthreads"."""
    parts = module_name.split(".")
    if parts[:3] == BACKEND_PACKAGE.split(".") and len(parts) > 3:
        seg = parts[3]
        if seg.startswith("_") and not seg.startswith("__"):
            return seg
        return None
    if module_file:
        m = _BACKEND_DIR.search(str(module_file).replace(os.sep, "/"))
        if m and not m.group(1).startswith("__"):
            return m.group(1)
    return None


def vendor_of_segment(segment):
    """"_mthreads_ext" -> "mthreads_ext": FlagGems names vendor packages _<vendor_name>."""
    return segment[1:] if segment and segment.startswith("_") else segment


def is_foreign(segment, own_segment):
    """True when segment names another vendor's package than own_segment.
    Whole-segment equality, never a prefix test."""
    return segment is not None and segment != own_segment


def module_file(module):
    """__file__ (or the first __path__ entry) of a module without triggering a
    module-level __getattr__ (lazy modules may import things on attribute access)."""
    d = getattr(module, "__dict__", None)
    if not isinstance(d, dict):
        return None
    f = d.get("__file__")
    if isinstance(f, str):
        return f
    p = d.get("__path__")
    try:
        for entry in p or ():
            if isinstance(entry, str):
                return entry
    except TypeError:
        return None
    return None


def class_tree(base):
    """base and every class below it, each once (an unhashable or odd metaclass whose
    __subclasses__ fails ends that branch)."""
    seen, todo = [], [base]
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.append(cls)
        try:
            todo.extend(cls.__subclasses__())
        except TypeError:
            pass
    return seen


def benchmark_classes():
    """FlagGems' Benchmark base classes among the loaded modules: a class named
    Benchmark that has set_shapes, init_user_config and run."""
    found = []
    for mod in list(sys.modules.values()):
        cls = getattr(mod, "__dict__", {}).get("Benchmark") if mod is not None else None
        if isinstance(cls, type) and cls not in found and all(
                hasattr(cls, a) for a in ("set_shapes", "init_user_config", "run")):
            found.append(cls)
    return found
