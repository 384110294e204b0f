"""The least-squares fit the GPU probes split a window's cost by (scripts/gpu-event-count.py,
scripts/gpu-window-probe.py): seconds as a fixed cost plus a cost a call."""


def fit(points):
    """(fixed s, s a call) of a least-squares line through [(calls, seconds)]."""
    n = len(points)
    mx = sum(c for c, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((c - mx) ** 2 for c, _ in points)
    if sxx == 0:
        return my, 0.0
    b = sum((c - mx) * (y - my) for c, y in points) / sxx
    return my - b * mx, b
