"""triton.language: only the constexpr annotation."""


class constexpr:
    pass
