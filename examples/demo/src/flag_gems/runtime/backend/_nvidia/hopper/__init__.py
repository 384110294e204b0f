"""Demo architecture package: NVIDIA Hopper (sm_90)."""
