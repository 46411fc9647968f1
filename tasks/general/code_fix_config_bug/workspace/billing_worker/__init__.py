__version__ = "1.12.0"
