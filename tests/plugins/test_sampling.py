"""zl_sampling's stop rule, every stop reason, and the estimator statistics behind it."""
import random

import pytest

import zl_common as zc
import zl_sampling as zs

P = zs.Policy(noise_target=0.005, max_time_s=0.3)


def test_the_first_window_is_cut_by_time_as_it_runs():
    # no probe sizes it: the timer asks after every call
    assert not zs.first_window_done(P, 9, 1.0)           # min_samples first, whatever the time
    assert zs.first_window_done(P, 10, 0.075)            # a quarter of the 0.3 s cap
    assert not zs.first_window_done(P, 19, 0.019)        # 6 ms, but neither 20 calls nor 20 ms
    assert zs.first_window_done(P, 19, 0.020)
    assert zs.first_window_done(P, 20, 0.015)
    assert not zs.first_window_done(P, 99, 0.0059)
    assert zs.first_window_done(P, 20, 0.006)
    assert zs.first_window_done(P, 100, 0.001)           # first_max
    assert zs.first_window_done(zs.Policy(first_max=5, min_window=5), 10, 0.0)  # min_samples


def test_long_calls_at_the_maximum_clock_end_the_first_window_at_five():
    # 1 ms of wall a call or more, the SM clock at its maximum so far, 6 ms of calls
    assert zs.first_window_done(P, 5, 0.0075, clock_ok=True)
    assert not zs.first_window_done(P, 5, 0.0075)                  # clock not known at max
    assert not zs.first_window_done(P, 4, 0.012, clock_ok=True)    # min_samples_long first
    assert not zs.first_window_done(P, 5, 0.0055, clock_ok=True)   # 1.1 ms calls, not 6 ms yet
    assert zs.first_window_done(P, 6, 0.0066, clock_ok=True)
    assert not zs.first_window_done(P, 10, 0.009, clock_ok=True)   # 0.9 ms calls are not long
    assert zs.first_batch(P, 1.5e-3, clock_ok=True) == 5
    assert zs.first_batch(P, 1.1e-3, clock_ok=True) == 6
    assert zs.first_batch(P, 0.1, clock_ok=True) == 5
    assert zs.first_batch(P, 0.9e-3, clock_ok=True) == 20
    assert zs.first_batch(zs.Policy(min_samples_long=8), 1.5e-3, clock_ok=True) == 8
    assert zs.Policy(min_samples=4).min_samples_long == 4       # never above min_samples


def test_the_clock_at_its_maximum_means_every_reading_within_the_slack():
    assert zs.clock_at_max(P, [1980.0, 1935.0], 1980.0)            # 3 % below is 1920.6
    assert not zs.clock_at_max(P, [1980.0, 1905.0], 1980.0)
    assert not zs.clock_at_max(P, [1980.0, None], 1980.0)
    assert not zs.clock_at_max(P, [], 1980.0)
    assert not zs.clock_at_max(P, [1980.0], None)
    assert zs.clock_at_max(zs.Policy(long_clock_slack=0.2), [1600.0], 1980.0)


