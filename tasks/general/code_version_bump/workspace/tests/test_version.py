import tomllib
from pathlib import Path

import tidewater

ROOT = Path(__file__).resolve().parent.parent


def test_version_matches_pyproject():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert tidewater.__version__ == meta["project"]["version"]
