"""zl_sampling: when to stop sampling one measurement (pure; no torch, no clock).

The profiler timer takes samples in windows (one profiler session each) and asks
next_step() after every window whether to stop, and if not, how many calls the next
window should make. The rule follows nvbench's stdrel criterion (nvbench/detail/
stdrel_criterion.cxx) with the noise measured as the relative half-width of the
95 % confidence interval of the estimate instead of the samples' relative stddev:

1. at least min_samples kept samples and min_time_s of sampling, and the kept samples
   steady (transient_cut: the start of the series that drifts is cut off, and what is
   left must not be drifting still);
2. then stop when noise_rel <= the target                  -> "noise_target"
3. or when the noise stopped improving: two windows that each grew the
   kept sample count by at least half left noise_rel above
   plateau_ratio times its value two windows before        -> "noise_plateau"
4. or when the next window would not fit in max_time_s     -> "time_cap"
5. or when max_samples samples are kept                    -> "max_samples"

Long calls (the first window's calls took long_call_s, 1 ms, of wall or more each, and
their samples long_sample_s, 0.5 ms, or more: the device's time, not a hold's or the host's)
need min_samples_long (5) samples instead of min_samples (10) while every SM clock reading of
the measurement is within long_clock_slack (3 %) of the clock's maximum (least_samples): their
own noise is then 0.02-0.1 % a measurement, 5-25 times under the target, and the A/A drift
between runs of the same kernel (0.1-0.5 %) is what a verdict meets; ten samples of a
2.8 ms kernel were 28 ms of a 30-measurement op's 0.8 s of timer. A clock below its maximum
is what a power transient looks like (the H200's gelu of 2**30 elements stepped down over
~100 calls at 1600-1700 MHz of 1980): there the floor stays 10 and the first window's time
room (window_floor_s) stays too.

min_samples wins over the time cap (a 100 ms kernel still gets its 10 samples),
and so does a series that is not steady yet (a power transient of ~100 calls of a
1.5 ms kernel needs ~0.3 s to be seen through), each up to hard_cap_factor times the
cap, so that a device throttled or drifting all the time still ends.

The target is the size class's (target_for): a kernel under 5 us is stopped at +-2 %
unless the user pinned the target, since its run-to-run floor is 6-7 % (calibrate on
the H200, waves 2-4) and 32 ns timestamps make each of its samples +-2.5 %: sampling
it to +-0.5 % cost ~1,000 calls and bought no verdict.
"""

import math

ESTIMATOR = "trimmed_mean_0.1"
TRIM = 0.1

STOP_REASONS = ("noise_target", "noise_plateau", "time_cap", "max_samples", "fixed", "error")

# (estimate below this many ms, the least target for it): the first row that fits wins.
CLASS_TARGETS = ((0.005, 0.02),)


class Policy:
    """The knobs of the stop rule; noise_target, max_time_s and whether the target is
    pinned (the user set it: no class relaxes it) come from zlbench."""

    def __init__(self, noise_target=0.005, max_time_s=0.3, min_samples=10, min_time_s=0.01,
                 max_samples=10000, max_batch=1000, plateau_ratio=0.95, hard_cap_factor=4.0,
                 pinned=False, first_window_s=0.006, min_window=20, first_max=100,
                 window_floor_s=0.02, min_samples_long=5, long_call_s=0.001,
                 long_sample_s=0.0005, long_clock_slack=0.03):
        self.noise_target = float(noise_target)
        self.max_time_s = float(max_time_s)
        self.min_samples = int(min_samples)
        self.min_time_s = float(min_time_s)
        self.max_samples = int(max_samples)
        self.max_batch = int(max_batch)
        self.plateau_ratio = float(plateau_ratio)
        self.hard_cap_factor = float(hard_cap_factor)
        self.pinned = bool(pinned)
        self.first_window_s = float(first_window_s)
        self.min_window = int(min_window)
        self.first_max = int(first_max)
        self.window_floor_s = float(window_floor_s)
        self.min_samples_long = min(int(min_samples_long), self.min_samples)
        self.long_call_s = float(long_call_s)
        self.long_sample_s = float(long_sample_s)
        self.long_clock_slack = float(long_clock_slack)


def target_for(policy, estimate_ms):
    """The noise target of a measurement whose estimate is estimate_ms."""
    if policy.pinned or estimate_ms is None:
        return policy.noise_target
    for below_ms, least in CLASS_TARGETS:
        if estimate_ms < below_ms:
            return max(policy.noise_target, least)
    return policy.noise_target


def clock_at_max(policy, mhz, max_mhz):
    """Whether every SM clock reading in mhz (a list, None: not read) is within
    long_clock_slack of max_mhz; False with no reading or no known maximum."""
    if not mhz or not max_mhz:
        return False
    floor = (1.0 - policy.long_clock_slack) * max_mhz
    for v in mhz:
        if v is None or v < floor:
            return False
    return True