def test_the_sample_floor_is_five_only_for_long_calls_at_the_maximum_clock():
    at_max = [1980.0, 1965.0, 1980.0]
    assert zs.least_samples(P, 1.5e-3, 1.4, at_max, 1980.0) == 5
    assert zs.least_samples(P, 1e-3, 0.5, at_max, 1980.0) == 5
    assert zs.least_samples(P, 0.99e-3, 0.9, at_max, 1980.0) == 10
    assert zs.least_samples(P, None, 1.4, at_max, 1980.0) == 10
    assert zs.least_samples(P, 1.5e-3, 1.4, at_max + [1700.0], 1980.0) == 10
    assert zs.least_samples(P, 1.5e-3, 1.4, at_max, None) == 10
    # a call long for its hold (a spin kernel of 1.5 ms before a 7 us index_select) or its
    # host time is not a long kernel: on an H100 such a site had least 5 before this test
    assert zs.least_samples(P, 1.6e-3, 0.007, at_max, 1980.0) == 10
    assert zs.least_samples(P, 1.6e-3, 0.49, at_max, 1980.0) == 10
    assert zs.least_samples(P, 1.6e-3, None, at_max, 1980.0) == 10
    # next_step stops at that floor once the target is met, before min_time_s (the long
    # calls had their 6 ms), and asks for the rest of it when short of it
    assert zs.next_step(P, 5, 0.001, [(5, 0.001)], 0.009, 1.5e-3, least=5) == \
        ("noise_target", None)
    assert zs.next_step(P, 5, 0.001, [(5, 0.001)], 0.009, 1.5e-3)[0] is None
    assert zs.next_step(P, 3, 0.001, [(3, 0.001)], 0.009, 1.5e-3, least=5) == (None, 2)
    # a noisy long kernel still samples to its target
    reason, n = zs.next_step(P, 5, 0.02, [(5, 0.02)], 0.009, 1.5e-3, least=5)
    assert reason is None and n > 50


def test_first_batch_covers_the_first_window_within_bounds():
    assert zs.first_batch(P, 200e-6) == 30           # 6 ms of 200 us calls
    assert zs.first_batch(P, 155e-6) == 39           # a small kernel's profiled call on the H200
    assert zs.first_batch(P, 400e-6) == 20           # 6 ms is 15 calls: min_window of them
    assert zs.first_batch(P, 40e-6) == 100           # 6 ms of 40 us calls, cut to first_max
    assert zs.first_batch(zs.Policy(first_max=1000), 20e-6) == 300
    assert zs.first_batch(zs.Policy(first_window_s=0.015), 200e-6) == 75
    assert zs.first_batch(P, 1e-3) == 20             # 1 ms calls: min_window of them
    assert zs.first_batch(P, 1.5e-3) == 14           # longer: window_floor_s (20 ms) of them
    assert zs.first_batch(P, 2.2e-3) == 10           # ... never fewer than min_samples
    assert zs.first_batch(P, 0.1) == 10              # slow kernels: the minimum count
    assert zs.first_batch(zs.Policy(first_max=10 ** 6), 1e-9) == 1000   # the window limit
    # a quarter of a small cap bounds it
    assert zs.first_batch(zs.Policy(max_time_s=0.004), 10e-6) == 100


def test_kernels_under_5_us_stop_at_the_target_their_class_can_reach():
    assert zs.target_for(P, 0.0013) == 0.02          # a 1.3 us kernel: +-2 %
    assert zs.target_for(P, 0.005) == 0.005          # 5 us and more: the target as given
    assert zs.target_for(P, None) == 0.005
    # a looser target than the class's stays; a pinned target is never relaxed
    assert zs.target_for(zs.Policy(noise_target=0.05), 0.001) == 0.05
    assert zs.target_for(zs.Policy(pinned=True), 0.001) == 0.005


def test_noise_target_stops_once_warm():
    assert zs.next_step(P, 400, 0.004, [(266, 0.006), (400, 0.004)], 0.05, 60e-6) == ("noise_target", None)
    # not before min_samples or min_time, even when quiet
    assert zs.next_step(P, 5, 0.0, [(5, 0.0)], 0.05, 60e-6)[0] is None
    assert zs.next_step(P, 400, 0.001, [(400, 0.001)], 0.005, 60e-6)[0] is None
    # the measurement's own target, when given
    assert zs.next_step(P, 400, 0.015, [(400, 0.015)], 0.05, 60e-6, target=0.02) == ("noise_target", None)


