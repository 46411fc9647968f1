"""tidewater: tide and current predictions for harbour operations."""

__version__ = "2.3.1"

from .predict import predict_tides  # noqa: E402

__all__ = ["predict_tides", "__version__"]
