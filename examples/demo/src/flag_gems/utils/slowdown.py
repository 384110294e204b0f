"""FLAGGEMS_DEMO_SLOWDOWN: a known change to measure (zlbench ab, compare), demo only.

"add=8,softmax=2" makes each call of the demo's add kernel do its work 8 times and
softmax's twice (the last call's result is returned). It is work, not a sleep, so the
slowdown grows with the shape as a slower kernel's would, and only the FlagGems side
(these kernels) slows down: the cpuref baseline is untouched. An unknown operator or a
factor that is not a whole number >= 1 stops the import with an error: a typo must not
pass for "no change".
"""

import functools

VAR = "FLAGGEMS_DEMO_SLOWDOWN"


def parse(text, known):
    """{op: factor} from the variable's text; ValueError naming the culprit."""
    factors = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in known:
            raise ValueError(f"{VAR}: '{item}' is not OP=FACTOR with OP one of {', '.join(known)}")
        try:
            factor = int(value)
        except ValueError:
            factor = 0
        if factor < 1:
            raise ValueError(f"{VAR}: factor '{value}' of '{name}' is not a whole number >= 1")
        factors[name] = factor
    return factors


def slowed(fn, times):
    """fn doing its work `times` times per call (fn itself when times is 1)."""
    if times == 1:
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for _ in range(times - 1):
            fn(*args, **kwargs)
        return fn(*args, **kwargs)

    return wrapper