def test_a_series_still_moving_is_extended_whatever_its_noise():
    # quiet, but the transient cut says the series has not settled: the next window extends it
    assert zs.next_step(P, 400, 0.001, [(400, 0.001)], 0.05, 60e-6, steady=False, extend=250) == \
        (None, 250)
    assert zs.next_step(P, 400, 0.001, [(177, 0.002), (266, 0.0015), (400, 0.001)], 0.05, 60e-6,
                        steady=False)[0] is None
    # unknown steadiness (too few samples to judge) does not hold a measurement back
    assert zs.next_step(P, 400, 0.001, [(400, 0.001)], 0.05, 60e-6, steady=None)[0] == "noise_target"
    # past the cap it goes on, up to the hard cap (a transient of a long kernel takes time)
    # (and at least half the samples so far: the steady part must outgrow the cut one)
    assert zs.next_step(P, 400, 0.001, [(400, 0.001)], 0.3, 60e-6, steady=False, extend=100) == (None, 200)
    assert zs.next_step(P, 400, 0.001, [(400, 0.001)], 1.1999, 60e-6, steady=False) == ("time_cap", None)


def test_the_transient_cut_drops_a_ramp_and_keeps_a_steady_series_whole():
    rnd = random.Random(11)
    flat = [1.0 + rnd.gauss(0, 0.01) for _ in range(200)]
    cut, steady = zs.transient_cut(flat)
    assert steady is True and cut <= 20, cut
    # 40 calls stepping down from +30 % (a power transient), then flat: cut near 40
    ramp = [1.0 + 0.3 * (1 - k / 40) + rnd.gauss(0, 0.01) for k in range(40)]
    cut, steady = zs.transient_cut(ramp + flat[:160])
    assert steady is True and 30 <= cut <= 50, cut
    # a series that drifts all along is not steady: more samples are needed
    drift = [1.3 - 0.003 * k + rnd.gauss(0, 0.005) for k in range(100)]
    assert zs.transient_cut(drift)[1] is False
    # a step at the very end (a clock that rose in the last calls): not steady either
    late = flat[:150] + [0.85 + rnd.gauss(0, 0.01) for _ in range(50)]
    assert zs.transient_cut(late)[1] is False
    # one wild sample early does not cut the series there
    wild = flat[:5] + [50.0] + flat[6:]
    assert zs.transient_cut(wild)[0] <= 20
    # too few samples to judge
    assert zs.transient_cut([1.0, 1.1, 0.9]) == (0, None)


def test_the_next_batch_aims_at_the_target():
    # noise twice the target: about three times the samples more (n * (2^2 - 1) * 1.1)
    reason, n = zs.next_step(P, 100, 0.01, [(66, 0.02), (100, 0.01)], 0.05, 60e-6)
    assert reason is None and n == 330
    # nearly there: still at least half again as many, so the noise can move
    assert zs.next_step(P, 1000, 0.0051, [(666, 0.01), (1000, 0.0051)], 0.1, 60e-6) == (None, 500)
    # never beyond the batch limit or max_samples
    assert zs.next_step(P, 9000, 0.05, [(9000, 0.05)], 0.1, 1e-6) == (None, 1000)
    assert zs.next_step(P, 100, 0.5, [(100, 0.5)], 0.05, 1e-6) == (None, 1000)


def test_noise_plateau_when_more_samples_stop_helping():
    # two batches, each 1.5x the samples, and the interval did not narrow by 5 %
    assert zs.next_step(P, 500, 0.0099, [(222, 0.01), (333, 0.0098), (500, 0.0099)], 0.1,
                        60e-6) == ("noise_plateau", None)
    # narrowing as 1/sqrt(n) is no plateau
    assert zs.next_step(P, 500, 0.0067, [(222, 0.01), (333, 0.0082), (500, 0.0067)], 0.1,
                        60e-6)[0] is None
    # two batches are too few to tell
    assert zs.next_step(P, 500, 0.0099, [(333, 0.01), (500, 0.0099)], 0.1, 60e-6)[0] is None
    # windows that the time cap cut short (a few samples each) cannot move the noise: no
    # plateau, whatever it reads (the cap ends the measurement)
    assert zs.next_step(P, 500, 0.0099, [(480, 0.01), (490, 0.0098), (500, 0.0099)], 0.1,
                        60e-6)[0] is None
    assert zs.plateaued([(222, 0.01), (333, 0.0098), (400, 0.0099)], P) is False


