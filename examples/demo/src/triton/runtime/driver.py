"""triton.runtime.driver stand-in: one CPU "device" that needs no synchronisation."""


class _DeviceInterface:
    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def current_device():
        return 0


class CpuDriver:
    def get_device_interface(self):
        return _DeviceInterface

    def get_current_device(self):
        return 0

    def get_current_target(self):
        return ("cpu", 0, 1)

    def get_benchmarker(self):
        # Real Triton hands the autotuner triton.testing.do_bench (25 ms warm-up, 100 ms
        # of repetitions per config, device time); the stand-in times configs on the
        # thread's CPU clock with short windows so tuning takes milliseconds.
        def benchmark(kernel_call, quantiles=None):
            from triton.testing import bench_thread_time

            return bench_thread_time(kernel_call, warmup=1, rep=5, quantiles=quantiles)

        return benchmark

    def get_empty_cache_for_benchmark(self):
        # No L2 cache to flush on the stand-in.
        return None

    def clear_cache(self, cache):
        pass


class _DriverConfig:
    def __init__(self):
        self.active = CpuDriver()


driver = _DriverConfig()
