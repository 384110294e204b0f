"""zl_sampling: when to stop sampling one measurement (pure; no torch, no clock).

The profiler timer takes samples in batches (one profiler session each) and asks
next_step() after every batch whether to stop, and if not, how many calls the next
batch should make. The rule follows nvbench's stdrel criterion (nvbench/detail/
stdrel_criterion.cxx) with the noise measured as the relative half-width of the
95 % confidence interval of the estimate instead of the samples' relative stddev:

1. at least min_samples kept samples and min_time_s of sampling;
2. then stop when noise_rel <= noise_target               -> "noise_target"
3. or when the noise stopped improving: two batches that each grew the
   sample count by at least half left noise_rel above
   plateau_ratio times its value two batches before        -> "noise_plateau"
4. or when the next batch would not fit in max_time_s      -> "time_cap"
5. or when max_samples samples are kept                    -> "max_samples"

min_samples wins over the time cap (a 100 ms kernel still gets its 10 samples)
up to hard_cap_factor times the cap, so that a device throttled all the time
still ends.
"""

import math

ESTIMATOR = "trimmed_mean_0.1"
TRIM = 0.1

STOP_REASONS = ("noise_target", "noise_plateau", "time_cap", "max_samples", "fixed", "error")


class Policy:
    """The knobs of the stop rule; noise_target and max_time_s come from zlbench."""

    def __init__(self, noise_target=0.005, max_time_s=0.3, min_samples=10, min_time_s=0.02,
                 max_samples=10000, max_batch=1000, plateau_ratio=0.95, hard_cap_factor=4.0):
        self.noise_target = float(noise_target)
        self.max_time_s = float(max_time_s)
        self.min_samples = int(min_samples)
        self.min_time_s = float(min_time_s)
        self.max_samples = int(max_samples)
        self.max_batch = int(max_batch)
        self.plateau_ratio = float(plateau_ratio)
        self.hard_cap_factor = float(hard_cap_factor)


def first_batch(policy, per_call_s):
    """Calls of the first batch: enough for min_time_s, at least min_samples, at most
    max_batch and what a quarter of the time cap holds."""
    per_call_s = max(per_call_s, 1e-7)
    want = int(math.ceil(policy.min_time_s / per_call_s))
    fit = int(policy.max_time_s / 4.0 / per_call_s)
    return max(policy.min_samples, min(want, fit, policy.max_batch))


def plateaued(history, policy):
    """True when the last noise value is above plateau_ratio times the one two batches
    earlier: more samples no longer narrow the interval (drift between batches)."""
    if len(history) < 3 or history[-1] is None or history[-3] is None:
        return False
    return history[-1] > policy.plateau_ratio * history[-3]


def next_step(policy, n, noise, history, elapsed_s, per_call_s):
    """(stop_reason, None) or (None, calls in the next batch).

    n: samples kept so far; noise: their noise_rel (None when unknown);
    history: noise_rel after each batch, this one last; elapsed_s: sampling time so
    far; per_call_s: the wall time one profiled call took in the last batch
    (session overhead included)."""
    per_call_s = max(per_call_s, 1e-7)
    if n >= policy.max_samples:
        return "max_samples", None
    warm = n >= policy.min_samples and elapsed_s >= policy.min_time_s
    if warm and noise is not None and noise <= policy.noise_target:
        return "noise_target", None
    if warm and plateaued(history, policy):
        return "noise_plateau", None
    if n < policy.min_samples:
        want = policy.min_samples - n
    elif noise is None:
        want = max(n, policy.min_samples)
    else:
        ratio = (noise / policy.noise_target) ** 2
        want = int(math.ceil(n * (ratio - 1.0) * 1.1))
    want = max(want, (n + 1) // 2, policy.min_samples if n >= policy.min_samples else 1)
    if elapsed_s < policy.min_time_s:
        want = max(want, int(math.ceil((policy.min_time_s - elapsed_s) / per_call_s)))
    want = min(want, policy.max_batch, policy.max_samples - n)
    cap = policy.max_time_s
    if n < policy.min_samples:
        cap = policy.max_time_s * policy.hard_cap_factor
    fit = int((cap - elapsed_s) / per_call_s + 1e-9)
    if n < policy.min_samples:
        if fit < 1:
            return "time_cap", None
        return None, max(1, min(want, fit))
    if fit < min(want, policy.min_samples):
        return "time_cap", None
    return None, min(want, fit)