def test_time_cap_when_the_next_batch_does_not_fit():
    assert zs.next_step(P, 1000, 0.01, [(666, 0.02), (1000, 0.01)], 0.2995, 60e-6) == ("time_cap", None)
    # what fits is taken: 0.05 s of 100 us calls
    assert zs.next_step(P, 1000, 0.05, [(666, 0.07), (1000, 0.05)], 0.25, 100e-6) == (None, 500)


def test_min_samples_win_over_the_cap_up_to_the_hard_cap():
    # a 100 ms kernel: 3 samples after 0.31 s, the cap passed; it still gets its 10
    assert zs.next_step(P, 3, 0.2, [(3, 0.2)], 0.31, 0.1) == (None, 7)
    # ... but not past hard_cap_factor times the cap (a device throttled all along)
    assert zs.next_step(P, 3, 0.2, [(3, 0.2)], 1.25, 0.1) == ("time_cap", None)
    assert zs.next_step(P, 0, None, [], 1.0, 0.1) == (None, 2)


def test_max_samples_stops():
    assert zs.next_step(P, 10000, 0.01, [(6666, 0.02), (10000, 0.01)], 0.1, 1e-6) == ("max_samples", None)


def test_a_whole_loop_over_a_noisy_source_stops_at_the_target():
    rnd = random.Random(7)
    kept, history, elapsed, per_call = [], [], 0.0, 60e-6
    n = zs.first_batch(P, per_call)
    while True:
        kept += [1.0 + rnd.gauss(0, 0.03) for _ in range(n)]
        elapsed += n * per_call
        noise = zc.trimmed_mean_ci_rel(kept, zs.TRIM)
        history.append((len(kept), noise))
        reason, n = zs.next_step(P, len(kept), noise, history, elapsed, per_call)
        if reason:
            break
    assert reason == "noise_target" and noise <= 0.005
    # 3 % noise needs about (2 * 0.03 / 0.005)^2 = 144 samples: the first window (first_max)
    # has fewer, the second is sized by the noise the first measured
    assert len(kept) == 171 and len(history) == 2


def test_drift_between_batches_plateaus():
    kept, history, elapsed, per_call = [], [], 0.0, 60e-6
    rnd = random.Random(3)
    n, batch, reason = zs.first_batch(P, per_call), 0, None
    while reason is None:
        level = 1.0 + 0.1 * batch           # every session 10 % slower than the one before
        kept += [level + rnd.gauss(0, 0.05) for _ in range(n)]
        batch += 1
        elapsed += n * per_call
        noise = zc.trimmed_mean_ci_rel(kept, zs.TRIM)
        history.append((len(kept), noise))
        reason, n = zs.next_step(P, len(kept), noise, history, elapsed, per_call)
    assert reason == "noise_plateau"


# --- the statistics -----------------------------------------------------------------

def test_t_quantiles():
    assert zc.t975(1) == 12.706 and zc.t975(30) == 2.042
    assert zc.t975(31) == pytest.approx(2.0395, abs=1e-3)
    assert zc.t975(120) == pytest.approx(1.9799, abs=1e-3)
    assert zc.t975(100000) == pytest.approx(1.95996, abs=1e-4)
    with pytest.raises(ValueError):
        zc.t975(0)


def test_trimmed_mean_cuts_ten_percent_each_side():
    values = [100.0] + [1.0] * 8 + [-50.0]
    assert zc.trimmed_mean(values, 0.1) == 1.0
    assert zc.trimmed_mean([3.0, 1.0, 2.0], 0.1) == 2.0      # n < 10: nothing cut
    with pytest.raises(ValueError):
        zc.trimmed_mean([], 0.1)


