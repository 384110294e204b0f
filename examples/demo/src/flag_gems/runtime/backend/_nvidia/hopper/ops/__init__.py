"""Hopper-specific operators of the demo (CPU stand-ins)."""

from .mm import router_gemm  # noqa: F401

__all__ = ["router_gemm"]
