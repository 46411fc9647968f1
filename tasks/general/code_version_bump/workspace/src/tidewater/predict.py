import numpy as np


def predict_tides(constituents, hours):
    """Harmonic tide prediction: sum of amplitude * cos(speed * t + phase) over constituents."""
    t = np.asarray(hours, dtype=float)
    return sum(c["amplitude"] * np.cos(np.radians(c["speed"] * t - c["phase"])) for c in constituents)
