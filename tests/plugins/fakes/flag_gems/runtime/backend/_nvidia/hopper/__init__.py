"""Arch package, as FlagGems' _nvidia/hopper."""
