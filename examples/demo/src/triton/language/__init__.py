"""triton.language stand-in: only what kernel signatures need (tl.constexpr)."""


class constexpr:
    """Annotation marking a compile-time kernel parameter."""

    def __init__(self, value=None):
        self.value = value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"


__all__ = ["constexpr"]
