#!/usr/bin/env python3
"""Regenerate the reference outputs of Python trafilatura for the test pages.

Claw-Eval's web_real service answers with
`trafilatura.extract(html, url=url, include_links=True)`; this runs exactly that
call on every page listed in pages/pages.tsv and writes the result next to the
page as `<page>.trafilatura.txt` (an empty file when trafilatura returns None).

Regenerate (from the repository root):

    python3 -m venv /tmp/traf && /tmp/traf/bin/pip install trafilatura==2.3.1 lxml_html_clean
    /tmp/traf/bin/python runtime/web_text/tests/trafilatura.py

The outputs were made with trafilatura 2.3.1 (lxml 6.1.3).
"""

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
# This file is itself named trafilatura.py: keep its folder off the import path
# so that `import trafilatura` finds the library, not this script.
sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != HERE]

import trafilatura  # noqa: E402

PAGES = HERE / "pages"


def main() -> None:
    for line in (PAGES / "pages.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, url = line.split("\t")
        # Read as httpx's response.text would for a UTF-8 page.
        html = (PAGES / name).read_bytes().decode("utf-8", errors="replace")
        result = trafilatura.extract(html, url=url, include_links=True)
        out = PAGES / (name + ".trafilatura.txt")
        out.write_text(result or "", encoding="utf-8")
        print(f"{name}: {len(result or '')} chars")


if __name__ == "__main__":
    main()
