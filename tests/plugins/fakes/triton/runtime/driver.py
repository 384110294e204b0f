"""driver.active as triton's nvidia driver offers it to do_bench."""


class _Active:
    def get_device_interface(self):
        import torch
        return torch.cuda

    def get_empty_cache_for_benchmark(self):
        import torch
        return torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")

    def clear_cache(self, cache):
        cache.zero_()

    def get_benchmarker(self):
        from triton.testing import do_bench
        return do_bench


class _Driver:
    active = _Active()


driver = _Driver()
