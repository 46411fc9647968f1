"""legacy_rates 0.9.4 (vendored, MIT). Do not edit: see README.md."""
__version__ = "0.9.4"
