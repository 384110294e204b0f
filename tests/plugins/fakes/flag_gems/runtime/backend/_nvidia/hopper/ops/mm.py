"""As FlagGems' _nvidia/hopper/ops/mm.py, which benchmark/test_router_gemm.py imports on any vendor."""


def router_gemm(a, b):
    return a
