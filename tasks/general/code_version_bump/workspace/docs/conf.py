# Sphinx configuration for the tidewater docs.
project = "tidewater"
author = "Tidewater maintainers"
copyright = "2024-2026, Tidewater maintainers"

# The short X.Y version and the full version, including alpha/beta/rc tags.
version = "2.3"
release = "2.3.1"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
html_theme = "furo"