def long_calls(policy, calls, elapsed_s):
    """Whether calls calls that took elapsed_s seconds of wall are min_samples_long or more
    long calls (long_call_s each on average) that have lasted first_window_s."""
    return (calls >= policy.min_samples_long and elapsed_s >= policy.first_window_s and
            elapsed_s >= calls * policy.long_call_s)


def least_samples(policy, per_call_s, estimate_ms, mhz, max_mhz):
    """The fewest kept samples a measurement may stop at: min_samples_long when the first
    window's calls were long (per_call_s, its wall per call, at least long_call_s), their
    samples too (estimate_ms at least long_sample_s: a call long for its hold or its host
    time is not) and the SM clock read at its maximum at every reading so far
    (clock_at_max), else min_samples."""
    if per_call_s is not None and per_call_s >= policy.long_call_s and \
            estimate_ms is not None and estimate_ms >= policy.long_sample_s * 1e3 and \
            clock_at_max(policy, mhz, max_mhz):
        return policy.min_samples_long
    return policy.min_samples


def first_window_done(policy, calls, elapsed_s, clock_ok=False):
    """Whether the first window, calls calls into it and elapsed_s seconds after its first
    call began, has enough: the window is cut by time as it runs (no probe sizes it). It
    stops at first_window_s of calls once it has min_window of them, or window_floor_s of
    calls (a transient's room counted in time: twenty 2 ms calls were 40 ms of samples that
    a steady 1 ms kernel did not need), or a quarter of the time cap; never before
    min_samples calls (but long calls, while clock_ok says the SM clock has read at its
    maximum so far: min_samples_long of them once they lasted first_window_s), never past
    first_max (or max_batch). first_max: the samples that
    meet +-2 % at 8 % noise per sample (a 1.3 us kernel's 32 ns steps) and +-0.5 % at 2 %;
    a call of tens of microseconds costs so little wall that first_window_s alone would ask
    for hundreds, and the session's stop and parse cost grows with every call.
    first_window_s is 6 ms: on the H200 a small kernel's profiled call costs ~155 us of loop
    plus its share of the stop and the event read, so 15 ms was ~97 calls and ~40 ms of timer
    for kernels whose class stops at +-2 %; the stop rule adds windows while a series is not
    steady or not tight."""
    if calls >= max(policy.min_samples, min(max(policy.first_max, policy.min_window),
                                            policy.max_batch)):
        return True
    if clock_ok and long_calls(policy, calls, elapsed_s):
        return True
    if calls < policy.min_samples:
        return False
    if elapsed_s >= policy.max_time_s / 4.0:
        return True
    return elapsed_s >= policy.first_window_s and (calls >= policy.min_window or
                                                    elapsed_s >= policy.window_floor_s)


def first_batch(policy, per_call_s, clock_ok=False):
    """Calls of the first window when every call takes per_call_s (first_window_done's rule
    with the time known beforehand; the timer itself cuts the window as it runs)."""
    per_call_s = max(per_call_s, 1e-9)
    calls = 1
    while not first_window_done(policy, calls, calls * per_call_s, clock_ok):
        calls += 1
    return calls


def plateaued(history, policy):
    """True when the last two windows each grew the kept samples by at least half and the
    last noise value is still above plateau_ratio times the one two windows earlier: more
    samples no longer narrow the interval (drift between windows). history: (samples kept,
    noise_rel) after each window. A window the time cap cut short adds too few samples to
    move the noise: it tells nothing about a plateau (and the cap ends the measurement)."""
    if len(history) < 3:
        return False
    (n0, before), (n1, _), (n2, last) = history[-3:]
    if last is None or before is None or n1 < 1.5 * n0 or n2 < 1.5 * n1:
        return False
    return last > policy.plateau_ratio * before


