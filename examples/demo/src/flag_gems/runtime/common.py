"""Vendor names FlagGems knows (the demo ships backend packages for four of them)."""

from enum import Enum


class vendors(Enum):  # noqa: N801 - FlagGems' spelling
    NVIDIA = 0
    CAMBRICON = 1
    METAX = 2
    ILUVATAR = 3
    MTHREADS = 4
    KUNLUNXIN = 5
    HYGON = 6
    AMD = 7
    AIPU = 8
    ASCEND = 9

    @classmethod
    def get_all_vendors(cls) -> dict:
        return {member.name.lower(): member for member in cls}