def test_trimmed_mean_interval_by_the_winsorized_variance():
    values = [float(v) for v in range(1, 11)]           # 1..10, g = 1, h = 8
    # winsorized: 2,2,3,...,8,9,9: mean 5.5, squared deviations 4 * 12.25 + 2 * 6.25 +
    # 2 * 2.25 + 2 * 0.25 = 66.5 -> se = sqrt(66.5 / (8 * 7)); t(7) = 2.365; estimate 5.5
    expect = 2.365 * (66.5 / 56.0) ** 0.5 / 5.5
    assert zc.trimmed_mean_ci_rel(values, 0.1) == pytest.approx(expect)
    assert zc.trimmed_mean_ci_rel([2.0, 2.0, 2.0], 0.1) == 0.0
    assert zc.trimmed_mean_ci_rel([2.0], 0.1) is None
    assert zc.trimmed_mean_ci_rel([0.0, 0.0], 0.1) is None


def test_trimmed_mean_interval_covers_the_truth_about_95_percent_of_the_time():
    rnd = random.Random(11)
    hits, trials = 0, 400
    for _ in range(trials):
        values = [10.0 + rnd.gauss(0, 1.0) for _ in range(60)]
        est = zc.trimmed_mean(values, 0.1)
        half = zc.trimmed_mean_ci_rel(values, 0.1) * est
        hits += abs(est - 10.0) <= half
    assert 0.91 <= hits / trials <= 0.99


def test_quantized_timestamps_still_give_a_fine_estimate():
    # a 1.3 us kernel read in 32 ns steps: the median jumps by a step, the trimmed mean does not
    rnd = random.Random(5)
    true = [1.3e-3 + rnd.gauss(0, 0.02e-3) for _ in range(2000)]
    quant = [round(v / 32e-6) * 32e-6 for v in true]
    assert zc.trimmed_mean(quant, 0.1) == pytest.approx(zc.trimmed_mean(true, 0.1), rel=0.003)
    assert abs(zc.median(quant) - 1.3e-3) > 0.005 * 1.3e-3


def test_median_interval_by_order_statistics():
    assert zc.median_ci_rel([1.0, 2.0, 3.0, 10.0], 2.5) == pytest.approx(4.5 / 2.5)
    values = [float(v) for v in range(100)]
    # ranks floor(50 - 9.8) = 40 and ceil(51 + 9.8) = 61 (1-based): values 39 and 60
    assert zc.median_ci_rel(values, 49.5) == pytest.approx(10.5 / 49.5)
    assert zc.median_ci_rel([1.0], 1.0) is None


def test_storage_subset_is_every_kth_from_a_drawn_offset():
    samples = list(range(4500))
    stored, kind, k = zc.storage_subset(samples, 2000, random.Random(1))
    assert kind == "subset" and k == 3 and len(stored) == 1500
    assert stored == samples[stored[0]::3] and stored[0] in (0, 1, 2)
    offsets = {zc.storage_subset(samples, 2000, random.Random(seed))[0][0] for seed in range(40)}
    assert offsets == {0, 1, 2}
    assert zc.storage_subset([1, 2], 2000, random.Random(1)) == ([1, 2], "all", 1)


def test_env_float(monkeypatch):
    monkeypatch.setenv("ZL_X", "0.25")
    assert zc.env_float("ZL_X", 1.0, above=0, below=1) == 0.25
    monkeypatch.delenv("ZL_X")
    assert zc.env_float("ZL_X", 1.0) == 1.0
    for bad, msg in (("abc", "must be a number, not 'abc'"),
                     ("0", "must be greater than 0 and below 1, not '0'"),
                     ("1", "must be greater than 0 and below 1, not '1'"),
                     ("nan", "must be greater than 0 and below 1, not 'nan'")):
        monkeypatch.setenv("ZL_X", bad)
        with pytest.raises(zc.ConfigError, match=msg):
            zc.env_float("ZL_X", 1.0, above=0, below=1)