def transient_cut(samples, batch=None):
    """(how many leading samples to cut, steady) by MSER (White 1997, the marginal
    standard error rule used to truncate a simulation's warm-up): the series is cut into
    batches of `batch` consecutive samples (5, or fewer for short series), winsorized at
    the estimator's trim so that a lone outlier does not steer it, and the cut d (in
    batches) is the one that minimises the squared standard error of the mean of the
    batches after it, sum((y - mean)^2) / (m - d)^2. The series is steady when that cut
    lies in its first half; a cut beyond it means the series is still moving (a clock or
    power transient longer than the samples): more samples are needed.

    Fewer than 4 batches: nothing is cut and steadiness is unknown (None)."""
    n = len(samples)
    if batch is None:
        batch = max(1, min(5, n // 8))
    m = n // batch
    if m < 4:
        return 0, None
    s = sorted(samples)
    k = int(math.floor(TRIM * n))
    lo, hi = s[k], s[n - 1 - k]
    off = n - m * batch          # the remainder joins the first batch's side: cut from the front
    y = []
    for j in range(m):
        part = samples[off + j * batch: off + (j + 1) * batch]
        y.append(sum(min(max(v, lo), hi) for v in part) / batch)
    # suffix sums from the end: mean and squared deviations of y[d:] for every d (about the
    # median, so that a constant tail sums to 0 and not to a rounding error)
    centre = s[n // 2]
    best_d, best = 0, None
    tot = tot2 = 0.0
    stats = [None] * m
    for j in range(m - 1, -1, -1):
        c = y[j] - centre
        tot += c
        tot2 += c * c
        cnt = m - j
        stats[j] = (tot, tot2, cnt)
    last = m - max(2, m // 4)    # at least a quarter of the batches (and 2) stay
    for d in range(0, last + 1):
        t, t2, cnt = stats[d]
        ss = max(0.0, t2 - t * t / cnt)
        v = ss / (cnt * cnt)
        if best is None or v < best * (1.0 - 1e-9) - 1e-30:
            best, best_d = v, d
    # the spread of one batch mean, from the winsorized samples of the series' second half
    # (a transient in the first half does not inflate it; MSER's choice does not bias it)
    w = [min(max(v, lo), hi) for v in samples[n // 2:]]
    mw = sum(w) / len(w)
    sd = math.sqrt(sum((v - mw) ** 2 for v in w) / max(1, len(w) - 1) / batch)
    if best_d == 0 or not _differs(y[:best_d], y[best_d:], sd):
        # MSER's statistic is itself noisy: on a steady series it may pick any cut. Only a
        # leading part whose level really differs from the rest is a transient.
        return 0, True
    return off + best_d * batch, best_d <= m // 2


# How far apart (in standard errors of their difference) the cut part's mean and the rest's
# must be for the cut to be a transient rather than noise.
CUT_SIGMAS = 3.0


def _differs(head, tail, sd):
    """Whether the means of two runs of batch means differ by more than CUT_SIGMAS standard
    errors of their difference, each batch mean's error taken as sd (not from the tail that
    MSER picked: the quietest by construction, its own spread would understate the noise)."""
    nt, nh = len(tail), len(head)
    if nt < 1 or nh < 1:
        return False
    diff = abs(sum(head) / nh - sum(tail) / nt)
    if sd == 0.0:
        return diff > 0.0
    return diff > CUT_SIGMAS * sd * math.sqrt(1.0 / nh + 1.0 / nt)


def next_step(policy, n, noise, history, elapsed_s, per_call_s, target=None, steady=True,
              extend=None, least=None):
    """(stop_reason, None) or (None, calls in the next window).

    n: samples kept so far; noise: their noise_rel (None when unknown);
    history: (samples kept, noise_rel) after each window, this one last; elapsed_s: sampling time so
    far; per_call_s: the wall time one profiled call took in the last window
    (session overhead included); target: the measurement's noise target (default the
    policy's); steady: whether the kept samples have stopped drifting (False: the next
    window extends the series by `extend` calls, default n, whatever the noise says);
    least: the fewest samples to stop at (least_samples; default min_samples). A floor under
    min_samples is one of long calls, which have had their time: min_time_s does not apply."""
    per_call_s = max(per_call_s, 1e-7)
    target = policy.noise_target if target is None else target
    least = policy.min_samples if least is None else max(1, int(least))
    timed = least < policy.min_samples or elapsed_s >= policy.min_time_s
    if n >= policy.max_samples:
        return "max_samples", None
    warm = n >= least and timed
    if warm and steady is not False and noise is not None and noise <= target:
        return "noise_target", None
    if warm and steady is not False and plateaued(history, policy):
        return "noise_plateau", None
    if n < least:
        want = least - n
    elif steady is False:
        want = max(extend or n, least)
    elif noise is None:
        want = max(n, least)
    else:
        ratio = (noise / target) ** 2
        want = int(math.ceil(n * (ratio - 1.0) * 1.1))
    want = max(want, (n + 1) // 2, least if n >= least else 1)
    if not timed:
        want = max(want, int(math.ceil((policy.min_time_s - elapsed_s) / per_call_s)))
    want = min(want, policy.max_batch, policy.max_samples - n)
    cap = policy.max_time_s
    if n < least or steady is False:
        cap = policy.max_time_s * policy.hard_cap_factor
    fit = int((cap - elapsed_s) / per_call_s + 1e-9)
    if n < least:
        if fit < 1:
            return "time_cap", None
        return None, max(1, min(want, fit))
    if fit < min(want, least):
        return "time_cap", None
    return None, min(want, fit)
